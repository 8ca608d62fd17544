"""``dataplane run TOPO --serve``: a two-switch tutorials topology configured over P4Runtime by
this test, as the P4 tutorials' controllers do, then its traffic; a packet-out on one switch
comes back as a packet-in from the other. And the P4 tutorials' p4runtime exercise in
miniature: BMv2 JSON pushed for the switches' program, one switch left to its program, the
tunnel counters' like read while the network runs."""
from __future__ import annotations

import json
import queue
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

grpc = pytest.importorskip("grpc")
pytest.importorskip("p4.v1.p4runtime_pb2")

from p4.config.v1 import p4info_pb2  # noqa: E402
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

from dataplane.control.device_config import make_device_config  # noqa: E402
from dataplane.control.p4info import build_p4info  # noqa: E402
from dataplane.lang.frontend import compile_file  # noqa: E402
from dataplane.resources import builtin_program  # noqa: E402
from dataplane.testing.processes import dataplane_command as _dataplane  # noqa: E402
from dataplane.testing.processes import stop_process

TOPO = Path(__file__).parents[1] / "net" / "data" / "served" / "topology.json"
PROGRAM = builtin_program("ipv4_router")
CPU = 64
# per switch: (destination /32 or /24, next-hop MAC, port)
ROUTES = {
    "s1": [("10.0.1.1", 32, "08:00:00:00:01:11", 1), ("10.0.2.2", 32, "08:00:00:00:02:00", 2),
           ("10.0.9.0", 24, "08:00:00:00:09:00", 2)],
    "s2": [("10.0.2.2", 32, "08:00:00:00:02:22", 1), ("10.0.1.1", 32, "08:00:00:00:01:00", 2),
           ("10.0.9.0", 24, "08:00:00:00:09:09", CPU)],
}


SERVED = Path(__file__).parents[1] / "net" / "data" / "served"


