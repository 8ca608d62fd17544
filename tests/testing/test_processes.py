"""``dataplane.testing.processes``: a served process found listening, and stopped as Ctrl-C would."""
from __future__ import annotations

import subprocess

import pytest

from dataplane.testing.processes import dataplane_command, free_port, stop_process, wait_listening


def test_wait_listening_sees_a_server_then_stop_process_ends_it(tmp_path):
    pytest.importorskip("grpc")   # dataplane serve needs it
    port, log = free_port(), tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(dataplane_command("serve", "--grpc-addr", f"127.0.0.1:{port}"),
                                stdout=out, stderr=out)
    try:
        wait_listening(proc, port, log)
    finally:
        stop_process(proc)
    assert proc.returncode == 0 and "stopped" in log.read_text()


def test_wait_listening_reports_a_process_that_exits(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("it failed")
    proc = subprocess.Popen(dataplane_command("--version"), stdout=subprocess.DEVNULL)
    proc.wait()
    with pytest.raises(RuntimeError, match="it failed"):
        wait_listening(proc, free_port(), log, timeout=5)
