"""Popping the event heap takes entries by (time, key), as heapq does."""
import heapq
import json
import random
import sys

import pytest

from dataplane.net.core import eventheap
from dataplane.net.core.eventheap import LARGE, pop_by_time_key, pop_large_by_time_key


def _entries(n, seed, times):
    rng = random.Random(seed)
    keys = rng.sample(range(1 << 44), n)          # unique keys, as every actor's are
    return [(rng.randrange(times), k, object(), (i,), rng.randrange(4)) for i, k in enumerate(keys)]


def test_pops_in_time_then_key_order_with_many_ties():
    entries = _entries(2000, 1, 50)     # 50 distinct times: most entries tie on time
    heap = []
    for e in entries:
        heapq.heappush(heap, e)
    popped = [pop_by_time_key(heap) for _ in range(len(entries))]
    assert [(e[0], e[1]) for e in popped] == sorted((e[0], e[1]) for e in entries)
    assert heap == []


@pytest.mark.parametrize("pop", [pop_by_time_key, pop_large_by_time_key])
def test_interleaved_pushes_and_pops_match_heapq(pop):
    # the heap grows past LARGE and shrinks below it again: both ways of popping meet one list
    rng = random.Random(7)
    ours, theirs = [], []
    key = 0
    for step in range(6 * LARGE):
        if ours and rng.random() < (0.3 if step < 3 * LARGE else 0.7):
            assert pop(ours) is heapq.heappop(theirs)
        else:
            key += rng.randrange(1, 3)
            e = (rng.randrange(100), key, None, (), 0)
            heapq.heappush(ours, e)
            heapq.heappush(theirs, e)
        assert ours == theirs      # the same invariant, so the same list, entry for entry


def test_a_heap_heapified_by_heapq_pops_in_order():
    # the parallel runtime heapifies the simulator's heap with heapq and pops it with these
    entries = _entries(300, 3, 10)
    heap = list(entries)
    heapq.heapify(heap)
    assert [pop_by_time_key(heap) for _ in entries] == sorted(entries, key=lambda e: (e[0], e[1]))


def test_single_entry_then_empty_heap_raises_as_heapq():
    heap = [(5, 1, None, (), 0)]
    assert pop_by_time_key(heap) == (5, 1, None, (), 0)
    with pytest.raises(IndexError):
        pop_by_time_key(heap)


def test_large_heaps_pop_by_the_two_integers_small_ones_by_heapq(monkeypatch):
    used = []
    monkeypatch.setattr(eventheap, "pop_by_time_key", lambda h: used.append(len(h)) or pop_by_time_key(h))
    heap = [(i, i, None, (), 0) for i in range(LARGE + 2)]
    assert [pop_large_by_time_key(heap)[0] for _ in range(4)] == [0, 1, 2, 3]
    assert used == [LARGE + 2, LARGE + 1]      # above LARGE: the sift; at LARGE and below: heapq


def test_pypy_pops_by_size_cpython_keeps_heapq():
    pypy = sys.implementation.name == "pypy"
    assert eventheap.heappop is (pop_large_by_time_key if pypy else heapq.heappop)


@pytest.mark.parametrize("name", ["training", "loadbalance", "bench-incast"])
def test_runs_sifting_on_the_two_integers_write_the_pinned_bytes(monkeypatch, name):
    """What PyPy runs on large heaps, run here on every heap: the simulator and the parallel
    runtime pop with the two-integer sift, and a built-in scenario's frames, --json and files are
    the pinned ones."""
    from dataplane.net.core import sim
    from dataplane.net.parallel import runtime
    from tests.net.rdma.test_outputs_pinned import PINNED, fingerprint

    for module, attr in ((sim, "_heappop"), (runtime, "heappop")):
        monkeypatch.setattr(module, attr, pop_by_time_key)
    assert fingerprint(name) == json.loads(PINNED.read_text())[name]
