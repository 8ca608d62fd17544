"""``dataplane serve`` as a process: it prints where it listens, serves, and stops cleanly on signals."""
from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from p4.v1 import p4runtime_pb2

HERE = Path(__file__).parent


@pytest.fixture
def serve():
    procs = []

    def start(*args):
        p = subprocess.Popen([sys.executable, "-m", "dataplane", "serve", *args, "--grpc-addr", "127.0.0.1:0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(p)
        line = p.stdout.readline()
        m = re.search(r"on 127\.0\.0\.1:(\d+)", line)
        assert m, line + p.stderr.read()
        return p, SimpleNamespace(port=int(m.group(1)))
    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def _stops(p, sig) -> None:
    p.send_signal(sig)
    out, err = p.communicate(timeout=10)
    assert p.returncode == 0, err
    assert "stopped" in out


def test_serve_a_program_with_its_p4info(serve, connect):
    p, where = serve(str(HERE / "rt.p4"), "--p4info", str(HERE / "rt.p4info.txtpb"), "--cpu-port", "255",
                     "--device-id", "3")
    c = connect(where, device_id=3)
    c.arbitrate()
    got = c.stub.GetForwardingPipelineConfig(p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=3))
    assert {t.preamble.name for t in got.config.p4info.tables} >= {"MyIngress.t_exact", "MyIngress.t_lpm"}
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = 33554438
    assert len(c.read(q)) == 1      # the const entry of the running program
    _stops(p, signal.SIGTERM)


def test_serve_without_a_program_waits_for_the_controller(serve, connect):
    p, where = serve()
    c = connect(where)
    c.arbitrate()
    c.set_pipeline()
    q = p4runtime_pb2.Entity()
    q.register_entry.register_id = 369098753
    assert len(c.read(q)) == 16
    _stops(p, signal.SIGINT)
