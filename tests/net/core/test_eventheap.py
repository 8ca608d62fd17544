"""The simulator's pending events come out by (time, key), whether its list is a heap (popped by
heapq or the two-integer sift) or sorted (PyPy's short queues), and switching between the two."""
import heapq
import json
import random
import sys

import pytest

from dataplane.net.core import eventheap
from dataplane.net.core.eventheap import LARGE, insort_by_time_key, pop_by_time_key, pop_large_by_time_key


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
    assert (eventheap.SORTED_MAX > 0) is pypy


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


def test_insort_by_time_key_places_entries_as_bisect_on_whole_tuples():
    import bisect
    entries = _entries(3000, 11, 40)     # 40 times: ties on time, decided by the key
    ours, theirs = [], []
    for e in entries:
        insort_by_time_key(ours, e)
        bisect.insort(theirs, e[:2])
        assert len(ours) == len(theirs)
    assert [e[:2] for e in ours] == theirs
    # at either end and between two entries of one time
    row = [(5, 2, None), (5, 4, None), (7, 1, None)]
    for e, at in (((5, 3, "a"), 1), ((4, 9, "b"), 0), ((7, 2, "c"), 5), ((5, 1, "d"), 1), ((6, 0, "e"), 5)):
        insort_by_time_key(row, e)
        assert row.index(e) == at
    assert [e[:2] for e in row] == sorted(e[:2] for e in row)


def _forms(monkeypatch, most, least):
    monkeypatch.setattr(eventheap, "SORTED_MAX", most)
    monkeypatch.setattr(eventheap, "SORTED_MIN", least)


def _ordered_run(sim_, log, bursts=60, seed=5):
    """Events at random small delays (many on one nanosecond) that come in bursts: each time the
    queue is empty a burst of 5-15 is scheduled, so the queue's length crosses the
    thresholds both ways again and again. ``log`` gets (time, label) in the order they ran."""
    rng = random.Random(seed)
    left = [bursts]

    def event(label):
        log.append((sim_.now, label))
        if not sim_._heap and left[0]:
            left[0] -= 1
            for j in range(rng.randrange(5, 16)):
                sim_.schedule(rng.randrange(4), event, f"{label}.{j}")
        elif rng.random() < 0.3:
            sim_.schedule(rng.randrange(4), event, f"{label}+")
    for i in range(3):
        sim_.at(rng.randrange(5), event, str(i))
    sim_.run()


@pytest.mark.parametrize("most, least", [(0, 0), (8, 4), (1 << 30, 1 << 28)])
def test_events_run_in_the_same_order_whatever_form_the_list_takes(monkeypatch, most, least):
    from dataplane.net.core.sim import Simulator
    logs = []
    for m, le in ((0, 0), (most, least)):
        _forms(monkeypatch, m, le)
        log: list = []
        _ordered_run(Simulator(), log)
        logs.append(log)
    assert len(logs[0]) > 500
    assert logs[1] == logs[0]


def test_the_list_turns_heap_past_the_most_and_sorted_below_the_least(monkeypatch):
    from dataplane.net.core.sim import Simulator
    _forms(monkeypatch, 8, 3)
    sim_ = Simulator()
    assert sim_._sorted
    forms = []

    def note():
        forms.append((len(sim_._heap), sim_._sorted))
    for t in range(12):
        sim_.at(100 + t, note)
    sim_.run()
    # The form is looked at on each pop, by what is left: 11 left (past 8) makes it a heap; 3 left
    # (the least itself) keeps the heap, 2 left sorts it.
    assert forms[0] == (11, False)
    assert [f for f in forms if f[0] in (4, 3, 2, 1)] == [(4, False), (3, False), (2, True), (1, True)]
    for start, first in ((10, (9, False)), (9, (8, True))):     # 9 left: past the most; 8: the most itself
        sim_ = Simulator()
        forms.clear()
        for t in range(start):
            sim_.at(t, note)
        sim_.run()
        assert forms[0] == first


def test_a_run_until_a_time_leaves_the_next_event_first_in_a_sorted_list(monkeypatch):
    from dataplane.net.core.sim import Simulator
    _forms(monkeypatch, 1 << 30, 1 << 28)
    sim_ = Simulator()
    ran = []
    for t in (30, 10, 20, 40):
        sim_.at(t, ran.append, t)
    sim_.run(until_ns=25)
    assert ran == [10, 20] and sim_.now == 25
    assert [e[0] for e in sim_._heap] == [30, 40]
    sim_.at(35, ran.append, 35)
    sim_.run(on_progress=lambda now: None, progress_every=1)
    assert ran == [10, 20, 30, 35, 40]


@pytest.mark.parametrize("most, least", [(1 << 30, 1 << 28), (16, 4)])
@pytest.mark.parametrize("name", ["training", "bench-incast"])
def test_runs_on_a_sorted_list_write_the_pinned_bytes(monkeypatch, name, most, least):
    """What PyPy runs on queues of up to SORTED_MAX events, run here on every queue (and switching
    form every few events): a built-in scenario's frames, --json and files are the pinned ones."""
    from tests.net.rdma.test_outputs_pinned import PINNED, fingerprint

    _forms(monkeypatch, most, least)
    assert fingerprint(name) == json.loads(PINNED.read_text())[name]
