"""Popping the simulator's event heap, chosen for the interpreter and the heap's size.

Every entry starts ``(time, key, ...)`` and no two entries share both (``sim.py``), so an entry's
place follows from those two integers alone. CPython's ``heapq`` is C and compares whole tuples
cheaply. PyPy's is Python comparing tuples item by item through the generic protocol; on a heap
of thousands of events (the in-network allreduce keeps every worker's packets and timeouts in
it) its pop was a fifth of a run, and ``pop_by_time_key``, which compares the two integers
themselves, takes a tenth of that run's CPU off. On heaps of tens or hundreds of events
(``tools/bench_sim.py``'s workloads) the same function made PyPy's JIT trace more and ran
35-40% slower (docs/speed/simulator.md, "The event heap, again"), so PyPy pops with it only
above ``LARGE`` entries, and every push stays ``heapq``'s. Both keep heapq's invariant, so a run
pops its events in the same order whichever pops it.
"""
from __future__ import annotations

import heapq
import sys
from typing import Any

__all__ = ["heappop", "pop_by_time_key", "pop_large_by_time_key", "LARGE"]

#: entries above which PyPy pops with ``pop_by_time_key``
LARGE = 512
_heapq_pop = heapq.heappop


def pop_by_time_key(heap: list) -> Any:
    """Remove and return the entry with the least ``(time, key)``; IndexError on an empty heap.

    The last entry sinks from the root to where it belongs, the smaller child moving up at each
    level (heapq goes to a leaf first and back up).
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


def pop_large_by_time_key(heap: list) -> Any:
    """``pop_by_time_key`` on a heap of more than ``LARGE`` entries, else ``heapq.heappop``."""
    if len(heap) > LARGE:
        return pop_by_time_key(heap)
    return _heapq_pop(heap)


heappop = pop_large_by_time_key if sys.implementation.name == "pypy" else heapq.heappop
