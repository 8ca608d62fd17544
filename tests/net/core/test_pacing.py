"""The wall-clock pacer's lag figures (dataplane.net.core.pacing):

* p99 is the nearest-rank percentile: the smallest lag at least 99% of the steps are at or
  below, i.e. the ceil(0.99 N)-th smallest. At N = 100 that is the 99th, which is also what
  rounding or interpolating would pick; at N = 52 nearest rank takes the 52nd (the largest),
  interpolation 51.49 and rounding the 51st;
* a lag warning goes out the first time a step is at least ``warn_lag_ns`` late, then each time
  the lag reaches double the last threshold, never twice for one threshold.
"""
from __future__ import annotations

import random

import pytest

from dataplane.net.core.pacing import WallClockPacer


class _Net:
    """What the pacer reads: a simulator with a heap, events_run and now, and switches."""

    class sim:
        _heap: list = []
        events_run = 0
        now = 0

    switches: dict = {}


#: steps, the rank ceil(0.99 N) picks (1-based), worked out by hand
NEAREST_RANK = [(1, 1), (10, 10), (52, 52), (60, 60), (100, 99), (150, 149), (199, 198), (250, 248)]


@pytest.mark.parametrize("steps, rank", NEAREST_RANK, ids=[f"{n}_steps" for n, _ in NEAREST_RANK])
def test_p99_lag_is_the_nearest_rank(steps, rank):
    """Lags of 1..N ms in a shuffled order: p99 is the rank-th smallest, in whole ms."""
    pacer = WallClockPacer(_Net(), lambda target: None)
    lags = [i * 1_000_000 for i in range(1, steps + 1)]
    random.Random(steps).shuffle(lags)
    for lag in lags:
        pacer._note_lag(lag, 0)
    report = pacer.report()
    assert report.steps == steps and report.max_lag_ns == steps * 1_000_000
    assert report.p99_lag_ns == rank * 1_000_000


def test_lag_warnings_come_at_the_threshold_and_at_each_doubling():
    """Threshold 1 ms: warned at exactly 1 ms (not at 0.999 ms), not again below 2 ms, at
    exactly 2 ms, not again at 2 ms, then at 4 ms; 9 ms passes 8 ms (one warning, next at
    16 ms), so 15.999 ms is quiet and 16 ms warns."""
    late = []
    pacer = WallClockPacer(_Net(), lambda target: None, warn_lag_ns=1_000_000,
                           on_late=lambda lag, sim_ns: late.append((lag, sim_ns)))
    lags = [999_999, 1_000_000, 1_999_999, 2_000_000, 2_000_000, 3_999_999, 4_000_000, 9_000_000, 15_999_999,
            16_000_000]
    for i, lag in enumerate(lags):
        pacer._note_lag(lag, i)
    assert late == [(1_000_000, 1), (2_000_000, 3), (4_000_000, 6), (9_000_000, 7), (16_000_000, 9)]


def test_negative_lags_count_as_on_time():
    """A step that ended before its target time (the clock read it early) is 0 late."""
    pacer = WallClockPacer(_Net(), lambda target: None)
    for lag in (-5, 0, 7):
        pacer._note_lag(lag, 0)
    assert sorted(pacer.lags) == [0, 0, 7]
