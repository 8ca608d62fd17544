"""dataplane.report.page, charts and topology: every section on the page, each saying so when
it has no data; nothing fetched; hover data that parses; the drawing's rows and marks."""
from __future__ import annotations

import copy
import json
from html.parser import HTMLParser

from dataplane.report.charts import cdf_chart, line_chart, nice_ticks, thin
from dataplane.report.page import SECTIONS, render
from dataplane.report.topology import layout, topology_svg


class _Outline(HTMLParser):
    """Section classes per run article, chart payloads, and every URL the page would load."""

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[list[str]] = []
        self.charts: list[dict] = []
        self.urls: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "article":
            self.runs.append([])
        if tag == "section" and self.runs:
            self.runs[-1].append(a.get("class"))
        if "data-chart" in a:
            self.charts.append(json.loads(a["data-chart"]))
        for key in ("src", "href"):
            if key in a and not a[key].startswith("#"):
                self.urls.append(a[key])


def _outline(html: str) -> _Outline:
    p = _Outline()
    p.feed(html)
    return p


def test_every_run_has_every_section_and_the_page_fetches_nothing(failover_run):
    html = render(failover_run[2])
    page = _outline(html)
    assert page.runs == [[cls for cls, _ in SECTIONS]]
    assert page.urls == [] and "@import" not in html and "url(" not in html
    assert len(page.ids) == len(set(page.ids))
    assert len(page.charts) >= 4
    for chart in page.charts:
        for s in chart["series"]:
            assert len(s["x"]) == len(s["y"]) > 0 and s["x"] == sorted(s["x"])
    assert "link s1:p2&lt;-&gt;s2:p1 down" in html and "failed link" in html


def test_sections_without_data_say_so(failover_run):
    data = copy.deepcopy(failover_run[2])
    run = data["runs"][0]
    run.update(timeline=[], drops={}, tables={}, counters={}, programs=[],
               flows={"fct_ns": None, "what": ""}, series={"t_ns": [], "flows": []})
    page = _outline(html := render(data))
    assert page.runs == [[cls for cls, _ in SECTIONS]] and page.charts == []
    for phrase in ("No link or node failed", "No packet was dropped", "runs a P4 program",
                   "Completion times: not recorded", "Queue depth per port (the busiest, peak per interval): no data"):
        assert phrase in html


def test_a_scenario_page_has_its_results_and_one_article_per_network(failover_run):
    data = copy.deepcopy(failover_run[2])
    data.update(kind="scenario", results=[{"mode": "a", "x": 1.5}, {"mode": "b", "x": None}])
    data["runs"] = [data["runs"][0], {**data["runs"][0], "name": "second"}]
    page = _outline(html := render(data))
    assert len(page.runs) == 2 and "results" in page.ids
    # turned: a row per measure, a column per result row, headed by what tells the rows apart
    assert "<tr><th>measure</th><th>mode a</th><th>mode b</th></tr>" in html
    assert "<tr><th scope=row>x</th><td class=num>1.5</td><td class=num>—</td></tr>" in html
    assert 'href="#run-2"' in html


def test_line_chart_payload_and_empty_chart():
    html = line_chart("c", "depth", [("p1", [0, 10, 20], [1, 5, 2])], "packets", markers=[(10, "link down")])
    chart = _outline(html).charts[0]
    assert chart["series"][0]["y"] == [1, 5, 2] and chart["series"][0]["name"] == "p1" and "link down" in html
    assert "no data in this run" in line_chart("c", "depth", [("p1", [], [])], "packets")


def test_thin_keeps_the_peak_and_bounds_the_points():
    xs = list(range(5000))
    ys = [0] * 5000
    ys[3333] = 7
    tx, ty = thin(xs, ys, 100)
    assert len(tx) <= 100 and max(ty) == 7 and 3333 in tx


def test_nice_ticks_cover_the_range():
    ticks = nice_ticks(0, 37)
    assert ticks[0] == 0 and ticks[-1] <= 37 and len(ticks) <= 6 and ticks == sorted(ticks)


def test_cdf_reaches_one_and_is_bounded():
    html = cdf_chart("f", "fct", list(range(10_000, 0, -1)), "flows")
    s = _outline(html).charts[0]["series"][0]
    assert s["y"][-1] == 1.0 and s["x"][-1] == 10_000 and len(s["x"]) <= 500
    assert "no completed flows" in cdf_chart("f", "fct", [], "flows")


def test_topology_rows_hosts_at_the_bottom_and_failed_links_marked(failover_run):
    topo = failover_run[2]["runs"][0]["topology"]
    pos = layout(topo)
    assert pos["h1"][1] == pos["h2"][1] > pos["s1"][1] == pos["s2"][1]
    svg = topology_svg(topo)
    assert svg.count('class="link failed"') == 1 and 'stroke-dasharray="6 4"' in svg and "✕" in svg
    assert svg.count('class="node switch"') == 2 and svg.count('class="node host"') == 2
    assert "1 Gb/s" in svg and "1 µs" in svg
    assert "No topology" in topology_svg({"nodes": [], "links": []})


WRITTEN_ELSEWHERE = ("summary.json", "ports.csv", "hosts.csv", "queues.csv", "results.json", "report.json")


def test_the_page_names_no_file_the_run_did_not_write_and_lists_every_port(scenario_runs, failover_run):
    """A page refers to no data file its run did not leave (`--report` alone leaves none; a
    scenario's --out holds its own files, not `run`'s summary.json and ports.csv): the ports
    beyond the busiest are on the page itself."""
    pages = [(run["page"], run["out"]) for run in scenario_runs.values()] + [(failover_run[1], failover_run[0])]
    for page, out in pages:
        text = page.read_text()
        for name in WRITTEN_ELSEWHERE:
            assert name not in text or (out is not None and (out / name).is_file()), (page.name, name)
    incast = scenario_runs["incast"]
    ports = json.loads((incast["out"] / "report.json").read_text())["runs"][0]["ports"]
    text = incast["page"].read_text()
    assert len(ports) > 20 and all(f"<tr><td>{name}</td>" in text for name in ports)


def test_data_kept_before_the_windows_still_makes_a_page_that_claims_nothing(failover_run):
    """A report.json written before the report kept the activity window and each port's
    utilisation: the charts span the simulated time, said plainly, and the ports read —."""
    data = copy.deepcopy(failover_run[2])
    run = data["runs"][0]
    del run["window_ns"], run["utilisation"], run["series"]["flows_what"]
    html = render(data)
    assert "The charts span the whole simulated time (1 ms).</p>" in html and "no frame was sent" not in html
    assert "<tr><td>h1:eth0</td>" in html and "<td class=num>—</td>" in html
    run["window_ns"] = None          # a run in which nothing was sent and nothing failed
    assert "(1 ms): no frame was sent and nothing failed.</p>" in render(data)
