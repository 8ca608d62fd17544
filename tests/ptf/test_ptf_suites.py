"""Unmodified PTF (``ptf --platform nn``) against ``dataplane serve --ptf-socket``: no veths, no root.

For each suite directory here (named after the built-in program it tests; the P4Runtime base
test they share is in lib/, given to PTF with --pypath) the test writes the
program's P4Info and device config, starts ``dataplane serve`` on a free loopback port with a
PTF socket in a temporary directory, runs the ``ptf`` command on the suite and checks every
PTF test passed. The server is stopped in a finalizer, whatever happens.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("grpc")
pytest.importorskip("pynng")
pytest.importorskip("ptf")
pytest.importorskip("p4.v1.p4runtime_pb2")
from dataplane.testing.processes import dataplane_command as _dataplane  # noqa: E402
from dataplane.testing.processes import free_port, stop_process, wait_listening

pytestmark = pytest.mark.no_pypy  # interpreter-independent and slow under PyPy

HERE = Path(__file__).parent
SUITES = {"ecmp_router": 17}     # suite directory -> at least this many PTF tests
CPU_PORT = 64
DEVICE_ID = 1


def _ptf_command() -> str:
    """The ``ptf`` script installed next to this interpreter (or on PATH)."""
    local = Path(sys.executable).parent / "ptf"
    found = str(local) if local.is_file() else shutil.which("ptf")
    if found is None:
        pytest.skip("the ptf command is not installed")
    return found


@pytest.fixture
def server(request, tmp_path):
    """Start ``dataplane serve PROGRAM``; yields (grpc address, ptf socket address)."""
    def start(program: str):
        port = free_port()
        grpc_addr = f"127.0.0.1:{port}"
        ptf_addr = f"ipc://{tmp_path}/ptf.ipc"
        log = tmp_path / "serve.log"
        with open(log, "w") as out:
            proc = subprocess.Popen(
                _dataplane("serve", program, "--grpc-addr", grpc_addr, "--device-id", str(DEVICE_ID),
                           "--cpu-port", str(CPU_PORT), "--ptf-socket", ptf_addr),
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

        request.addfinalizer(lambda: stop_process(proc))
        wait_listening(proc, port, log)
        return grpc_addr, ptf_addr, proc, log
    return start


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_ptf_suite_passes_against_dataplane_serve(suite, server, tmp_path):
    from dataplane.resources import builtin_program

    program = builtin_program(suite)
    p4info, config = tmp_path / f"{suite}.p4info.txtpb", tmp_path / f"{suite}.config"
    made = subprocess.run(_dataplane("compile", str(program), "--check", "--p4info", str(p4info),
                                     "--device-config", str(config)),
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    grpc_addr, ptf_addr, proc, log = server(str(program))
    started = time.monotonic()
    params = (f"grpcaddr='{grpc_addr}';device_id={DEVICE_ID};cpu_port={CPU_PORT};"
              f"p4info='{p4info}';config='{config}'")
    result = subprocess.run(
        [_ptf_command(), "--test-dir", str(HERE / suite), "--pypath", str(HERE / "lib"), "--platform", "nn",
         "--device-socket", f"0-{{0-7}}@{ptf_addr}", "--test-params", params,
         "--log-file", str(tmp_path / "ptf.log")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    report = result.stdout + result.stderr
    assert result.returncode == 0, f"{report}\n--- server log ---\n{log.read_text()}"
    ran = [line for line in report.splitlines() if line.rstrip().endswith("... ok")]
    assert len(ran) >= SUITES[suite], report
    assert proc.poll() is None, "the server died during the run"
    assert time.monotonic() - started < 60, "the PTF suite took a minute or more"
