"""What a P4 program sees of the fabric: real queue depths, and port status for data-plane failover."""
from __future__ import annotations

from pathlib import Path

from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.fabric.network import Network
from dataplane.net.hosts.packets import parse_packet
from dataplane.net.topology.load import load_topology

DATA = Path(__file__).parents[1] / "data"


def failover_net() -> Network:
    return Network.from_spec(load_topology(DATA / "failover.yaml"))


def test_egress_sees_the_real_enqueue_depth():
    """A 10 Gb/s burst into a 1 Gb/s link: enq_qdepth grows as the queue does, and matches the port's maximum."""
    net = failover_net()
    seen: list[int] = []
    s2 = net.switch("s2")
    inner = s2.receive

    # Read what s1's egress wrote as the packets reach s2 (s2 rewrites the field on its way out).
    def capture(port, frame: bytes) -> None:
        p = parse_packet(frame)
        if p is not None and p.udp is not None:
            seen.append(int.from_bytes(frame[18:20], "big"))  # the IPv4 identification field
        inner(port, frame)

    s2.receive = capture
    sink = UdpSink(net.host("h2"), 9000)
    UdpFlow(net.host("h1"), net.host("h2").ip, 10_000_000_000, size_bytes=1000, start_ns=0,
            duration_ns=10**9, total_bytes=30_000, dst_port=9000)
    net.run(2_000_000)
    port = net.switch("s1").ports[2]
    assert sum(f.packets for f in sink.flows.values()) == 30 == len(seen)
    # Depth counts the packets waiting ahead at enqueue; the first two find an empty queue
    # (the first is sent at once), then the queue grows by 9 per 10 arrivals.
    assert seen[:2] == [0, 0] and seen == sorted(seen)
    assert max(seen) == port.stats.max_qdepth - 1 > 10


def test_data_plane_fails_over_once_the_port_is_detected_down():
    """Traffic to the failed primary is lost only for the detection delay, then takes the backup."""
    net = failover_net()
    s1 = net.switch("s1")
    assert s1.port_status.values[2] == 1 and s1.port_status.values[3] == 1
    sink = UdpSink(net.host("h2"), 9000)
    flow = UdpFlow(net.host("h1"), net.host("h2").ip, 100_000_000, size_bytes=1000, start_ns=0,
                   duration_ns=2_000_000, dst_port=9000)
    net.set_link("s1:p2", "s2:p1", up=False, at_ns=1_000_000)
    net.run(1_000_000 + 50_000 - 1)
    assert s1.port_status.values[2] == 1  # not yet detected
    net.run(3_000_000)
    assert s1.port_status.values[2] == 0
    got = sum(f.packets for f in sink.flows.values())
    lost = flow.stats["sent"] - got
    # 100 Mb/s of 1000-byte payloads is one packet per 80 us (plus headers): a 50 us outage
    # loses at most one packet, plus at most one in flight on the link when it failed.
    assert 0 <= lost <= 2
    assert net.switch("s1").ports[3].stats.tx_packets > 0
    assert any("detects port 2 down" in what for _, what in net.events_log)
