"""Link serialization timing: lone frames round down to whole ns, back-to-back trains run at
exactly the link's rate, and a port costs a serializer event only when a frame waits."""
from __future__ import annotations

from dataplane.net.link import Link
from dataplane.net.node import Node
from dataplane.net.sim import Simulator


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
