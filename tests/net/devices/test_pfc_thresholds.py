"""PFC thresholds and pause timing on exact values (IEEE 802.1Qbb, 802.3 annex 31B).

The switch sends XOFF when the bytes accounted to an ingress port *reach* ``xoff`` and XON
when they *fall to* ``xon``; a pause lasts quanta x 512 bit times and the pause frame itself
costs a minimum frame's line time (64 B with FCS + 8 B preamble/SFD + 12 B gap = 84 B); a
byte-capacity egress queue holds exactly its capacity. Every case puts the byte count exactly
on the threshold and one byte either side.
"""
from __future__ import annotations

import pytest

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Link
from dataplane.net.devices.node import Node
from dataplane.net.devices.pfc import pause_frame, pfc_frame
from dataplane.net.devices.tclass import ClassPort
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_yaml_topology
from dataplane.net.topology.tclass_spec import QueueConfig
from dataplane.resources import data_dir

from ..conftest import build_pair, router_hosts

FRAME = 1042             # a UDP datagram of 1000 payload bytes: 14 + 20 + 8 + 1000
PAYLOAD = b"x" * (FRAME - 42)
GBPS = 1_000_000_000


def held_switch(xoff: int, xon: int) -> Network:
    """s1 (ipv4_router, PFC with ``xoff``/``xon``) whose port to h3 is paused by h3 for the
    longest pause (65535 quanta at 5 Gb/s = 6.7 ms): what h1 sends piles up in that queue."""
    entries = data_dir("programs") / "ipv4_router.json"
    net = Network.from_spec(load_yaml_topology(f"""
name: thresholds
defaults: {{latency: 0us, queue: 1MB}}
topology:
  nodes:
    s1: {{kind: switch, program: ipv4_router, entries: {entries}, pfc: {{xoff: {xoff}, xon: {xon}}}}}
{router_hosts(1, 3)}
  links:
    - {{endpoints: ["s1:p1", "h1"], bandwidth: 10Gbps}}
    - {{endpoints: ["s1:p3", "h3"], bandwidth: 5Gbps}}
"""))
    h3 = net.host("h3")
    h3.send_raw(pfc_frame(h3.mac, 0xFFFF))
    net.run(1_000)
    assert net.switch("s1").ports[3].paused
    return net


def send_frames(net: Network, count: int) -> None:
    h1 = net.host("h1")
    for _ in range(count):
        assert h1.send_udp("10.0.3.3", 5000, 9000, PAYLOAD)
    net.run(net.sim.now + 100_000)


@pytest.mark.parametrize("xoff, sent", [(3 * FRAME - 1, 1), (3 * FRAME, 1), (3 * FRAME + 1, 0)])
def test_xoff_is_sent_when_the_ingress_bytes_reach_the_threshold(xoff, sent):
    """Three frames accounted to p1 (3,126 B): XOFF when xoff is 3,125 or exactly 3,126, none at 3,127."""
    net = held_switch(xoff, 0)
    send_frames(net, 3)
    s1 = net.switch("s1")
    assert s1.pfc.bytes[1 * 8 + 3] == 3 * FRAME
    assert s1.pfc.xoff_sent == sent and s1.ports[1].stats.pause_tx == sent
    assert net.host("h1").port.paused is bool(sent)


@pytest.mark.parametrize("xon, released_at_xon", [(2 * FRAME + 1, 2), (2 * FRAME, 2), (2 * FRAME - 1, 3)])
def test_xon_is_sent_when_the_ingress_bytes_fall_to_the_threshold(xon, released_at_xon):
    """Four frames held (4,168 B, over xoff), then released one at a time: XON goes out at the
    release that brings p1's bytes to xon or below: the second (2,084 B left) when xon is 2,085
    or exactly 2,084; the third when it is one byte lower."""
    net = held_switch(4 * FRAME, xon)
    send_frames(net, 4)
    s1 = net.switch("s1")
    assert s1.pfc.xoff_sent == 1
    seen = []
    inner = s1.pfc.dequeued

    def dequeued(item):
        inner(item)
        seen.append(s1.pfc.xon_sent)

    s1.pfc.dequeued = dequeued
    h3 = net.host("h3")
    h3.send_raw(pfc_frame(h3.mac, 0))                   # resume s1:p3
    net.run(net.sim.now + 100_000)
    assert len(seen) == 4 and s1.pfc.bytes[1 * 8 + 3] == 0
    assert seen.index(1) + 1 == released_at_xon and s1.pfc.xon_sent == 1


class Sink(Node):
    def __init__(self, sim, name):
        super().__init__(sim, name)
        self.arrivals: list[int] = []

    def receive(self, port, data):
        self.arrivals.append(self.sim.now)


