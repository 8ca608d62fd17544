"""`dataplane report OUT_DIR`, `run --report` and `scenario NAME --report`: the same page from
the --out folder as from the run; a folder that holds no finished run, or a page that cannot be
written, is one located error line and no traceback."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from dataplane.cli import main

pytestmark = pytest.mark.no_pypy  # interpreter-independent and slow under PyPy


def test_report_of_the_out_folder_is_the_page_the_run_wrote(failover_run, tmp_path):
    out, page, _ = failover_run
    again = tmp_path / "again.html"
    result = CliRunner().invoke(main, ["report", str(out), "-o", str(again)])
    assert result.exit_code == 0, result.output
    assert again.read_bytes() == page.read_bytes()
    assert CliRunner().invoke(main, ["report", str(out)]).exit_code == 0      # default: OUT_DIR/report.html
    assert (out / "report.html").read_bytes() == page.read_bytes()


def test_scenario_out_keeps_report_data_and_report_agrees(scenario_runs, tmp_path):
    run = scenario_runs["allreduce"]
    out, page = run["out"], run["page"]
    data = json.loads((out / "report.json").read_text())
    saved = json.loads((out / "results.json").read_text())["results"]
    assert data["kind"] == "scenario" and data["results"] == saved
    assert [r["name"] for r in data["runs"]] == [f"allreduce: mode {m}, workers 2" for m in ("ina", "ring")]
    again = tmp_path / "again.html"
    assert CliRunner().invoke(main, ["report", str(out), "-o", str(again)]).exit_code == 0
    assert again.read_bytes() == page.read_bytes()


def test_scenario_report_alone_keeps_no_files_and_prints_no_temporary_paths(scenario_runs):
    run = scenario_runs["pic"]
    assert run["left"] == ["pic.html"]
    assert "dataplane-report-" not in run["output"] and "pic.json" not in run["output"]
    page = run["page"].read_text()
    assert "<td>pic</td>" in page                                   # the result row made it in
    # the reroute: the failure, its detection, then the controller's last write
    events = re.findall(r"<li><time>[^<]*</time> ([^<]*)</li>", page)
    assert events[0] == "link s1:p2&lt;-&gt;s2:p1 down" and "s1 detects port 2 down" in events
    assert events[-1].startswith("s1&#x27;s controller: its last table write (")


@pytest.mark.parametrize("setup,message", [
    (lambda d: d / "missing", "does not exist"),
    (lambda d: d, "not a finished run folder"),
    (lambda d: (d / "report.json").write_bytes(b"\x00\xff") and d, "not report data"),
])
def test_a_folder_without_a_finished_run_is_one_error_line(tmp_path, setup, message):
    result = CliRunner().invoke(main, ["report", str(setup(tmp_path))])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert "Traceback" not in result.output


def test_a_page_that_cannot_be_written_is_one_error_line(failover_run, tmp_path, monkeypatch):
    out = failover_run[0]
    for bad in (tmp_path / "no" / "such" / "x.html", tmp_path):
        result = CliRunner().invoke(main, ["report", str(out), "-o", str(bad)])
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert [l for l in result.output.splitlines() if "rror" in l][0].startswith("Error: Invalid value for '-o'")
    # one that passes the check but fails when written (the folder went read-only meanwhile)
    from pathlib import Path

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "write_text", refuse)
    result = CliRunner().invoke(main, ["report", str(out), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 1
    assert result.output.strip() == f"{tmp_path / 'r.html'}: error: cannot write the report: Permission denied"
