"""The event heap's push and pop order entries by (time, key), as heapq does."""
import heapq
import json
import random
import sys

import pytest

from dataplane.net.core import eventheap
from dataplane.net.core.eventheap import pop_by_time_key, push_by_time_key


def _entries(n, seed, times):
    rng = random.Random(seed)
    keys = rng.sample(range(1 << 44), n)          # unique keys, as every actor's are
    return [(rng.randrange(times), k, object(), (i,), rng.randrange(4)) for i, k in enumerate(keys)]


def test_pops_in_time_then_key_order_with_many_ties():
    entries = _entries(2000, 1, 50)     # 50 distinct times: most entries tie on time
    heap = []
    for e in entries:
        push_by_time_key(heap, e)
    popped = [pop_by_time_key(heap) for _ in range(len(entries))]
    assert [(e[0], e[1]) for e in popped] == sorted((e[0], e[1]) for e in entries)
    assert heap == []


def test_interleaved_pushes_and_pops_match_heapq():
    rng = random.Random(7)
    ours, theirs = [], []
    key = 0
    for _ in range(5000):
        if ours and rng.random() < 0.45:
            assert pop_by_time_key(ours) is heapq.heappop(theirs)
        else:
            key += rng.randrange(1, 3)
            e = (rng.randrange(100), key, None, (), 0)
            push_by_time_key(ours, e)
            heapq.heappush(theirs, e)
    assert ours == theirs      # the same invariant, so the same list, entry for entry


def test_a_heap_heapified_by_heapq_pops_in_order():
    # the parallel runtime heapifies the simulator's heap with heapq and pops it with these
    entries = _entries(300, 3, 10)
    heap = list(entries)
    heapq.heapify(heap)
    assert [pop_by_time_key(heap) for _ in entries] == sorted(entries, key=lambda e: (e[0], e[1]))


def test_single_entry_then_empty_heap_raises_as_heapq():
    heap = []
    push_by_time_key(heap, (5, 1, None, (), 0))
    assert pop_by_time_key(heap) == (5, 1, None, (), 0)
    with pytest.raises(IndexError):
        pop_by_time_key(heap)


def test_pypy_sifts_on_the_two_integers_cpython_keeps_heapq():
    pypy = sys.implementation.name == "pypy"
    assert (eventheap.heappush is push_by_time_key) == pypy
    assert (eventheap.heappop is pop_by_time_key) == pypy
    if not pypy:
        assert (eventheap.heappush, eventheap.heappop) == (heapq.heappush, heapq.heappop)


@pytest.mark.parametrize("name", ["training", "loadbalance", "bench-incast"])
def test_runs_sifting_on_the_two_integers_write_the_pinned_bytes(monkeypatch, name):
    """What PyPy runs, run here: every module that pushes or pops the simulator's heap given the
    two-integer sift, and a built-in scenario's frames, --json and files are the pinned ones."""
    from dataplane.net.core import sim, timeouts
    from dataplane.net.devices import link
    from dataplane.net.parallel import runtime
    from tests.net.rdma.test_outputs_pinned import PINNED, fingerprint

    for module, push, pop in ((sim, "_heappush", "_heappop"), (timeouts, "_heappush", None),
                              (link, "_heappush", None), (runtime, "heappush", "heappop")):
        monkeypatch.setattr(module, push, push_by_time_key)
        if pop:
            monkeypatch.setattr(module, pop, pop_by_time_key)
    assert fingerprint(name) == json.loads(PINNED.read_text())[name]
