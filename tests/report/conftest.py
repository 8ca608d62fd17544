"""For the report tests: a small run made once (the failover topology, a UDP flow and pings, a
link failure at 300 us; its --out folder and its --report page), and headless Chromium driven
by selenium through Debian's chromedriver; the browser tests skip, with the reason, when
selenium, ``chromium`` or ``chromedriver`` is missing (``.ci/run`` installs Debian's packages
best effort, as it does tshark)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from dataplane.cli import main

DATA = Path(__file__).parents[1] / "net" / "data"

TRAFFIC = """\
- {app: udp, from: h1, to: h2, rate: 2Gbps, size: 1000, duration: 600us}
- {app: ping, from: h2, to: h1, count: 4, interval: 100us}
"""
EVENTS = """\
- {at: 300us, link: ["s1:p2", "s2:p1"], state: down}
"""


def make_run(folder: Path) -> tuple[Path, Path]:
    """Run the failover topology with --out and --report into ``folder``: (out dir, page)."""
    (folder / "traffic.yaml").write_text(TRAFFIC)
    (folder / "events.yaml").write_text(EVENTS)
    out, page = folder / "out", folder / "run.html"
    result = CliRunner().invoke(main, ["run", str(DATA / "failover.yaml"), "--duration", "1ms",
                                       "--traffic", str(folder / "traffic.yaml"), "--events", str(folder / "events.yaml"),
                                       "--out", str(out), "--report", str(page)])
    assert result.exit_code == 0, result.output
    return out, page


@pytest.fixture(scope="session")
def failover_run(tmp_path_factory) -> tuple[Path, Path, dict]:
    """(out dir, report page, report data) of the run above, made once per session."""
    out, page = make_run(tmp_path_factory.mktemp("report-run"))
    return out, page, json.loads((out / "report.json").read_text())


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium WebDriver that keeps the page's console messages, or a pytest skip."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the test extra)")
    from selenium.webdriver.chrome.service import Service

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip("Debian's chromium and chromium-driver are not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1600", "--hide-scrollbars"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chrome = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    yield chrome
    chrome.quit()


# Small, quick settings of the scenarios run through `dataplane scenario NAME ... --report`;
# allreduce, pfc-deadlock (traffic classes: the per-queue chart) and incast (ECN with DCQCN:
# the bottleneck about half used; its command runs to 1 s of simulated time, the transfer
# ends within 1 ms) also with --out (its folder), pic and vxlan with --report alone.
SCENARIOS = {
    "allreduce": ["--workers", "2", "--elements", "32", "--mode", "ina,ring"],
    "pic": ["--prefixes", "16", "--modes", "pic", "--flows", "2"],
    "vxlan": ["--hosts", "2", "--duration", "20us", "--tenants", "1"],
    "pfc-deadlock": ["--mode", "off", "--bytes", "100KB", "--duration", "300us"],
    "incast": ["--senders", "4", "--mode", "ecn", "--transfer", "1MB"],
}
WITH_OUT = ("allreduce", "pfc-deadlock", "incast")


@pytest.fixture(scope="session")
def scenario_runs(tmp_path_factory) -> dict[str, dict]:
    """Per scenario: its page, its --out folder (or None), what it printed, and what its working
    folder held afterwards (each runs in an empty one)."""
    import os

    runs = {}
    for name, args in SCENARIOS.items():
        folder = tmp_path_factory.mktemp(f"scenario-{name}")
        out = folder / "out" if name in WITH_OUT else None
        here = os.getcwd()
        os.chdir(folder)
        try:
            result = CliRunner().invoke(main, ["scenario", name, *args, "--report", f"{name}.html",
                                               *(["--out", str(out)] if out else [])])
        finally:
            os.chdir(here)
        assert result.exit_code == 0, result.output
        runs[name] = {"page": folder / f"{name}.html", "out": out, "output": result.output,
                      "left": sorted(p.name for p in folder.iterdir())}
    return runs


@pytest.fixture(scope="session")
def incast_report() -> tuple[dict, dict]:
    """(report data, the scenario's result row) of a small incast with ECN and PFC thresholds low
    enough that both act, through the scenario's API: its command runs its bottleneck sampler
    to 1 s of simulated time, too slow for a test."""
    from dataplane.report import collect
    from dataplane.report.record import recording
    from dataplane.scenarios.incast import IncastConfig, run_incast

    cfg = IncastConfig(senders=2, mode="ecn+pfc", transfer_bytes=200_000, kmin_bytes=5_000, kmax_bytes=20_000,
                       pmax=0.5, pfc_xoff_bytes=30_000, pfc_xon_bytes=15_000, max_sim_ns=150_000)
    with recording() as recorders:
        run = run_incast(cfg)
    runs = [collect.collect_run(r.net, r, "incast ecn+pfc") for r in recorders]
    data = collect.report_data("scenario", "dataplane scenario incast", runs, collect.provenance(), [run.result])
    return data, run.result
