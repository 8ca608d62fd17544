"""dataplane.report.series: the charts cover the window where something happened (first frame
sent to last frame arrived), not the whole simulated time, and lose nothing that happened in
it; every run has per-flow throughput, from the frames that arrived at its hosts when the run
does not follow its flows itself."""
from __future__ import annotations

import html
import json
import re


def _incast(scenario_runs) -> tuple[dict, dict, str]:
    run = scenario_runs["incast"]
    data = json.loads((run["out"] / "report.json").read_text())
    return data["runs"][0], data["results"][0], run["page"].read_text()


def test_the_charts_span_first_frame_to_last_arrival_not_the_whole_simulated_second(scenario_runs):
    """incast runs to its 1 s bound; its senders start at t = 0 and the last frame (data to the
    receiver, or a CNP back) arrives within a millisecond: the charts end there."""
    run, row, page = _incast(scenario_runs)
    start, end = run["window_ns"]
    assert run["sim_time_ns"] == 1_000_000_000
    assert start == 0 and row["completion_ns"] <= end < 1_000_000
    t = run["series"]["t_ns"]
    interval = t[-1] - t[-2]
    assert 2 <= len(t) <= 101 and end <= t[-1] < end + interval       # the last interval holds the end
    for chart in re.findall(r'data-chart="([^"]*)"', page):
        x_lo, x_hi = json.loads(html.unescape(chart))["x"]
        assert x_lo == 0 and end <= x_hi < end + interval
    assert "The charts show 0 ns to " in page and " of the 1 s simulated" in page


def test_what_happened_in_the_window_is_all_in_the_charts(scenario_runs):
    """Cut to the window, the series still add up to the run's totals: every CE mark, and every
    byte the bottleneck sent."""
    run, row, _ = _incast(scenario_runs)
    s = run["series"]
    assert sum(s["ecn"]) == row["ce_marked"] > 0
    bottleneck = dict(s["throughput_gbps"])[row["utilisation_port"]]
    widths = [b - a for a, b in zip([0] + s["t_ns"], s["t_ns"])]
    sent = sum(g * w / 8 for g, w in zip(bottleneck, widths))
    assert abs(sent - run["ports"][row["utilisation_port"]]["tx_bytes"]) < 1e-3 * sent


def test_incast_has_a_throughput_line_per_sender(scenario_runs):
    """Its DCQCN flows are followed on the wire: one line per sender into the receiver, whose
    bytes are the frames the bottleneck port sent it (nothing lost on that link)."""
    run, row, page = _incast(scenario_runs)
    flows = dict((name, pts) for name, pts in run["series"]["flows"])
    into = {name: pts for name, pts in flows.items() if " → h1 UDP " in name}
    assert sorted(name.split()[0] for name in into) == ["h5", "h6", "h7", "h8"]
    width = min(b[0] - a[0] for pts in into.values() for a, b in zip(pts, pts[1:]))
    received = sum(g * width / 8 for pts in into.values() for _, g in pts)
    assert abs(received - run["ports"][row["utilisation_port"]]["tx_bytes"]) < 1e-3 * received
    assert 'data-chart-id="r1-flows"' not in page and 'id="r1-flows"' in page   # drawn, not "no data"


def test_every_scenario_has_per_flow_throughput(scenario_runs):
    for name, run in scenario_runs.items():
        page = run["page"].read_text()
        assert re.search(r'<svg class="chart" id="r\d+-flows"', page), name
