"""``dataplane serve``'s values checked by click (ports 0..65535, device ids 0..2^64-1, CPU ports
1..510 as simple_switch_grpc takes them), a port in use named, the warning for a non-loopback
address without TLS, and SIGTERM within 2 s while a pushed config compiles."""
from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from click.testing import CliRunner  # noqa: E402
from p4.v1 import p4runtime_pb2  # noqa: E402

from dataplane.cli import main  # noqa: E402

from .conftest import Client  # noqa: E402
from .test_hostile_configs import compile_children, config, macro_bomb  # noqa: E402

NOT_HERE = "192.0.2.1"    # TEST-NET-1: no machine's address, so a value that got through fails to bind


def start_serve(*args: str) -> tuple[subprocess.Popen, int]:
    p = subprocess.Popen([sys.executable, "-m", "dataplane", "serve", "--grpc-addr", "127.0.0.1:0", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.search(r"on 127\.0\.0\.1:(\d+)", line)
    if not m:
        p.kill()
        raise AssertionError(line + p.stderr.read())
    return p, int(m.group(1))


@pytest.fixture
def served():
    procs = []

    def start(*args):
        p, port = start_serve(*args)
        procs.append(p)
        return p, port
    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.parametrize("args, message", [
    (["--grpc-addr", "127.0.0.1:65536"], "the port must be 0..65535, not 65536"),
    (["--grpc-addr", "127.0.0.1:70000"], "the port must be 0..65535, not 70000"),
    (["--grpc-addr", "127.0.0.1:-1"], "the port must be 0..65535, not -1"),
    (["--grpc-addr", "127.0.0.1:http"], "the port 'http' is not a number"),
    (["--device-id", "-1"], "'--device-id': -1 is not in the range 0<=x<=18446744073709551615"),
    (["--device-id", str(2 ** 64)], "is not in the range 0<=x<=18446744073709551615"),
    (["--cpu-port", "-5"], "'--cpu-port': -5 is not in the range 1<=x<=510"),
    (["--cpu-port", "0"], "'--cpu-port': 0 is not in the range 1<=x<=510"),
    (["--cpu-port", "511"], "'--cpu-port': 511 is not in the range 1<=x<=510"),
    (["--cpu-port", "99999"], "'--cpu-port': 99999 is not in the range 1<=x<=510"),
    (["--max-streams", "0"], "'--max-streams': 0 is not in the range 1<=x<=4096"),
])
def test_values_out_of_range_are_click_errors(args, message):
    """One past each end: exit status 2 with click's message naming the option."""
    r = CliRunner().invoke(main, ["serve", "--grpc-addr", f"{NOT_HERE}:0", *args])
    assert r.exit_code == 2 and message in r.output, r.output


def test_the_ends_of_the_ranges_are_taken(served):
    """Device id 2^64-1 and CPU port 510 are served; port 65535 and 0 pass the address check."""
    from dataplane.cli.grpc_options import GrpcAddress

    assert GrpcAddress().convert("127.0.0.1:65535", None, None) == "127.0.0.1:65535"
    assert GrpcAddress().convert("[::1]:0", None, None) == "[::1]:0"
    p, port = served("--device-id", str(2 ** 64 - 1), "--cpu-port", "510")
    client = Client(port, device_id=2 ** 64 - 1)
    try:
        assert client.arbitrate().status.code == 0
    finally:
        client.close()


def test_a_port_in_use_is_an_error_naming_it(served):
    """A second ``dataplane serve`` on the port of the first: exit status 2, the port named."""
    _, port = served()
    r = subprocess.run([sys.executable, "-m", "dataplane", "serve", "--grpc-addr", f"127.0.0.1:{port}"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and f"port {port} is already in use on 127.0.0.1" in r.stderr, r.stderr


def test_a_name_for_several_addresses_needs_the_port_on_all(start_server):
    """``localhost`` is 127.0.0.1 and ::1: with the port taken on one, gRPC alone would listen
    on the other and say nothing; the server refuses."""
    from dataplane.control.live import LiveSwitch
    from dataplane.control.p4runtime.server import P4RuntimeServer

    first = start_server()
    second = P4RuntimeServer(LiveSwitch(None), f"localhost:{first.port}")
    with pytest.raises(OSError, match=f"port {first.port} is already in use on 127.0.0.1"):
        second.start()


def test_a_non_loopback_address_without_tls_is_warned_about():
    """The warning comes before the server binds (here it cannot: the address is no machine's)."""
    r = CliRunner().invoke(main, ["serve", "--grpc-addr", f"{NOT_HERE}:0"])
    assert r.exit_code == 2
    assert f"warning: P4Runtime on {NOT_HERE} without TLS: anyone who can reach this address" in r.output
    assert f"{NOT_HERE} is not an address of this machine" in r.output


@pytest.mark.parametrize("host, warned", [("127.0.0.1", False), ("::1", False), ("localhost", False),
                                          ("127.8.9.10", False), ("0.0.0.0", True), ("::", True),
                                          ("10.1.2.3", True)])
def test_only_loopback_hosts_go_without_the_warning(host, warned, capsys):
    from dataplane.cli.grpc_options import warn_if_exposed

    warn_if_exposed(host, None)
    assert ("without TLS" in capsys.readouterr().err) == warned
    warn_if_exposed(host, object())        # with TLS: never
    assert capsys.readouterr().err == ""


def test_sigterm_stops_the_server_within_2s_while_a_macro_bomb_compiles(served):
    """A config whose macros double forty times is compiling (its limit 60 s away): SIGTERM
    ends ``dataplane serve`` within 2 s with status 0, and the compile's process with it."""
    p, port = served("--compile-timeout", "60")
    client = Client(port)
    client.arbitrate()
    outcome = {}

    def push():
        try:
            client.set_pipeline(device_config=config(macro_bomb()))
        except grpc.RpcError as err:
            outcome["code"] = err.code()
    pusher = threading.Thread(target=push, daemon=True)
    pusher.start()
    end = time.monotonic() + 10
    while not compile_children(p.pid) and time.monotonic() < end:
        time.sleep(0.05)
    [child] = compile_children(p.pid)
    time.sleep(0.5)
    started = time.monotonic()
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=10)
    took = time.monotonic() - started
    assert p.returncode == 0 and "stopped" in out, err
    assert took < 2.0, took
    pusher.join(timeout=5)
    assert outcome.get("code") in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
    with pytest.raises(ProcessLookupError):
        import os

        os.kill(child, 0)
    client.close()


def test_capabilities_still_answer_after_the_checks():
    """A sanity check that the server these tests start is a P4Runtime server at all."""
    p, port = start_serve()
    try:
        client = Client(port)
        try:
            caps = client.stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=5)
            assert caps.p4runtime_api_version
        finally:
            client.close()
    finally:
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=10)
