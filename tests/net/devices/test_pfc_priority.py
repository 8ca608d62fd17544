"""Per-priority PFC (802.1Qbb) with traffic classes: a lossless RoCE class and a lossy bulk
class share a bottleneck; pause stops only the lossless class upstream; the headroom model."""
from __future__ import annotations

import pytest

from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.devices.pfc import headroom_bytes, parse_pfc, pause_frame, pfc_frame
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_yaml_topology

LOSSLESS_BYTES = 200_000
ROCE, BULK = 0x60, 0x00          # IP precedence 3 (the lossless priority) and 0


def mixed_yaml() -> str:
    """h1 (RoCE, class 3) and h2 (bulk, class 0) at 10 Gb/s -> s1 -> 10 Gb/s -> s2 -> 5 Gb/s -> h3."""
    sw = ("{kind: switch, program: tclass_router, queues: {count: 4, scheduler: dwrr}, "
          "pfc: {xoff: 20KB, xon: 10KB, priorities: [3]}}")
    return f"""
name: mixed
defaults: {{latency: 1us, queue: 64KB}}
topology:
  nodes:
    s1: {sw}
    s2: {sw}
    h1: {{kind: host, ip: 10.0.1.1/24, gateway: 10.0.1.254, arp: {{10.0.1.254: "02:00:00:00:00:01"}}}}
    h2: {{kind: host, ip: 10.0.2.2/24, gateway: 10.0.2.254, arp: {{10.0.2.254: "02:00:00:00:00:02"}}}}
    h3: {{kind: host, ip: 10.0.3.3/24, gateway: 10.0.3.254, arp: {{10.0.3.254: "02:00:00:00:00:03"}}}}
  links:
    - {{endpoints: ["s1:p1", "h1"], bandwidth: 10Gbps}}
    - {{endpoints: ["s1:p2", "h2"], bandwidth: 10Gbps}}
    - {{endpoints: ["s1:p3", "s2:p2"], bandwidth: 10Gbps}}
    - {{endpoints: ["s2:p1", "h3"], bandwidth: 5Gbps}}
"""


@pytest.fixture(scope="module")
def mixed():
    net = Network.from_spec(load_yaml_topology(mixed_yaml()))
    h3 = net.host("h3")
    for sw, port in (("s1", 3), ("s2", 1)):
        net.switch(sw).api.table_add("MyIngress.ipv4_lpm", "MyIngress.ipv4_forward", ["10.0.3.3/32"],
                                     [h3.mac, port])
    roce, bulk = UdpSink(h3, 9000), UdpSink(h3, 9001)
    UdpFlow(net.host("h1"), "10.0.3.3", 10_000_000_000, size_bytes=1000, total_bytes=LOSSLESS_BYTES,
            dst_port=9000, tos=ROCE)
    UdpFlow(net.host("h2"), "10.0.3.3", 10_000_000_000, size_bytes=1000, duration_ns=200_000, dst_port=9001,
            tos=BULK)
    net.run(800_000)
    return net, roce, bulk


def test_pfc_pauses_only_the_lossless_class(mixed):
    net, roce, bulk = mixed
    q = net.switch("s1").ports[3].queue_metrics()        # s1's queues towards s2
    assert q[3]["pause_rx"] > 0 and q[3]["paused_ns"] > 0
    assert q[0]["pause_rx"] == 0 and q[0]["paused_ns"] == 0 and q[0]["tx_packets"] > 0
    # s2 paused priority 3 only, from the port s1 feeds; s2 held s1's class 3 and nothing else.
    assert net.switch("s2").pfc.stats()["paused_priorities"] in ([], ["2:3"])
    assert net.switch("s2").pfc.xoff_sent > 0 and set(net.switch("s2").pfc.peak) == {2}


def test_the_lossless_class_loses_nothing_and_the_lossy_class_drops(mixed):
    net, roce, bulk = mixed
    bottleneck = net.switch("s2").ports[1].queue_metrics()
    assert bottleneck[3]["drops"] == 0 and roce.stats["bytes"] == LOSSLESS_BYTES
    assert bottleneck[0]["drops"] > 0 and 0 < bulk.stats["bytes"] < 200_000 * 10 // 8


def test_a_pfc_frame_carries_a_vector_and_eight_timers():
    f = pfc_frame(1, [0, 5, 0, 9, 0, 0, 0, 7], classes=0b1000_1010)
    assert parse_pfc(f) == [None, 5, None, 9, None, None, None, 7]
    assert parse_pfc(pause_frame(1, 77)) == [77] * 8                       # 802.3x: every class
    assert parse_pfc(bytes(60)) is None


def test_headroom_adds_interface_and_response_delays():
    # 100 Gb/s, 100 m of fibre (~500 ns), 9216-byte max frame: the 802.1Qbb delay model.
    cable = 2 * 500 * 100 // 8                      # both ways, bytes
    delays = (122_880 + 201_728) // 8               # 802.3's D-Intf and D-Resp at 100G: 40,576 bytes
    assert headroom_bytes(100_000_000_000, 500, 9216) == cable + 2 * 9216 + 60 + delays
    assert headroom_bytes(100_000_000_000, 500, 9216, overhead=24) == cable + 2 * 9240 + 84 + delays
    assert headroom_bytes(25_000_000_000, 0, 1514) == 2 * 1514 + 60 + (6_144 + 40_960) // 8
    assert headroom_bytes(200_000_000_000, 0, 1514, interface_bits=0, response_bits=8) == 2 * 1514 + 60 + 1
