"""The collectives nccl-tests measures, their algorithms, and their sizes and bandwidths.

For each collective: the algorithms that build its plan (``build_plan``), how nccl-tests turns
a size in bytes into element counts, and its bus-bandwidth factor. nccl-tests reports
algbw = S / t, with S the size of the larger buffer (the whole output of AllGather, the whole
input of ReduceScatter, the data each rank sends in AlltoAll), and busbw = algbw x factor,
the factor making busbw comparable with a link's rate whatever the rank count n:
2(n-1)/n for AllReduce, (n-1)/n for ReduceScatter, AllGather and AlltoAll, 1 for Broadcast
and SendRecv. ReduceScatter, AllGather and AlltoAll round the element count down to a
multiple of n (one equal block per rank).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from dataplane.net.collectives import hierarchical, pairwise, ring, tree
from dataplane.net.collectives.plan import Plan, PlanBuilder, split

__all__ = ["Collective", "COLLECTIVES", "build_plan", "ELEM_BYTES"]

ELEM_BYTES = 4          # float32, nccl-tests' default type


@dataclass(frozen=True)
class Collective:
    """One collective: its name, algorithms (the first is the default), busbw factor, and
    whether its element count is a multiple of the rank count."""

    name: str
    algorithms: tuple[str, ...]
    factor: Callable[[int], float]
    per_rank_blocks: bool = False
    redop: str = "sum"

    def count(self, size_bytes: int, ranks: int) -> int:
        """Elements in the buffer nccl-tests sizes at ``size_bytes``."""
        count = size_bytes // ELEM_BYTES
        return count // ranks * ranks if self.per_rank_blocks else count

    def busbw(self, algbw: float, ranks: int) -> float:
        return algbw * self.factor(ranks)


COLLECTIVES: dict[str, Collective] = {c.name: c for c in (
    Collective("allreduce", ("ring", "tree", "hierarchical", "ina"), lambda n: 2 * (n - 1) / n),
    Collective("reducescatter", ("ring",), lambda n: (n - 1) / n, per_rank_blocks=True),
    Collective("allgather", ("ring",), lambda n: (n - 1) / n, per_rank_blocks=True, redop="none"),
    Collective("alltoall", ("pairwise", "direct"), lambda n: (n - 1) / n, per_rank_blocks=True, redop="none"),
    Collective("broadcast", ("ring",), lambda n: 1.0, redop="none"),
    Collective("sendrecv", ("ring",), lambda n: 1.0, redop="none"),
)}


def build_plan(collective: str, algorithm: str, ranks: int, count: int, *, channels: int = 1,
               slice_bytes: int = 512 * 1024, root: int = 0, groups: Sequence[Sequence[int]] | None = None) -> Plan:
    """The plan of ``collective`` over ``ranks`` ranks and ``count`` elements by ``algorithm``.
    The buffer is cut into ``channels`` parts, each with its own connections (NCCL's channels);
    ``slice_bytes`` is the pipelining unit; ``groups`` (ranks per rack) for ``hierarchical``."""
    if collective not in COLLECTIVES:
        raise ValueError(f"unknown collective {collective!r} (one of {', '.join(COLLECTIVES)})")
    if algorithm not in COLLECTIVES[collective].algorithms or algorithm == "ina":
        raise ValueError(f"{collective} has no host algorithm {algorithm!r}")
    if channels < 1:
        raise ValueError("channels must be at least 1")
    b = PlanBuilder(ranks, ELEM_BYTES)
    slice_elems = max(1, slice_bytes // ELEM_BYTES)
    order = list(range(ranks))
    if collective in ("reducescatter", "allgather", "alltoall"):
        # one block per rank, each block shared out over the channels
        blocks = split((0, count), ranks)
        parts = [[split(block, channels)[c] for block in blocks] for c in range(channels)]
    for c in range(channels):
        region = split((0, count), channels)[c]
        if collective == "allreduce":
            if algorithm == "ring":
                ring.all_reduce(b, order, region, c, slice_elems)
            elif algorithm == "tree":
                tree.all_reduce(b, ranks, region, 2 * c, slice_elems)
            else:
                hierarchical.all_reduce(b, groups or [order], region, 2 * c, slice_elems)
        elif collective == "broadcast":
            ring.broadcast(b, order[root:] + order[:root], region, c, slice_elems)
        elif collective == "sendrecv":
            pairwise.send_recv(b, [(r, (r + 1) % ranks) for r in order], region, c, slice_elems)
        else:
            _blocks(b, collective, algorithm, ranks, parts[c], c, slice_elems)
    return b.build()


def _blocks(b: PlanBuilder, collective: str, algorithm: str, ranks: int, blocks: list[tuple[int, int]],
            channel: int, slice_elems: int) -> None:
    """ReduceScatter, AllGather or AlltoAll on one channel's share of every rank's block."""
    if collective == "alltoall":
        pairwise.all_to_all(b, ranks, blocks, channel, slice_elems, pairwise=algorithm == "pairwise")
    elif collective == "reducescatter":
        ring.reduce_scatter(b, list(range(ranks)), blocks, channel, slice_elems)
    else:
        ring.all_gather(b, list(range(ranks)), blocks, channel, slice_elems)
