"""Traffic classes on a host's NIC: a PFC frame pauses only the priorities it names, each for
its own time, and the NIC keeps sending the other classes (802.1Qbb)."""
from __future__ import annotations

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.apps.basic import UdpFlow
from dataplane.net.devices.pfc import MAX_QUANTA, pfc_frame, quanta_ns
from dataplane.net.fabric.network import Network
from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.host_classes import frame_priority
from dataplane.net.topology.load import load_yaml_topology

ROCE, BULK = 0x60, 0x00            # DSCP 24 (priority 3) and 0
XOFF_AT, XON_AT = 10_000, 60_000   # h2 pauses h1's priority 3 until XON ...
TIMED_AT, QUANTA = 100_000, 200    # ... then for 200 quanta (10.24 us at 10 Gb/s), left to expire
END = 150_000


def pair_yaml(host_queues: str) -> str:
    return f"""
name: pair
defaults: {{latency: 1us}}
topology:
  nodes:
    h1: {{kind: host, ip: 10.0.0.1/24, arp: {{10.0.0.2: "02:00:0a:00:00:02"}}{host_queues}}}
    h2: {{kind: host, ip: 10.0.0.2/24}}
  links:
    - {{endpoints: [h1, h2], bandwidth: 10Gbps}}
"""


@pytest.fixture(scope="module")
def paused_run():
    net = Network.from_spec(load_yaml_topology(pair_yaml(", queues: 8")))
    h1, h2 = net.host("h1"), net.host("h2")
    arrivals: dict[int, list[int]] = {0: [], 3: []}
    h2.on_receive(lambda frame, now: arrivals[frame_priority(frame)].append(now) and False)
    h2.timer(XOFF_AT, h2.send_raw, pfc_frame(h2.mac, MAX_QUANTA, 1 << 3))
    h2.timer(XON_AT, h2.send_raw, pfc_frame(h2.mac, 0, 1 << 3))
    h2.timer(TIMED_AT, h2.send_raw, pfc_frame(h2.mac, QUANTA, 1 << 3))
    for port, tos in ((9000, ROCE), (9001, BULK)):
        UdpFlow(h1, "10.0.0.2", 3_000_000_000, size_bytes=1000, duration_ns=END, dst_port=port, tos=tos)
    net.run(END + 50_000)
    return net, arrivals


def between(times: list[int], lo: int, hi: int) -> list[int]:
    return [t for t in times if lo < t < hi]


def test_a_host_paused_on_priority_3_keeps_sending_priority_0_and_resumes_at_xon_and_expiry(paused_run):
    net, arrivals = paused_run
    lag = 3_000      # pause frame on the wire (1 us) plus a frame already sent arriving (1.9 us)
    # Paused by XOFF: no priority-3 frame arrives until XON, priority 0 goes on at its rate.
    assert between(arrivals[3], 0, XOFF_AT) and not between(arrivals[3], XOFF_AT + lag, XON_AT + 1_000)
    assert len(between(arrivals[0], XOFF_AT + lag, XON_AT)) >= (XON_AT - XOFF_AT - lag) * 3 // 8_336 - 1
    # XON resumes it at once (the pause time, 3.4 ms, is far from over).
    assert between(arrivals[3], XON_AT + 1_000, XON_AT + lag + 1_000)
    # A timed pause: resumed when its own timer ends, with no XON.
    resume = TIMED_AT + 1_067 + quanta_ns(QUANTA, 10_000_000_000)
    assert not between(arrivals[3], TIMED_AT + lag, resume + 1_000)
    assert between(arrivals[3], resume + 1_000, resume + lag + 1_000)
    assert len(between(arrivals[0], TIMED_AT + lag, resume)) >= 2
    q = net.host("h1").port.queue_metrics()
    assert q[3]["pause_rx"] == 3 and q[0]["pause_rx"] == 0 and q[0]["paused_ns"] == 0
    assert q[3]["paused_ns"] == XON_AT - XOFF_AT + quanta_ns(QUANTA, 10_000_000_000)
    assert net.host("h1").stats.dropped == 0


def test_host_priority_follows_the_trusted_field():
    ip = pk.ipv4_header(1, 2, 17, 8, 64, 1, 0xB8)                # DSCP 46 (EF): priority 5
    frame = bytes(12) + b"\x08\x00" + ip + bytes(8)
    tagged = bytes(12) + b"\x81\x00" + (0x6000 | 7).to_bytes(2, "big") + b"\x08\x00" + ip + bytes(8)
    v6 = bytes(12) + b"\x86\xdd" + bytes([0x60 | 0x6, 0x00]) + bytes(38)    # traffic class 0x60: priority 3
    assert [frame_priority(f) for f in (frame, tagged, v6)] == [5, 5, 3]
    assert [frame_priority(f, "pcp") for f in (frame, tagged)] == [0, 3]
    assert frame_priority(bytes(12) + b"\x08\x06" + bytes(28)) == 0                # ARP


def test_host_queue_settings_are_checked():
    spec = load_yaml_topology(pair_yaml(", queues: {count: 4, scheduler: dwrr}, trust: pcp"))
    assert spec.hosts["h1"].queues.count == 4 and spec.hosts["h1"].trust == "pcp"
    assert spec.hosts["h2"].queues is None and spec.hosts["h2"].trust == "dscp"
    for bad, message in ((", trust: vlan", "trust: must be dscp or pcp"), (", queues: 9", "queues count must be 1..8"),
                         (", queues: 8, netns: true", "queues: is for simulated hosts")):
        with pytest.raises(ConfigError) as info:
            load_yaml_topology(pair_yaml(bad))
        assert message in str(info.value) and ":6:" in str(info.value)