def test_a_pause_lasts_its_quanta_after_the_pause_frame_s_line_time():
    """h2 sends a PAUSE of 100 quanta at t=100 while h1 serializes a 1042-byte frame on 10 Gb/s:
    the pause frame takes 84 B of line time (67 ns), the pause 100 x 512 bit times (5,120 ns)
    from its arrival, and h1's next frame starts when the pause ends (not when the frame in
    service ended, at 852 ns)."""
    sim, h1, h2, _ = build_pair(static_arp=True, latency_ns=0)
    got = []
    h2.bind_udp(7, lambda *a: got.append(sim.now))
    h1.send_udp(h2.ip, 7, 7, PAYLOAD)
    sim.run(100)
    h2.send_raw(pause_frame(h2.mac, 100))
    h1.send_udp(h2.ip, 7, 7, PAYLOAD)
    sim.run(1_000_000)
    frame_ns = (FRAME + 4 + 8 + 12) * 8 // 10            # 852.8 ns at 10 Gb/s, rounded down
    pause_frame_ns = (64 + 8 + 12) * 8 // 10             # 67.2 ns
    pause_ns = 100 * 512 // 10                           # 100 quanta of 512 bit times at 10 Gb/s
    assert got == [frame_ns, 100 + pause_frame_ns + pause_ns + frame_ns]
    assert h1.port.paused_time_ns == pause_ns


def test_a_pfc_frame_pauses_only_its_class_for_its_quanta():
    """A port with two traffic classes gets a PFC frame for class 1 (100 quanta) at t=0 over
    10 Gb/s: it arrives after its 84 B of line time (67 ns) and pauses queue 1 for 5,120 ns;
    a frame queued in class 1 at t=100 leaves at 5,187 and arrives 852 ns later, while one
    in class 0 at t=100 goes at once."""
    sim = Simulator()
    a, b = Sink(sim, "a"), Sink(sim, "b")
    classes = {}
    pa = a.ports[0] = ClassPort(sim, a, 0, "a:p0", QueueConfig(count=2, weights=(1, 1)), lambda item: classes[item])
    pb = b.add_port(0, "b:p0")
    Link(sim, pa, pb, 10 * GBPS, 0)
    pa.capacity = 100
    pb.send_control(pfc_frame(0x0200_0000_0002, [0, 100, 0, 0, 0, 0, 0, 0], classes=0b10))
    one, zero = bytes([1]) * FRAME, bytes([0]) * FRAME
    classes.update({one: 1, zero: 0})
    sim.at(100, a.transmit, 0, one)
    sim.at(100, a.transmit, 0, zero)
    sim.run(1_000_000)
    frame_ns = (FRAME + 24) * 8 // 10
    resume = (64 + 8 + 12) * 8 // 10 + 100 * 512 // 10
    assert b.arrivals == [100 + frame_ns, resume + frame_ns]
    assert pa.queue_metrics()[1]["paused_ns"] == 100 * 512 // 10 and pa.queue_metrics()[0]["paused_ns"] == 0


def byte_queue(capacity: int, classes: bool):
    """A port with a ``capacity``-byte queue, paused, so what it is handed stays queued: a plain
    port, or a port with two traffic classes (everything in queue 1)."""
    sim = Simulator()
    a, b = Sink(sim, "a"), Sink(sim, "b")
    if classes:
        pa = a.ports[0] = ClassPort(sim, a, 0, "a:p0", QueueConfig(count=2, weights=(1, 1)), lambda item: 1)
    else:
        pa = a.add_port(0, "a:p0")
    Link(sim, pa, b.add_port(0, "b:p0"), 10 * GBPS, 0)
    pa.capacity, pa.capacity_kind = capacity, "bytes"
    if classes:
        pa.pause_queue(1, 1_000_000, 0)
    else:
        pa.pause(1_000_000)
    return a, pa


@pytest.mark.parametrize("classes", [False, True], ids=["port", "class_port"])
@pytest.mark.parametrize("capacity, held", [(3 * FRAME - 1, 2), (3 * FRAME, 3), (3 * FRAME + 1, 3)])
def test_a_byte_queue_is_full_at_exactly_its_capacity(capacity, held, classes):
    """Three 1042-byte frames fit a 3,126-byte queue, not a 3,125-byte one; the next is tail-dropped."""
    a, pa = byte_queue(capacity, classes)
    accepted = [a.transmit(0, bytes(FRAME)) for _ in range(4)]
    assert accepted == [True] * held + [False] * (4 - held)
    assert pa.queue_bytes == held * FRAME and pa.stats.drops == 4 - held and len(pa.queue) == held
