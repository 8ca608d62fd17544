"""NCCL's double binary tree for AllReduce (Sanders, Speck, Träff 2009; NCCL 2.4).

Two binary trees over the same ranks, built so that a rank that is an inner node in one is a
leaf in the other: the first from the bit pattern of the rank (``btree``: rank r's parent
flips its lowest set bit and sets the next, its children are r -/+ half that bit; rank 0 is
the root, with one child), the second the mirror image of the first (rank n-1-r) when n is
even, the first shifted by one rank when n is odd. Each tree reduces half of the region: up
the tree (every node adds its children's slices and sends the sum to its parent), then down
it (the root's total is copied from parent to children), slice by slice so that both phases
run as a pipeline. At large sizes each rank sends and receives about S per tree direction in
all, the same as a ring; at small sizes it takes 2 log2 n steps instead of 2(n-1).
"""
from __future__ import annotations

from dataplane.net.collectives.plan import PlanBuilder, Region, slices, split

__all__ = ["btree", "dtree", "all_reduce"]


def btree(n: int, rank: int) -> tuple[int, list[int]]:
    """(parent, children) of ``rank`` in NCCL's binary tree over ``n`` ranks (parent -1 at the root)."""
    bit = 1
    while bit < n and not bit & rank:
        bit <<= 1
    if rank == 0:
        return -1, ([bit >> 1] if n > 1 else [])
    up = (rank ^ bit) | (bit << 1)
    if up >= n:
        up = rank ^ bit
    low = bit >> 1
    children = []
    if low:
        children.append(rank - low)
        down1 = rank + low
        while down1 >= n and low:
            low >>= 1
            down1 = rank + low if low else -1
        if down1 > 0 and down1 != rank:
            children.append(down1)
    return up, children


def dtree(n: int, rank: int) -> tuple[tuple[int, list[int]], tuple[int, list[int]]]:
    """(parent, children) of ``rank`` in both trees: the binary tree, and its mirror (n even) or
    shift by one (n odd)."""
    first = btree(n, rank)
    if n % 2:
        up, down = btree(n, (rank - 1) % n)
        second = ((up + 1) % n if up >= 0 else -1, [(c + 1) % n for c in down])
    else:
        up, down = btree(n, n - 1 - rank)
        second = (n - 1 - up if up >= 0 else -1, [n - 1 - c for c in down])
    return first, second


def all_reduce(b: PlanBuilder, ranks: int, region: Region, channel: int, slice_elems: int) -> None:
    """Double binary tree AllReduce of ``region`` over ranks 0..ranks-1, on channels ``channel``
    (first tree) and ``channel + 1`` (second)."""
    if ranks < 2:
        return
    halves = split(region, 2)
    for t, half in enumerate(halves):
        m = slices([half], slice_elems)
        pieces = split(half, m)
        for rank in range(ranks):
            parent, children = dtree(ranks, rank)[t]
            ch = channel + t
            for j in range(m):
                summed = [b.recv(rank, c, ch, pieces[j], True) for c in children]
                if parent >= 0:
                    b.send(rank, parent, ch, pieces[j], deps=summed)
                    total = (b.recv(rank, parent, ch, pieces[j], False),)
                else:
                    total = tuple(summed)
                for c in children:
                    b.send(rank, c, ch, pieces[j], deps=total)
