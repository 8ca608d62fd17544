"""Progress on a real terminal: ``dataplane run`` and a scenario under a pseudo-terminal show
their progress line and clear it; the same run to a pipe with --json shows none."""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.no_pypy, pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")]

DATAPLANE = [sys.executable, "-m", "dataplane"]


def _traffic(tmp_path: Path) -> Path:
    path = tmp_path / "udp.yaml"
    path.write_text("- {app: udp, from: h1, to: h3, rate: 10Gbps, size: 1000, start: 0, duration: 1ms}\n")
    return path


def _env() -> dict[str, str]:
    # Show the line at once (the default waits 0.5 s, so quick commands never flicker).
    return dict(os.environ, DATAPLANE_PROGRESS_DELAY="0", TERM="xterm", COLUMNS="200")


def run_on_terminal(args: list[str], timeout: float = 120) -> tuple[int, str]:
    """Run ``dataplane ARGS`` with stdout and stderr on a pseudo-terminal; its exit status and all it wrote."""
    master, slave = os.openpty()
    proc = subprocess.Popen(DATAPLANE + args, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=_env())
    os.close(slave)
    out = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:          # EIO: the child closed its side
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return proc.returncode, out.decode("utf-8", "replace")


def test_run_on_a_terminal_shows_simulated_time_and_clears_it(tmp_path):
    code, out = run_on_terminal(["run", "--traffic", str(_traffic(tmp_path)), "--duration", "1ms"])
    assert code == 0, out
    assert "run leaf-spine: " in out and " of 1.00 ms simulated" in out and "%" in out
    progress, _, summary = out.replace("\r\n", "\n").rpartition("\r")   # the last \r ends the cleared line
    # the line was redrawn in place, never scrolled: the one line printed is the switches' program, whole
    assert progress.count("\n") == 1 and "\rspine1, spine2, leaf1, leaf2: ecmp_router (" in progress
    assert summary.startswith("topology leaf-spine:") and "simulated" not in summary.split("\n")[0]


def test_scenario_on_a_terminal_shows_its_own_measure():
    code, out = run_on_terminal(["scenario", "incast", "--senders", "2", "--transfer", "400KB", "--mode", "ecn"])
    assert code == 0, out
    assert "incast ecn, 2 senders: " in out and " of 800.00 KB" in out
    line = next(line for line in out.replace("\r\n", "\n").split("\n") if "senders  util" in line)
    cleared, _, row = line.rpartition("\r")               # what the terminal shows: after the last \r
    assert cleared.rpartition("\r")[2].strip() == ""      # the progress line was blanked first
    assert row.startswith("ecn ") and "2 senders  util" in row   # the result row is not mixed into the line


def test_run_to_a_pipe_with_json_shows_no_progress(tmp_path):
    r = subprocess.run(DATAPLANE + ["run", "--traffic", str(_traffic(tmp_path)), "--duration", "1ms", "--json"],
                       capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "" and "\r" not in r.stdout
    assert json.loads(r.stdout)["hosts"]


@pytest.mark.parametrize("engine", ["batch", "packet"])
def test_run_packet_replay_shows_how_far_into_the_capture(tmp_path, engine):
    from dataplane.pcap import PcapWriter

    pcap = tmp_path / "in.pcap"
    w = PcapWriter(pcap)
    for i in range(2000):
        w.write(bytes(12) + b"\x08\x00" + bytes(50), time_ns=i)
    w.close()
    code, out = run_on_terminal(["run-packet", "ipv4_router", "--pcap", str(pcap), "--out", str(tmp_path / "out"),
                                 "--engine", engine])
    assert code == 0, out
    assert "run-packet in.pcap: " in out and " KB of " in out, out
    assert out.replace("\r\n", "\n").rpartition("\r")[2].startswith("2000 packet(s) in")   # after the cleared line
