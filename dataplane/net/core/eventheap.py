"""The simulator's queue of pending events: a sorted list while it is short, a heap when long.

Every entry starts ``(time, key, ...)`` and no two entries share both (``sim.py``), so an entry's
place follows from those two integers alone, and any structure that hands out the least entry
first runs a network's events in the same order.

**A sorted list while short** (PyPy). PyPy's ``heapq`` is Python: a pop sifts down to a leaf and
back, moving entries at every level, a push sifts up, comparing tuples, in code its JIT traces
into every site that pushes or pops. A sorted list pops with ``list.pop(0)`` (built in: one
``memmove``) and pushes with ``insort_by_time_key``, a binary search that compares the two
integers and moves nothing, then ``list.insert`` (built in). On a queue of a few hundred events,
as a fabric of tens of switches keeps, that is a quarter to a third less CPU a hop in the
simulator (docs/speed/simulator.md, "A sorted list"). The ``memmove`` grows with the queue, so
past ``SORTED_MAX`` entries the list is used as a heap (a sorted list already is one) until it
falls below ``SORTED_MIN`` again, when it is sorted once. CPython's ``heapq`` is C and gains
nothing from it (``SORTED_MAX`` is 0 there: always a heap).

**A heap when long.** CPython's ``heapq`` compares whole tuples cheaply. PyPy's compares them
item by item through the generic protocol; on a heap of thousands of events (the in-network
allreduce keeps every worker's packets and timeouts in it) ``pop_by_time_key``, which compares
the two integers themselves, takes a tenth of that run's CPU off, and PyPy pops with it above
``LARGE`` entries (below, the same function made PyPy's JIT trace more and ran 35-40% slower).
Both keep heapq's invariant, so they pop the same entries.

``Simulator`` keeps which form its list is in and pushes with the matching function
(``Simulator._push``); the parallel runtime keeps a heap throughout.
"""
from __future__ import annotations

import heapq
import sys
from typing import Any

__all__ = ["heappop", "pop_by_time_key", "pop_large_by_time_key", "LARGE", "insort_by_time_key", "SORTED_MAX",
           "SORTED_MIN"]

_PYPY = sys.implementation.name == "pypy"
#: entries above which the simulator's sorted list becomes a heap (0: always a heap)
SORTED_MAX = 1024 if _PYPY else 0
#: entries below which a heap is sorted again, a quarter of the way down so that a queue that
#: hovers near ``SORTED_MAX`` is not sorted over and over
SORTED_MIN = SORTED_MAX // 4

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


def insort_by_time_key(entries: list, entry: Any) -> None:
    """Insert ``entry`` into ``entries``, sorted by ``(time, key)``, where it belongs (``bisect.insort``
    comparing the two integers instead of whole tuples: on PyPy both are Python, and this one is
    15-20% faster in the simulator)."""
    t = entry[0]
    k = entry[1]
    lo = 0
    hi = len(entries)
    while lo < hi:
        mid = (lo + hi) // 2
        e = entries[mid]
        if t < e[0] or (t == e[0] and k < e[1]):
            hi = mid
        else:
            lo = mid + 1
    entries.insert(lo, entry)


def pop_large_by_time_key(heap: list) -> Any:
    """``pop_by_time_key`` on a heap of more than ``LARGE`` entries, else ``heapq.heappop``."""
    if len(heap) > LARGE:
        return pop_by_time_key(heap)
    return _heapq_pop(heap)


heappop = pop_large_by_time_key if _PYPY else heapq.heappop
