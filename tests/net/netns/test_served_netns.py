"""``dataplane run TOPO --serve --netns``: the P4 tutorials' P4Runtime exercises with real hosts.
The switches start with no routes; this test, as the exercise's controller, writes them over
P4Runtime while the namespaces are up, then ``ping`` runs in h1's namespace across both
switches; Ctrl-C ends the run and leaves no namespace behind."""
from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

grpc = pytest.importorskip("grpc")
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc  # noqa: E402

from dataplane.control.p4info import build_p4info  # noqa: E402
from dataplane.lang.frontend import compile_file  # noqa: E402
from dataplane.resources import builtin_program  # noqa: E402

from .test_realtime_netns import DATAPLANE, needs, netns_skip_reason, run_namespaces  # noqa: E402

pytestmark = [pytest.mark.no_pypy, pytest.mark.realtime]
TOPO = Path(__file__).parents[1] / "data" / "served" / "topology.json"
PROGRAM = builtin_program("ipv4_router")
# per switch: (destination, prefix length, next-hop MAC, port), as in tests/cli/test_run_serve.py
ROUTES = {0: [("10.0.1.1", 32, "08:00:00:00:01:11", 1), ("10.0.2.2", 32, "08:00:00:00:02:00", 2)],
          1: [("10.0.2.2", 32, "08:00:00:00:02:22", 1), ("10.0.1.1", 32, "08:00:00:00:01:00", 2)]}


def _write_routes(port: int, device_id: int, p4info) -> None:
    """Become primary on the device and write its routes, as the tutorials' controllers do."""
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
    requests: queue.Queue = queue.Queue()
    replies: queue.Queue = queue.Queue()
    stream = stub.StreamChannel(iter(requests.get, None))

    def read() -> None:
        try:
            for m in stream:
                replies.put(m)
        except grpc.RpcError:
            pass               # the channel closed once the routes were written
    threading.Thread(target=read, daemon=True).start()
    arb = p4runtime_pb2.StreamMessageRequest()
    arb.arbitration.device_id = device_id
    arb.arbitration.election_id.low = 1
    requests.put(arb)
    assert replies.get(timeout=10).arbitration.status.code == 0
    table = next(t for t in p4info.tables if t.preamble.name == "MyIngress.ipv4_lpm")
    action = next(a for a in p4info.actions if a.preamble.name == "MyIngress.ipv4_forward")
    req = p4runtime_pb2.WriteRequest(device_id=device_id)
    req.election_id.low = 1
    for prefix, plen, mac, out in ROUTES[device_id]:
        entry = req.updates.add(type=p4runtime_pb2.Update.INSERT).entity.table_entry
        entry.table_id = table.preamble.id
        m = entry.match.add(field_id=table.match_fields[0].id)
        m.lpm.value, m.lpm.prefix_len = bytes(int(x) for x in prefix.split(".")), plen
        entry.action.action.action_id = action.preamble.id
        for param, value in zip(action.params, (int(mac.replace(":", ""), 16), out)):
            entry.action.action.params.add(param_id=param.id, value=value.to_bytes((param.bitwidth + 7) // 8, "big"))
    stub.Write(req)
    requests.put(None)
    channel.close()


def test_controllers_configure_the_switches_and_namespace_hosts_ping_across_them(tmp_path):
    reason = netns_skip_reason()
    if reason:
        pytest.skip(reason)
    needs("ping")
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        base = s.getsockname()[1]
    name = f"sv{os.getpid()}"
    env = {**os.environ, "DATAPLANE_STATE_DIR": str(tmp_path), "DATAPLANE_PROGRESS": "0"}
    log = tmp_path / "run.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([*DATAPLANE, "run", str(TOPO), "--program", str(PROGRAM), "--serve", "--netns",
                                 "--name", name, "--grpc-base-port", str(base), "--settle", "0.3s"],
                                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        end = time.monotonic() + 60
        while "waiting for the controllers" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < end, log.read_text()
            time.sleep(0.1)
        text = log.read_text()
        assert f"h1: namespace dataplane-{name}-h1, eth0 10.0.1.1" in text
        assert f"s2: P4Runtime on 127.0.0.1:{base + 1}, device id 1" in text
        p4info = build_p4info(compile_file(PROGRAM).program)
        for device_id in (0, 1):
            _write_routes(base + device_id, device_id, p4info)
        # the run starts 0.3 s after the last write; ping's first echo may wait for that
        r = subprocess.run([*DATAPLANE, "exec", "--run", name, "h1", "--", "ping", "-c", "2", "-i", "0.3", "-W", "3",
                            "10.0.2.2"], env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stdout + r.stderr + log.read_text()
        assert "2 received" in r.stdout and "ttl=62" in r.stdout       # routed by s1 and s2
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        left = run_namespaces(name)
        from dataplane.net.netns import namespaces

        for ns in left:
            namespaces.remove(ns)
    assert left == [], left
    assert proc.returncode == 0, log.read_text()
    assert "real time:" in log.read_text() and not (tmp_path / f"{name}.json").exists()
