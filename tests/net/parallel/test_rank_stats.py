"""The per-rank report: the critical path is the sum over windows of the slowest rank's CPU time."""
from __future__ import annotations

import io

import pytest

from dataplane.net.parallel.rank_stats import balance, critical_path, report, wanted


def _stats(windows, pack=0.0):
    return {"events": 10, "pipeline_runs": 4, "busy_cpu_s": sum(windows), "pack_cpu_s": pack, "busy_s": 1.0,
            "sync_s": 0.5, "windows": len(windows), "cut_messages": 3, "window_cpu_s": windows}


def test_critical_path_takes_each_window_slowest_rank():
    """Ranks that alternate as the slowest cost more than either rank's total: 3+4 against 4 and 5."""
    assert critical_path([[3.0, 1.0], [2.0, 4.0]]) == pytest.approx(7.0)
    assert critical_path([[1.0, 1.0, 2.0], [1.0]]) == pytest.approx(4.0)    # a missing window: idle
    assert critical_path([]) == 0.0


def test_balance_compares_the_path_with_an_even_split():
    """Even work per window: 1.0x; all of it on one rank of two: 2.0x, and that rank's share 100%."""
    even = balance([_stats([1.0, 2.0]), _stats([1.0, 2.0])])
    assert even["busiest_share"] == pytest.approx(0.5) and even["over_even"] == pytest.approx(1.0)
    lopsided = balance([_stats([1.0, 2.0]), _stats([0.0, 0.0])])
    assert lopsided["busiest_share"] == pytest.approx(1.0) and lopsided["over_even"] == pytest.approx(2.0)
    alternating = balance([_stats([3.0, 1.0]), _stats([1.0, 3.0])])
    assert alternating["busiest_share"] == pytest.approx(0.5) and alternating["over_even"] == pytest.approx(1.5)


def test_report_has_a_line_a_rank_and_the_balance():
    out = io.StringIO()
    report([_stats([1.0]), _stats([0.5], pack=0.25)], out)
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == ["rank 0", "rank 1", "balance"]
    assert "+0.25 s packing" in lines[1] and "1.33x an even split" in lines[2]


@pytest.mark.parametrize("value, on", [("", False), ("0", False), ("1", True)])
def test_the_environment_asks_for_it(monkeypatch, value, on):
    monkeypatch.setenv("DATAPLANE_RANK_STATS", value)
    assert wanted() is on
