"""Step decomposition by hand: the job's step ends when its last GPU ends it."""
from __future__ import annotations

from dataplane.net.training.measure import decompose, overlap, step_ends, union


def test_steps_end_with_the_slowest_gpu():
    starts = [[0, 10, 25], [0, 12, 22]]
    assert step_ends(starts, [40, 38], 3) == [12, 25, 40]


def test_union_counts_overlapping_spans_once_and_clips_to_the_window():
    assert union([(0, 10), (5, 15), (20, 30)], 0, 100) == 25
    assert union([(0, 10), (5, 15)], 8, 12) == 4
    assert overlap([(0, 10, "forward"), (10, 14, "exposed")], 5, 12, ("exposed",)) == 2


def test_idle_is_the_step_not_spent_computing():
    # GPU 0 computes 8 of a 10 ns step and waits 2 for the network; GPU 1 computes 10
    timelines = [[(0, 8, "backward"), (8, 10, "exposed")], [(0, 10, "backward")]]
    rows = decompose([10], timelines, [[(6, 10)], []])
    r = rows[0]
    assert r["step_ns"] == 10 and r["compute_ns"] == [8, 10] and r["exposed_ns"] == [2, 0]
    assert r["communication_ns"] == [4, 0] and r["idle"] == [0.2, 0.0] and r["max_idle"] == 0.2
