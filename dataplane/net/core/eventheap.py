"""Push and pop on the simulator's event heap, chosen for the interpreter.

Every entry starts ``(time, key, ...)`` and no two entries share both (``sim.py``), so an entry's
place follows from those two integers alone. CPython's ``heapq`` is C and compares whole tuples
cheaply; PyPy's ``heapq`` is Python comparing tuples item by item through the generic protocol,
which on the RDMA workloads of ``tools/bench_sim.py`` was a fifth of the run. There
``push_by_time_key`` and ``pop_by_time_key`` sift on the two integers themselves, which PyPy's
JIT compiles to plain machine comparisons. Both keep the same heap invariant (with unique
``(time, key)`` a tuple comparison is decided by those two), so code that still calls ``heapq``
on the same list (``heapify`` in the parallel runtime) stays correct, and every run pops its
events in the same order under either interpreter.
"""
from __future__ import annotations

import heapq
import sys
from typing import Any

__all__ = ["heappush", "heappop", "push_by_time_key", "pop_by_time_key"]


def push_by_time_key(heap: list, item: tuple) -> None:
    """Add ``item`` to ``heap``, ordered by its first two items (``heapq.heappush``'s sift-down)."""
    heap.append(item)
    pos = len(heap) - 1
    t, k = item[0], item[1]
    while pos > 0:
        up = (pos - 1) >> 1
        parent = heap[up]
        pt = parent[0]
        if t < pt or (t == pt and k < parent[1]):
            heap[pos] = parent
            pos = up
        else:
            break
    heap[pos] = item


def pop_by_time_key(heap: list) -> Any:
    """Remove and return the entry with the least ``(time, key)``; IndexError on an empty heap.

    The last entry sinks from the root to where it belongs, the smaller child moving up at each
    level (heapq goes to a leaf first and back up; with few levels the direct way costs less).
    """
    last = heap.pop()
    if not heap:
        return last
    top = heap[0]
    n = len(heap)
    t, k = last[0], last[1]
    pos = 0
    child = 1
    while child < n:
        c = heap[child]
        right = child + 1
        if right < n:
            r = heap[right]
            if r[0] < c[0] or (r[0] == c[0] and r[1] < c[1]):
                child, c = right, r
        if c[0] < t or (c[0] == t and c[1] < k):
            heap[pos] = c
            pos = child
            child = 2 * pos + 1
        else:
            break
    heap[pos] = last
    return top


if sys.implementation.name == "pypy":
    heappush, heappop = push_by_time_key, pop_by_time_key
else:
    heappush, heappop = heapq.heappush, heapq.heappop