def _free_ports(n: int) -> int:
    """A base port with ``n`` free consecutive ports after it (checked, not reserved)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n > 65535:
            continue
        ok = True
        for p in range(base, base + n):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    pytest.skip("no run of free ports on loopback")


class Client:
    """A minimal controller for one device: primary on the stream, pipeline, writes."""

    def __init__(self, addr: str, device_id: int, p4info: p4info_pb2.P4Info, config: bytes):
        self.device_id = device_id
        self.p4info = p4info
        self.channel = grpc.insecure_channel(addr)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self.requests: queue.Queue = queue.Queue()
        self.incoming: queue.Queue = queue.Queue()
        stream = self.stub.StreamChannel(iter(self.requests.get, None))
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = device_id
        req.arbitration.election_id.low = 1
        self.requests.put(req)
        assert self.next("arbitration").arbitration.status.code == 0
        set_req = p4runtime_pb2.SetForwardingPipelineConfigRequest(
            device_id=device_id, action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
        set_req.election_id.low = 1
        set_req.config.p4info.CopyFrom(p4info)
        set_req.config.p4_device_config = config
        self.stub.SetForwardingPipelineConfig(set_req)

    def _read(self, stream) -> None:
        try:
            for msg in stream:
                self.incoming.put(msg)
        except grpc.RpcError:
            pass

    def next(self, kind: str, timeout: float = 10):
        end = time.monotonic() + timeout
        while True:
            msg = self.incoming.get(timeout=max(0.01, end - time.monotonic()))
            if msg.WhichOneof("update") == kind:
                return msg

    def add_route(self, prefix: str, plen: int, mac: str, port: int) -> None:
        table = next(t for t in self.p4info.tables if t.preamble.name == "MyIngress.ipv4_lpm")
        action = next(a for a in self.p4info.actions if a.preamble.name == "MyIngress.ipv4_forward")
        req = p4runtime_pb2.WriteRequest(device_id=self.device_id)
        req.election_id.low = 1
        entry = req.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
        entry.table_id = table.preamble.id
        m = entry.match.add(field_id=table.match_fields[0].id)
        m.lpm.value = bytes(int(x) for x in prefix.split(".")).lstrip(b"\0") or b"\0"
        m.lpm.prefix_len = plen
        entry.action.action.action_id = action.preamble.id
        for param, value in zip(action.params, (int(mac.replace(":", ""), 16), port)):
            entry.action.action.params.add(param_id=param.id,
                                           value=value.to_bytes((value.bit_length() + 7) // 8 or 1, "big"))
        self.stub.Write(req)

    def counter(self, name: str, index: int) -> int:
        counter = next(c for c in self.p4info.counters if c.preamble.name == name)
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        entry = req.entities.add().counter_entry
        entry.counter_id, entry.index.index = counter.preamble.id, index
        [resp] = self.stub.Read(req)
        return resp.entities[0].counter_entry.data.packet_count

    def packet_out(self, data: bytes) -> None:
        req = p4runtime_pb2.StreamMessageRequest()
        req.packet.payload = data
        self.requests.put(req)

    def close(self) -> None:
        self.requests.put(None)
        self.channel.close()


def test_run_serve_two_switches_configured_over_p4runtime(tmp_path):
    p4info = build_p4info(compile_file(PROGRAM).program)
    config = make_device_config(PROGRAM)

    base = _free_ports(2)
    log = tmp_path / "run.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(
            _dataplane("run", str(TOPO), "--program", str(PROGRAM), "--serve", "--grpc-base-port", str(base),
                       "--cpu-port", str(CPU), "--duration", "300ms", "--settle", "0.3s", "--json"),
            stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    clients = []
    try:
        end = time.monotonic() + 60
        while "waiting for the controllers" not in log.read_text():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < end, log.read_text()
            time.sleep(0.1)
        for device_id, name in enumerate(["s1", "s2"]):
            client = Client(f"127.0.0.1:{base + device_id}", device_id, p4info, config)
            clients.append(client)
            for route in ROUTES[name]:
                client.add_route(*route)
        s1, s2 = clients
        # held until the traffic starts, then s1 routes it to s2, whose route sends it to the CPU
        probe = bytes(Ether(dst="08:00:00:00:01:00") / IP(src="10.0.1.1", dst="10.0.9.9", ttl=20) / UDP(dport=9))
        s1.packet_out(probe)
        packet_in = s2.next("packet", timeout=30).packet
        assert IP(packet_in.payload[14:]).dst == "10.0.9.9" and IP(packet_in.payload[14:]).ttl == 18
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, log.read_text()
        hosts = json.loads(out)["hosts"]
        assert hosts == {"h1": {"sent": 1, "delivered": 1, "lost": 0, "received": 2},
                         "h2": {"sent": 1, "delivered": 1, "lost": 0, "received": 2}}
        assert "s1: P4Runtime on 127.0.0.1:%d, device id 0" % base in log.read_text()
    finally:
        for client in clients:
            client.close()
        stop_process(proc)


def _wait_for_servers(proc, log: Path) -> None:
    end = time.monotonic() + 60
    while "waiting for the controllers" not in log.read_text():
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < end, log.read_text()
        time.sleep(0.1)


def test_run_serve_a_bmv2_controller_configures_two_of_three_switches(tmp_path):
    """As the tutorials' mycontroller.py: BMv2 JSON wrapped in PI's P4DeviceConfig with the
    program's P4Info, routes on s1 and s2 only (s3 keeps its program, tables empty), then the
    counters read while the network runs; the traffic starts without s3 being touched."""
    from dataplane.control.p4runtime.p4config import P4DeviceConfig

    program = SERVED / "counting_router.p4"
    p4info = build_p4info(compile_file(program).program)
    bmv2_json = json.dumps({"header_types": [], "pipelines": [], "__meta__": {"version": [2, 23]}}).encode()
    config = P4DeviceConfig(reassign=True, device_data=bmv2_json).SerializeToString()
    base = _free_ports(3)
    log = tmp_path / "run.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(
            _dataplane("run", str(SERVED / "triangle.json"), "--program", str(program), "--serve",
                       "--grpc-base-port", str(base), "--duration", "2s", "--settle", "0.3s", "--json",
                       "--traffic", "pingall-parallel"),   # every ping within the 2 s, the unanswered too
            stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    clients = []
    try:
        _wait_for_servers(proc, log)
        for device_id, name in enumerate(["s1", "s2"]):
            client = Client(f"127.0.0.1:{base + device_id}", device_id, p4info, config)
            clients.append(client)
            for route in ROUTES[name][:2]:
                client.add_route(*route)
        s1, s2 = clients
        # h1 sends its ping to h2, its ping to h3 (no route: dropped) and its answer to h2
        end = time.monotonic() + 30
        while s1.counter("MyIngress.port_in", 1) < 3 and time.monotonic() < end:
            time.sleep(0.05)
        # ... and s1 passes on h1's ping and answer to h2; s3, untouched, drops h3's two pings
        assert s1.counter("MyIngress.port_in", 1) == 3 and s2.counter("MyIngress.port_in", 2) == 2
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, log.read_text()
        hosts = json.loads(out)["hosts"]
        # h1 got h2's reply and h2's request; h3 got nothing (s3 dropped its pings, s1 h1's ping to it)
        assert hosts["h1"] == {"sent": 2, "delivered": 1, "lost": 1, "received": 2}
        assert hosts["h3"]["delivered"] == 0 and hosts["h3"]["received"] == 0
        assert json.loads(out)["switches"]["s3"]["packets_in"] == 2
    finally:
        for client in clients:
            client.close()
        stop_process(proc)


def test_run_serve_on_a_port_in_use_is_a_usage_error():
    """A port some other program listens on is an error naming the switch and the port."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run(_dataplane("run", str(TOPO), "--program", str(PROGRAM), "--serve",
                                      "--grpc-base-port", str(port)),
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and f"--serve: switch s1: port {port} is already in use on 127.0.0.1" in r.stderr
    assert "Traceback" not in r.stderr


