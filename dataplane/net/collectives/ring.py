"""Ring algorithms (NCCL's ring): ReduceScatter, AllGather, AllReduce and Broadcast.

Ranks stand in a ring (``order``: position i sends to position i+1). The region is cut into
one chunk per position; chunk k ends at position k (ReduceScatter) or starts there
(AllGather), so with the ranks in order rank r owns chunk r, as NCCL's output does.

* ReduceScatter, n-1 steps: at step s position i sends chunk i-s-1 and adds chunk i-s-2
  arriving from i-1; what it sends at step s is what it summed at step s-1.
* AllGather, n-1 steps: position i sends chunk i-s and copies chunk i-s-1 in.
* AllReduce: ReduceScatter, then AllGather of the reduced chunks (2(n-1) steps of S/n each,
  so each rank sends 2(n-1)/n x S); the AllGather's first send waits for the ReduceScatter's
  last sum of that chunk.
* Broadcast: a pipelined chain from the root around the ring.

Each chunk moves in slices (``plan.slices``): slice j of step s leaves once slice j of step
s-1 has arrived, so the ring is a pipeline and not n-1 stop-and-go steps.
"""
from __future__ import annotations

from typing import Sequence

from dataplane.net.collectives.plan import PlanBuilder, Region, slices, split

__all__ = ["reduce_scatter", "all_gather", "all_reduce", "broadcast"]


def _steps(b: PlanBuilder, order: Sequence[int], chunks: Sequence[Region], channel: int, slice_elems: int,
           first_send: int, first_recv: int, steps: int, reduce: bool,
           after: dict[int, tuple[int, ...]] | None, follow: dict[int, list[list[int]]] | None = None
           ) -> dict[int, list[list[int]]]:
    """``steps`` ring steps: at step s position i sends chunk (i + first_send - s) and receives
    chunk (i + first_recv - s) of ``chunks`` (one per position). ``after[rank]``: ops the first step's sends wait for, besides
    ``follow[rank][j]``, the ops that produced slice j of the chunk it sends first. Returns, per
    rank, the receive ops of the last step, per slice."""
    n = len(order)
    m = slices(chunks, slice_elems)
    pieces = [split(c, m) for c in chunks]
    last: dict[int, list[list[int]]] = {}
    for i, rank in enumerate(order):
        nxt, prv = order[(i + 1) % n], order[(i - 1) % n]
        start = tuple(after.get(rank, ())) if after else ()
        prev = follow[rank] if follow is not None else [[] for _ in range(m)]
        for s in range(steps):
            out, into = pieces[(i + first_send - s) % n], pieces[(i + first_recv - s) % n]
            for j in range(m):
                b.send(rank, nxt, channel, out[j], deps=(*start, *prev[j]) if s == 0 else prev[j])
            prev = [[b.recv(rank, prv, channel, into[j], reduce)] for j in range(m)]
        last[rank] = prev
    return last


def reduce_scatter(b: PlanBuilder, order: Sequence[int], chunks: Sequence[Region], channel: int, slice_elems: int,
                   after: dict[int, tuple[int, ...]] | None = None) -> dict[int, list[list[int]]]:
    """Ring ReduceScatter: position i ends with ``chunks[i]`` summed over the ring."""
    if len(order) < 2:
        return {r: [] for r in order}
    return _steps(b, order, chunks, channel, slice_elems, -1, -2, len(order) - 1, True, after)


def all_gather(b: PlanBuilder, order: Sequence[int], chunks: Sequence[Region], channel: int, slice_elems: int,
               after: dict[int, tuple[int, ...]] | None = None) -> dict[int, list[list[int]]]:
    """Ring AllGather: position i's ``chunks[i]`` reaches every position."""
    if len(order) < 2:
        return {r: [] for r in order}
    return _steps(b, order, chunks, channel, slice_elems, 0, -1, len(order) - 1, False, after)


def all_reduce(b: PlanBuilder, order: Sequence[int], region: Region, channel: int, slice_elems: int,
               after: dict[int, tuple[int, ...]] | None = None) -> dict[int, list[list[int]]]:
    """Ring AllReduce of ``region``: every position ends with the sum over the ring."""
    n = len(order)
    if n < 2:
        return {r: [] for r in order}
    chunks = split(region, n)
    summed = _steps(b, order, chunks, channel, slice_elems, -1, -2, n - 1, True, after)
    # position i summed chunk i last, and sends it first in the AllGather
    return _steps(b, order, chunks, channel, slice_elems, 0, -1, n - 1, False, None, summed)


def broadcast(b: PlanBuilder, order: Sequence[int], region: Region, channel: int, slice_elems: int) -> None:
    """Pipelined chain from ``order[0]`` (the root) through the ring: each slice is copied in
    from the previous rank and passed on to the next, which the last rank does not."""
    n = len(order)
    if n < 2:
        return
    m = slices([region], slice_elems)
    pieces = split(region, m)
    for j in range(m):
        b.send(order[0], order[1], channel, pieces[j])
    for i in range(1, n):
        rank = order[i]
        got = [b.recv(rank, order[i - 1], channel, pieces[j], False) for j in range(m)]
        if i + 1 < n:
            for j in range(m):
                b.send(rank, order[i + 1], channel, pieces[j], deps=(got[j],))
