"""The report in a real browser: headless Chromium loads the page of a run and of each built-in
scenario from a file:// URL, every run shows every section, the hover read-out works, and the
console stays free of errors."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from dataplane.report.page import SECTIONS

pytestmark = pytest.mark.no_pypy  # interpreter-independent and slow under PyPy


@pytest.fixture(scope="module")
def pages(failover_run, scenario_runs, incast_report, tmp_path_factory) -> dict[str, Path]:
    """The report pages: the run's, each scenario's through the CLI, and incast's from its API."""
    from dataplane.cli.report import write_page

    out = {"run": failover_run[1], **{name: run["page"] for name, run in scenario_runs.items()}}
    out["incast-api"] = tmp_path_factory.mktemp("report-pages") / "incast.html"
    write_page(incast_report[0], out["incast-api"])
    return out


OUTLINE = """
return Array.from(document.querySelectorAll("article.run")).map(a =>
  Array.from(a.querySelectorAll(":scope > section")).map(s => [s.className, s.innerText.trim().length]));
"""


@pytest.mark.parametrize("name", ["run", "allreduce", "pic", "vxlan", "incast", "incast-api", "pfc-deadlock"])
def test_the_browser_shows_every_section_without_console_errors(browser, pages, name):
    browser.get(pages[name].resolve().as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    runs = browser.execute_script(OUTLINE)
    assert runs, f"{name}: no run on the page"
    for sections in runs:
        assert [cls for cls, _ in sections] == [cls for cls, _ in SECTIONS]
        assert all(length > 20 for _, length in sections), sections     # a heading and something under it
    charts = int(browser.execute_script("return document.body.getAttribute('data-charts-ready')"))
    assert charts == browser.execute_script("return document.querySelectorAll('svg.chart').length") > 0
    assert browser.execute_script("return document.querySelectorAll('svg.topology .node').length") >= 2
    if name != "run":
        assert browser.execute_script("return document.querySelector('#results table') !== null")
    # The per-queue chart: drawn where ports have traffic classes, a note where none has.
    queues = browser.execute_script("var c = document.getElementById('r1-queues'); "
                                    "return c && JSON.parse(c.getAttribute('data-chart')).series.map(s => s.name)")
    if name == "pfc-deadlock":
        assert queues and all(q.endswith(" q3") for q in queues)
    else:
        assert queues is None and browser.execute_script(
            "return document.querySelector('[data-chart-id=\"r1-queues\"]') !== null")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], json.dumps(errors, indent=1)


def test_hovering_a_chart_reads_out_its_values(browser, pages):
    from selenium.webdriver.common.action_chains import ActionChains

    browser.get(pages["run"].resolve().as_uri())
    chart = browser.find_element("css selector", "svg.chart")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", chart)
    ActionChains(browser).move_to_element(chart).perform()
    tip = browser.find_element("id", "tip")
    assert tip.is_displayed()
    text = tip.text
    assert "µs" in text or "ms" in text
    assert any(line.endswith("packets") or line.endswith("Gb/s") for line in text.splitlines()[1:]), text
    assert chart.find_element("css selector", ".cursor").get_attribute("visibility") == "visible"
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_the_console_check_sees_a_script_error(browser, tmp_path):
    # the check above can fail: a page whose script throws leaves a SEVERE entry in the log
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>")
    browser.get(page.as_uri())
    # the log reaches the driver a moment after the page's load event; on a loaded machine
    # (CI's two cores) the first read can come before it: read again for a few seconds
    deadline = time.monotonic() + 10
    seen = False
    while not seen and time.monotonic() < deadline:
        seen = any("undefinedFunction" in e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE")
        if not seen:
            time.sleep(0.1)
    assert seen


FITS = """
document.querySelectorAll("details").forEach(function(d) { d.open = true; });
var wide = [];
document.querySelectorAll("table").forEach(function(t) {
  var box = t.closest(".wide") || t.parentElement;
  if (box.scrollWidth > box.clientWidth + 1)
    wide.push([(t.closest("section") || {}).className, box.scrollWidth, box.clientWidth]);
});
return [document.documentElement.scrollWidth, document.documentElement.clientWidth, wide];
"""


@pytest.mark.parametrize("width", [1280, 900])
def test_every_table_fits_the_page_without_scrolling_sideways(browser, pages, width):
    """Every table (the scenario's results, tens of measures over a few runs, and the ports
    beyond the busiest 20 too) wraps to the page's width: neither the page nor a table's box
    scrolls sideways, at a laptop's width or a narrow window's."""
    browser.set_window_size(width, 1600)
    try:
        for name, page in pages.items():
            browser.get(page.resolve().as_uri())
            page_width, viewport, wide = browser.execute_script(FITS)
            assert page_width <= viewport and wide == [], (name, page_width, viewport, wide)
    finally:
        browser.set_window_size(1280, 1600)
