"""Link serialization timing: lone frames round down to whole ns, back-to-back trains run at
exactly the link's rate, and a port costs a serializer event only when a frame waits."""
from __future__ import annotations

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Link
from dataplane.net.devices.node import Node
from dataplane.net.devices.pfc import pause_frame


class Sink(Node):
    def __init__(self, sim, name):
        super().__init__(sim, name)
        self.arrivals: list[int] = []

    def receive(self, port, data):
        self.arrivals.append(self.sim.now)


def wire(frame: int) -> int:
    """Line time in bytes of a captured frame on Ethernet: the frame and its FCS (4), padded to
    64, then preamble + SFD (8) and the inter-frame gap (12)."""
    return max(frame + 4, 64) + 8 + 12


def pair(rate_bps: int, latency_ns: int = 0, overhead: str = "ethernet"):
    sim = Simulator()
    a, b = Sink(sim, "a"), Sink(sim, "b")
    pa, pb = a.add_port(0, "a:p0"), b.add_port(0, "b:p0")
    pa.capacity = 10_000
    Link(sim, pa, pb, rate_bps, latency_ns, overhead=overhead)
    return sim, a, b


def test_back_to_back_train_runs_at_exactly_the_link_rate():
    # 64-byte frames (68 with FCS, 88 on the wire) on 100 Gb/s take 7.04 ns each: 1,000 of them
    # take 7,040 ns, not 7,000.
    sim, a, b = pair(100_000_000_000)
    for _ in range(1000):
        a.transmit(0, bytes(64))
    sim.run()
    ns = wire(64) * 8 / 100                       # exact, in ns
    assert b.arrivals[-1] == 1000 * wire(64) * 8 // 100
    assert b.arrivals[:3] == [int(ns), int(2 * ns), int(3 * ns)]   # 7.04, 14.08, 21.12 rounded down


def test_lone_frames_round_down_and_forget_the_remainder():
    sim, a, b = pair(100_000_000_000, latency_ns=100)
    for t in (0, 1_000, 2_000):
        sim.at(t, a.transmit, 0, bytes(64))
    sim.run()
    lone = wire(64) * 8 // 100                    # 7.04 ns rounded down, each time
    assert b.arrivals == [lone + 100, 1_000 + lone + 100, 2_000 + lone + 100]


def test_a_minimum_frame_takes_84_bytes_of_line_time_and_none_takes_its_bytes():
    # A 60-byte captured frame is 64 with its FCS: with preamble/SFD and gap, 84 B = 6.72 ns
    # at 100 Gb/s. A shorter one is padded to the same; a long one adds 24 B. With overhead
    # "none" the link times the captured bytes alone.
    for frame, ethernet_bits, none_bits in ((60, (60 + 4 + 8 + 12) * 8, 60 * 8),
                                            (20, (64 + 8 + 12) * 8, 20 * 8),
                                            (1500, (1500 + 4 + 8 + 12) * 8, 1500 * 8)):
        for overhead, bits in (("ethernet", ethernet_bits), ("none", none_bits)):
            sim, a, b = pair(100_000_000_000, latency_ns=0, overhead=overhead)
            sim.at(0, a.transmit, 0, bytes(frame))
            sim.at(10_000, a.transmit, 0, bytes(frame))
            sim.at(10_000, a.transmit, 0, bytes(frame))      # behind the second: back to back
            sim.run()
            assert b.arrivals == [bits // 100, 10_000 + bits // 100, 10_000 + 2 * bits // 100], (frame, overhead)
            port = a.ports[0]
            assert port.stats.tx_bytes == 3 * frame and port.stats.tx_wire_bytes == 3 * bits // 8
            assert port.link.serialize_ns(frame) == bits // 100
    sim, a, b = pair(100_000_000_000)
    for _ in range(100):
        a.transmit(0, bytes(60))
    sim.run()
    assert b.arrivals[-1] == 672                  # 100 minimum frames back to back, 6.72 ns each


def test_an_idle_port_schedules_no_serializer_event():
    sim, a, b = pair(10_000_000_000)
    a.transmit(0, bytes(100))
    sim.run()
    assert sim.events_run == 1                    # the arrival only
    a.transmit(0, bytes(100))
    a.transmit(0, bytes(100))                     # waits behind the first: one wake-up
    sim.run()
    assert sim.events_run == 1 + 3


class Reentrant(Sink):
    """A node whose dequeue drops some items and queues more, or asks for a control frame,
    on the very port being served (as a switch's egress pipeline may with clones and PFC)."""

    def __init__(self, sim, name):
        super().__init__(sim, name)
        self.seen: list[tuple] = []

    def dequeue(self, port, item, enq_time, enq_depth):
        self.seen.append((self.sim.now, item[:1], enq_time, enq_depth, len(port.queue), port.queue_bytes))
        if item.startswith(b"D"):                    # dropped, replaced by two frames behind it
            port.enqueue(b"R" + bytes(99), 100)
            port.enqueue(b"S" + bytes(99), 100)
            return None
        if item.startswith(b"C"):                    # a control frame waits for this one
            port.send_control(pause_frame(0x0800_0000_0001, 0))
        return item


def test_a_node_dropping_or_queueing_at_dequeue_keeps_the_port_order():
    sim = Simulator()
    a, b = Reentrant(sim, "a"), Sink(sim, "b")
    pa, pb = a.add_port(0, "a:p0"), b.add_port(0, "b:p0")
    got = []
    b.receive = lambda port, data: got.append((sim.now, data[:1]))
    sent = []
    pa.capture = type("Tap", (), {"write": lambda self, t, data: sent.append((t, data[:1]))})()
    Link(sim, pa, pb, 8_000_000_000, 10, overhead="none")   # 1 byte per ns, no Ethernet overhead
    a.transmit(0, b"D" + bytes(99))                   # idle port: dropped at dequeue at once
    sim.at(1_000, a.transmit, 0, b"C" + bytes(99))
    sim.at(1_000, a.transmit, 0, b"x" + bytes(99))
    sim.at(2_000, a.transmit, 0, b"C" + bytes(99))    # idle: the control frame goes after it
    sim.run()
    assert a.seen == [(0, b"D", 0, 0, 0, 0), (0, b"R", 0, 0, 1, 100), (100, b"S", 0, 1, 0, 0),
                      (1000, b"C", 1000, 0, 0, 0), (1160, b"x", 1000, 0, 0, 0), (2000, b"C", 2000, 0, 0, 0)]
    assert got == [(110, b"R"), (210, b"S"), (1110, b"C"), (1270, b"x"), (2110, b"C")]
    assert sent == [(0, b"R"), (100, b"S"), (1000, b"C"), (1100, b"\x01"), (1160, b"x"), (2000, b"C"),
                    (2100, b"\x01")]                  # each pause frame right after the frame in service
    st = pa.stats
    assert (st.tx_packets, st.max_qdepth, st.pause_tx, pb.stats.pause_rx) == (5, 2, 2, 2)
    assert st.qdepth_samples == [(0, 1), (0, 0), (0, 1), (0, 2), (0, 1), (100, 0), (1000, 1), (1000, 0),
                                 (1000, 1), (1160, 0), (2000, 1), (2000, 0)]
