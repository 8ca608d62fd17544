"""Packet-outs into a served network (``run --serve``): one client's flood holds a bounded
backlog in front of the simulator, and another client's packet-outs wait behind that backlog,
not behind the whole flood."""
from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc  # noqa: E402

from dataplane.control.device_config import make_device_config  # noqa: E402
from dataplane.control.p4info import build_p4info  # noqa: E402
from dataplane.control.p4runtime.server import P4RuntimeServer  # noqa: E402
from dataplane.net.devices.live import MAX_WAITING_PACKETS, LiveNetwork  # noqa: E402
from dataplane.net.fabric.network import Network  # noqa: E402
from dataplane.net.topology.load import load_topology  # noqa: E402
from dataplane.resources import builtin_program  # noqa: E402

TOPO = Path(__file__).parents[1] / "data" / "served" / "topology.json"
PROGRAM = builtin_program("ipv4_router")
CPU = 64
FLOOD = 2000


class Primary:
    """A client that is the primary of ``role`` on device 0 and sends packet-outs."""

    def __init__(self, port: int, role: str):
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.requests: queue.Queue = queue.Queue()
        self.responses = p4runtime_pb2_grpc.P4RuntimeStub(self.channel).StreamChannel(iter(self.requests.get, None))
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = 0
        req.arbitration.election_id.low = 1
        req.arbitration.role.name = role
        self.requests.put(req)
        assert next(self.responses).arbitration.status.code == 0

    def packet_out(self, tag: int) -> None:
        req = p4runtime_pb2.StreamMessageRequest()
        req.packet.payload = bytes(6) + bytes([0, 0, 0, 0, 0, tag]) + b"\x08\x00" + bytes(46)
        self.requests.put(req)

    def close(self) -> None:
        self.requests.put(None)
        self.channel.close()


def test_a_packet_out_flood_cannot_starve_another_client():
    """Client a sends 2,000 packet-outs while the network is held at time 0; at most
    MAX_WAITING_PACKETS of them wait in the simulator. Client b then sends 20. Once the network
    runs, b's 20 enter the switch within MAX_WAITING_PACKETS + 2 x 20 packets, long before a's
    flood is through (which is where a plain FIFO in front of the simulator put them)."""
    net = Network.from_spec(load_topology(TOPO, program=PROGRAM))
    live = LiveNetwork(net, cpu_port=CPU, settle_s=60)
    s1 = live.nodes[0]
    entered: list[int] = []
    ingress = s1.node._ingress

    def record(port, data):
        if port == CPU:
            entered.append(data[11])
        ingress(port, data)
    s1.node._ingress = record
    injected = [0]
    inject = s1.inject

    def counted(port, data):
        inject(port, data)
        injected[0] += 1
    s1.inject = counted
    server = P4RuntimeServer(s1, "127.0.0.1:0", p4info=build_p4info(s1.switch.program),
                             device_config=make_device_config(PROGRAM))
    server.start()
    a = b = None
    run = threading.Thread(target=live.run, args=(10_000_000_000,), daemon=True)
    try:
        a, b = Primary(server.port, "a"), Primary(server.port, "b")
        for _ in range(FLOOD):
            a.packet_out(ord("a"))
        end = time.monotonic() + 20
        while injected[0] < MAX_WAITING_PACKETS and time.monotonic() < end:
            time.sleep(0.01)
        time.sleep(0.5)                       # time for the flood to pile up further, if it could
        assert injected[0] == MAX_WAITING_PACKETS
        for _ in range(20):
            b.packet_out(ord("b"))
        time.sleep(0.2)
        run.start()
        live.start()
        while entered.count(ord("b")) < 20 and time.monotonic() < end:
            time.sleep(0.01)
        assert entered.count(ord("b")) == 20
        last_b = len(entered) - 1 - entered[::-1].index(ord("b"))
        assert last_b < MAX_WAITING_PACKETS + 2 * 20 + 8, last_b
    finally:
        live.stop()
        for client in (a, b):
            if client is not None:
                client.close()
        server.stop()
        if run.is_alive():
            run.join(timeout=5)
