"""Point-to-point collectives: AlltoAll and SendRecv.

AlltoAll: rank r's input holds one block per rank; block p goes to rank p, which puts it at
block r of its output (rank r's own block is copied in place, no network). ``pairwise``
exchanges in n-1 steps, at step i with rank r+i (sending) and r-i (receiving), each step
leaving once the previous step's block has arrived (MPI's pairwise exchange); ``direct`` posts
every send and receive at once (what NCCL's grouped ncclSend/ncclRecv does).

SendRecv (nccl-tests' sendrecv): every rank sends its buffer to rank r+1 and receives rank
r-1's into its output. ``send_recv`` also takes explicit pairs (pipeline parallelism).
"""
from __future__ import annotations

from typing import Sequence

from dataplane.net.collectives.plan import BUF, OUT, PlanBuilder, Region, slices, split

__all__ = ["all_to_all", "send_recv"]


def all_to_all(b: PlanBuilder, ranks: int, blocks: Sequence[Region], channel: int, slice_elems: int,
               pairwise: bool = True) -> None:
    """AlltoAll over ranks 0..ranks-1 of ``blocks`` (one per rank: the part of block p that
    goes to rank p, and the part of the output where rank p's block lands)."""
    m = slices(blocks, slice_elems)
    pieces = [split(block, m) for block in blocks]
    for r in range(ranks):
        prev: list[int] = []
        for i in range(1, ranks):
            to, frm = (r + i) % ranks, (r - i) % ranks
            for j in range(m):
                b.send(r, to, channel, pieces[to][j], deps=prev if pairwise else (), buf=BUF)
            prev = [b.recv(r, frm, channel, pieces[frm][j], False, buf=OUT) for j in range(m)]


def send_recv(b: PlanBuilder, pairs: Sequence[tuple[int, int]], region: Region, channel: int,
              slice_elems: int) -> None:
    """``region`` of each source's input to the same region of its destination's output, for
    every (source, destination) in ``pairs``."""
    m = slices([region], slice_elems)
    pieces = split(region, m)
    for src, dst in pairs:
        if src == dst:
            continue
        for j in range(m):
            b.send(src, dst, channel, pieces[j], buf=BUF)
        for j in range(m):
            b.recv(dst, src, channel, pieces[j], False, buf=OUT)
