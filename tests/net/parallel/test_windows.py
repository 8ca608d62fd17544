"""Conservative time windows of a partitioned run (dataplane.net.parallel), as in ns-3's
distributed simulator:

* the lookahead is the smallest latency among the links the partition cuts (links inside a
  rank, however fast, do not count): nothing sent in a window can arrive in it;
* a window [T, T + lookahead) excludes its end: an event at exactly T + lookahead belongs to
  the next window (a frame sent at T over the fastest cut link arrives then, after the trade).

The windows are run in one process against a peer rank that has nothing to do, so they need
no MPI.
"""
from __future__ import annotations

import pytest

pytest.importorskip("mpi4py")     # the windows' collectives are mpi4py's (none on PyPy)

from dataplane.net.parallel.partition import partition
from dataplane.net.parallel.runtime import ParallelSimulator
from dataplane.net.topology.load import load_yaml_topology

INF = float("inf")


class IdlePeer:
    """Two ranks: this one, and a peer that never has events or frames to send."""

    def Get_rank(self) -> int:
        return 0

    def Get_size(self) -> int:
        return 2

    def alltoall(self, items: list) -> list:
        return [items[0], ([], INF, 0)]

    def allreduce(self, value, op=None):
        return value

    def allgather(self, value) -> list:
        return [value, value]


class Node:
    """An actor whose events note (their time, the start of the window they ran in)."""

    def __init__(self, sim: ParallelSimulator):
        self.sim = sim
        self.actor = sim.add_actor()
        self.ran: list[tuple[int, int]] = []

    def tick(self) -> None:
        self.ran.append((self.sim.now, self.sim.window_start))


@pytest.mark.parametrize("lookahead", [100, 101])
def test_a_window_excludes_its_end(lookahead):
    """A window starts at the earliest pending event. Events at 0, 99, 100, 199, 200 and 201
    with a lookahead of 100: windows [0, 100), [100, 200) and [200, 300); the events at 100
    and 200 open the next window. With a lookahead of 101: [0, 101) takes the event at 100
    too, then [199, 300)."""
    sim = ParallelSimulator(0, [True, True], IdlePeer(), lookahead)
    node = Node(sim)
    for t in (0, 99, 100, 199, 200, 201):
        sim.schedule_for(node.actor, t, node.tick)
    sim.run()
    starts = {100: [0, 0, 100, 100, 200, 200], 101: [0, 0, 0, 199, 199, 199]}[lookahead]
    assert node.ran == list(zip((0, 99, 100, 199, 200, 201), starts))
    assert sim.windows == {100: 3, 101: 2}[lookahead]


def test_an_event_at_until_plus_one_does_not_run():
    """run(until_ns=150) runs events up to 150 inclusive: the one at 151 waits."""
    sim = ParallelSimulator(0, [True, True], IdlePeer(), 100)
    node = Node(sim)
    for t in (150, 151):
        sim.schedule_for(node.actor, t, node.tick)
    sim.run(150)
    assert [t for t, _ in node.ran] == [150]


TOPOLOGY = """
name: lookahead
defaults: {latency: 100ns}
topology:
  nodes:
    s1: {kind: switch, program: ipv4_router}
    s2: {kind: switch, program: ipv4_router}
    h1: {kind: host, ip: 10.0.1.1/24}
    h2: {kind: host, ip: 10.0.2.2/24}
  links:
    - {endpoints: ["h1", "s1:p1"], latency: 50ns}
    - {endpoints: ["h2", "s2:p1"], latency: 50ns}
    - {endpoints: ["s1:p2", "s2:p2"], latency: 7us}
    - {endpoints: ["s1:p3", "s2:p3"], latency: 3us}
    - {endpoints: ["s1:p4", "s2:p4"], latency: 5us}
"""


def test_the_lookahead_is_the_smallest_cut_link_latency():
    """s1 and s2 (each with its host) on two ranks: the three links between them are cut
    (7, 3 and 5 us); the host links (50 ns) are not. The lookahead is 3 us."""
    spec = load_yaml_topology(TOPOLOGY)
    part = partition(spec, 2)
    assert part.rank_of["s1"] != part.rank_of["s2"]
    assert sorted(spec.links[i].latency_ns for i in part.cut_links) == [3_000, 5_000, 7_000]
    assert part.lookahead_ns == 3_000
