"""``dataplane serve`` as a process: it prints where it listens, serves, and stops cleanly on signals."""
from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("grpc")  # no grpcio on PyPy
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


def test_serve_a_program_with_its_p4info_and_entries(serve, connect, tmp_path):
    entries = tmp_path / "entries.txt"
    entries.write_text("table_add MyIngress.t_exact MyIngress.set_port 0x000000000001 => 5\n")
    p, where = serve(str(HERE / "rt.p4"), "--p4info", str(HERE / "rt.p4info.txtpb"), "--cpu-port", "255",
                     "--device-id", "3", "--entries", str(entries))
    c = connect(where, device_id=3)
    c.arbitrate()
    got = c.stub.GetForwardingPipelineConfig(p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=3))
    assert {t.preamble.name for t in got.config.p4info.tables} >= {"MyIngress.t_exact", "MyIngress.t_lpm"}
    q = p4runtime_pb2.Entity()
    q.table_entry.table_id = 33554438
    assert len(c.read(q)) == 1      # the const entry of the running program
    q.table_entry.table_id = 33554433
    [loaded] = c.read(q)            # the entry from --entries, as P4Runtime sees it
    assert loaded.table_entry.match[0].exact.value == b"\x01"
    assert loaded.table_entry.action.action.params[0].value == b"\x05"
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


def test_a_p4info_of_another_program_or_a_bad_address_is_a_clear_error():
    from click.testing import CliRunner

    from dataplane.cli import main

    wrong = CliRunner().invoke(main, ["serve", "ipv4_router", "--p4info", str(HERE / "rt.p4info.txtpb"),
                                      "--grpc-addr", "127.0.0.1:0"])
    assert wrong.exit_code == 2 and "does not fit" in wrong.output and "t_exact" in wrong.output
    bad = CliRunner().invoke(main, ["serve", "--grpc-addr", "not an address"])
    assert bad.exit_code == 2 and "'--grpc-addr'" in bad.output and "is not HOST:PORT" in bad.output
    alone = CliRunner().invoke(main, ["serve", "--p4info", str(HERE / "rt.p4info.txtpb")])
    assert alone.exit_code == 2 and "go with a PROGRAM" in alone.output


def test_an_unreadable_p4info_is_reported(tmp_path):
    from click.testing import CliRunner

    from dataplane.cli import main

    junk = tmp_path / "junk.txtpb"
    junk.write_text("tables { nonsense")
    result = CliRunner().invoke(main, ["serve", str(HERE / "rt.p4"), "--p4info", str(junk)])
    assert result.exit_code == 1 and "not a valid P4Info" in result.output


def test_without_p4info_the_generated_one_is_served(serve, connect):
    p, where = serve("ipv4_router")
    c = connect(where)
    c.arbitrate()
    got = c.stub.GetForwardingPipelineConfig(p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=1))
    assert [t.preamble.name for t in got.config.p4info.tables] == ["MyIngress.ipv4_lpm"]
    _stops(p, signal.SIGTERM)