def test_run_serve_next_to_a_dataplane_serve_on_its_port_is_refused():
    """``dataplane serve`` listens on a port; ``run --serve`` whose second switch would take it
    stops with an error naming it (and binds nothing: the first switch's port is free again)."""
    import re
    import sys

    serve = subprocess.Popen([sys.executable, "-m", "dataplane", "serve", "--grpc-addr", "127.0.0.1:0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(re.search(r"on 127\.0\.0\.1:(\d+)", serve.stdout.readline()).group(1))
        r = subprocess.run(_dataplane("run", str(TOPO), "--program", str(PROGRAM), "--serve",
                                      "--grpc-base-port", str(port - 1)),
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 2, r.stderr
        assert f"--serve: switch s2: port {port} is already in use on 127.0.0.1" in r.stderr
        with socket.socket() as s:
            s.bind(("127.0.0.1", port - 1))       # s1's server was stopped again
    finally:
        stop_process(serve)


@pytest.mark.parametrize("base, ok", [(65534, True), (65535, False)])
def test_run_serve_ports_past_65535_are_refused(base, ok):
    """Two switches take base and base + 1: 65534 is the last base that fits (gRPC would take
    65536 as "any port" and 65537 as port 1); refused before any server starts. (CPU port 510,
    the last simple_switch_grpc takes, passes.)"""
    r = subprocess.run(_dataplane("run", str(TOPO), "--program", str(PROGRAM), "--serve", "--grpc-base-port",
                                  str(base), "--cpu-port", "510", "--grpc-host", "192.0.2.1"),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    if ok:     # past the check: then the address (TEST-NET-1, not this machine's) is what fails
        assert "192.0.2.1 is not an address of this machine" in r.stderr, r.stderr
    else:
        assert "Invalid value for '--grpc-base-port': 2 switches need ports 65535..65536, past 65535" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--grpc-base-port", "0"], "'--grpc-base-port': 0 is not in the range 1<=x<=65535"),
    (["--cpu-port", "0"], "'--cpu-port': 0 is not in the range 1<=x<=510"),
    (["--cpu-port", "511"], "'--cpu-port': 511 is not in the range 1<=x<=510"),
    (["--max-streams", "0"], "'--max-streams': 0 is not in the range"),
    (["--compile-timeout", "0"], "'--compile-timeout': 0.0 is not in the range 0<x<=3600"),
])
def test_run_serve_options_are_range_checked(args, message):
    """Each value one past its range is a click error (the host, TEST-NET-1, would fail any
    value that got through, rather than serve)."""
    from click.testing import CliRunner

    from dataplane.cli import main

    r = CliRunner().invoke(main, ["run", str(TOPO), "--program", str(PROGRAM), "--serve", "--grpc-host", "192.0.2.1",
                                  *args])
    assert r.exit_code == 2 and message in r.output, r.output


def test_tls_options_without_serve_are_an_error(tmp_path):
    from click.testing import CliRunner

    from dataplane.cli import main

    pem = tmp_path / "x.pem"
    pem.write_text("x")
    r = CliRunner().invoke(main, ["run", str(TOPO), "--program", str(PROGRAM), "--tls-cert", str(pem)])
    assert r.exit_code == 2 and "go with --serve" in r.output


def test_run_serve_over_mutual_tls(tmp_path):
    """Every switch's server takes --tls-cert/--tls-key/--tls-ca: a controller with a certificate
    the CA signed is served, one without is refused."""
    pytest.importorskip("cryptography")
    from dataplane.testing.certificates import make_pki

    pki = make_pki(tmp_path / "pki")
    base = _free_ports(2)
    log = tmp_path / "run.log"
    with open(log, "w") as err:
        proc = subprocess.Popen(
            _dataplane("run", str(TOPO), "--program", str(PROGRAM), "--serve", "--grpc-base-port", str(base),
                       "--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key), "--tls-ca", str(pki.ca)),
            stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    try:
        _wait_for_servers(proc, log)
        good = grpc.ssl_channel_credentials(pki.ca.read_bytes(), pki.client_key.read_bytes(),
                                            pki.client_cert.read_bytes())
        for port, credentials, served in [(base, good, True), (base + 1, good, True),
                                          (base, grpc.ssl_channel_credentials(pki.ca.read_bytes()), False)]:
            channel = grpc.secure_channel(f"127.0.0.1:{port}", credentials)
            try:
                stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
                if served:
                    assert stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=10).p4runtime_api_version
                else:
                    with pytest.raises(grpc.RpcError) as refused:
                        stub.Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=10)
                    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
            finally:
                channel.close()
    finally:
        stop_process(proc)
    assert proc.returncode == 0, log.read_text()
