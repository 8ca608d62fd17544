"""Hierarchical AllReduce: within each rack, then across racks, then back.

Ranks are grouped by rack (the switch their NIC connects to), g ranks per rack, the same g in
every rack. Three phases, each a ring (``ring``):

1. ReduceScatter inside each rack: local rank l ends with shard l of the rack's sum;
2. AllReduce of shard l across the racks, among the ranks with local index l (one ring per l,
   all at once: each crosses the fabric once per rack);
3. AllGather inside each rack: every rank ends with every shard.

Each rank's next phase starts once its part of the last one has arrived. Across racks each
rank sends 2(R-1)/R x S/g instead of the flat ring's share of the fabric: the traffic that
leaves a rack is 1/g of a flat ring's when racks are the unit that the fabric oversubscribes.
"""
from __future__ import annotations

from typing import Sequence

from dataplane.net.collectives import ring
from dataplane.net.collectives.plan import PlanBuilder, Region, split

__all__ = ["all_reduce", "groups_problem"]


def groups_problem(groups: Sequence[Sequence[int]]) -> str | None:
    """Why ``groups`` (ranks per rack) cannot run the hierarchy, or None."""
    sizes = {len(g) for g in groups}
    if len(sizes) > 1:
        return f"every rack needs the same number of ranks (racks hold {', '.join(map(str, sorted(sizes)))})"
    return None


def all_reduce(b: PlanBuilder, groups: Sequence[Sequence[int]], region: Region, channel: int,
               slice_elems: int) -> None:
    """Hierarchical AllReduce of ``region``; ``groups`` lists each rack's ranks (equal sizes),
    and the phases use channels ``channel`` (inside racks) and ``channel + 1`` (across)."""
    problem = groups_problem(groups)
    if problem is not None:
        raise ValueError(problem)
    g = len(groups[0]) if groups else 0
    shards = split(region, g)
    done: dict[int, list[list[int]]] = {}
    for members in groups:
        done.update(ring.reduce_scatter(b, members, shards, channel, slice_elems))
    after = {rank: tuple(i for per_slice in ops for i in per_slice) for rank, ops in done.items()}
    crossed: dict[int, list[list[int]]] = {}
    for local in range(g):
        across = [members[local] for members in groups]
        crossed.update(ring.all_reduce(b, across, shards[local], channel + 1, slice_elems, after=after))
    after = {rank: tuple(i for per_slice in ops for i in per_slice) or after.get(rank, ())
             for rank, ops in crossed.items()}
    for members in groups:
        ring.all_gather(b, members, shards, channel, slice_elems, after=after)
