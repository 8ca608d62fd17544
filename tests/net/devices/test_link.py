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


def pair(rate_bps: int, latency_ns: int = 0):
    sim = Simulator()
    a, b = Sink(sim, "a"), Sink(sim, "b")
    pa, pb = a.add_port(0, "a:p0"), b.add_port(0, "b:p0")
    pa.capacity = 10_000
    Link(sim, pa, pb, rate_bps, latency_ns)
    return sim, a, b


def test_back_to_back_train_runs_at_exactly_the_link_rate():
    # 64-byte frames on 100 Gb/s take 5.12 ns each: 1,000 of them take 5,120 ns, not 5,000.
    sim, a, b = pair(100_000_000_000)
    for _ in range(1000):
        a.transmit(0, bytes(64))
    sim.run()
    assert b.arrivals[-1] == 5_120
    assert b.arrivals[:3] == [5, 10, 15]          # 5.12, 10.24, 15.36 rounded down


def test_lone_frames_round_down_and_forget_the_remainder():
    sim, a, b = pair(100_000_000_000, latency_ns=100)
    for t in (0, 1_000, 2_000):
        sim.at(t, a.transmit, 0, bytes(64))
    sim.run()
    assert b.arrivals == [105, 1_105, 2_105]


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
    Link(sim, pa, pb, 8_000_000_000, 10)              # 1 byte per ns
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
