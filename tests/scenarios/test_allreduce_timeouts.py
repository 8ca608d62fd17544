"""The in-network allreduce's retransmission timeouts waiting in the event heap one at a time
(``InaWorker.shared_timeouts``, ``dataplane.net.core.timeouts``) change no output: the
scenario's ``--json``, ``results.json`` and the report's data (every port's and host's
counters, the series, the event count and the simulated time) are those of the run with a
``Host.timer`` per chunk sent, lossless, with loss, and with a timeout short enough that most
timeouts fire (hundreds of retransmissions). ``test_scenarios_on_ranks`` proves the same
outputs on two ranks."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.apps.allreduce import InaWorker

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

CASES = {
    "star, lossless": ["--workers", "4", "--elements", "16384", "--mode", "ina,ring"],
    "star, loss, short timeout": ["--workers", "4", "--elements", "2048", "--mode", "ina", "--loss", "0.02",
                                  "--timeout", "3"],
    "fat-tree k=4, loss": ["--topology", "fat-tree", "--k", "4", "--elements", "2048", "--mode", "ina",
                           "--loss", "0.05"],
    "fat-tree k=4, loss, short timeout, small window": ["--topology", "fat-tree", "--k", "4", "--elements", "1024",
                                                        "--mode", "ina", "--loss", "0.03", "--timeout", "4",
                                                        "--window", "16"],
}


def outputs(args: list[str], tmp: Path, shared: bool, monkeypatch: Any) -> dict[str, Any]:
    monkeypatch.setattr(InaWorker, "shared_timeouts", shared)
    printed = CliRunner().invoke(main, ["scenario", "allreduce", *args, "--json"])
    assert printed.exit_code == 0, printed.output
    out = tmp / ("shared" if shared else "own")
    written = CliRunner().invoke(main, ["scenario", "allreduce", *args, "--out", str(out)])
    assert written.exit_code == 0, written.output
    report = json.loads((out / "report.json").read_text())
    report.pop("provenance")         # names the output folder
    return {"json": printed.output, "results": (out / "results.json").read_text(), "report": report}


@pytest.mark.parametrize("case", list(CASES))
def test_outputs_are_those_of_a_timer_per_chunk(case: str, tmp_path: Path, monkeypatch: Any) -> None:
    own = outputs(CASES[case], tmp_path, False, monkeypatch)
    shared = outputs(CASES[case], tmp_path, True, monkeypatch)
    assert shared == own
    results = json.loads(own["json"])["results"]
    if "--timeout" in CASES[case]:
        assert results[0]["retransmissions"] > 300      # the timeouts that fire are exercised
    assert [r["events"] for r in shared["report"]["runs"]] == [r["events"] for r in own["report"]["runs"]]
    assert all(r["events"] > 0 and r["sim_time_ns"] > 0 for r in shared["report"]["runs"])
