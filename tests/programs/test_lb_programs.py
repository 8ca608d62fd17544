"""The load-balancing programs' random choices and clock, beyond their STF tests (which fix every
other decision): spray.p4's random mode and flowlet.p4's LetFlow choice draw members uniformly;
adaptive.p4's path mode ages its remote metrics and heeds them on a share of packets; with
avoidance, a member is passed over on the drawn chance its reports built, aged as the metrics."""
from __future__ import annotations

import math

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.switch import Switch
from dataplane.resources import builtin_program

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

MEMBERS = 4
N = 4000


def router(program: str) -> Switch:
    sw = Switch.from_file(builtin_program(program), seed=11)
    sw.table_add("ipv4_lpm", "set_ecmp", ["10.0.2.0/24"], {"group": 1, "count": MEMBERS})
    for s in range(MEMBERS):
        sw.table_add("ecmp_nhop", "set_nhop", [1, s], {"dmac": f"08:00:00:00:02:0{s}", "port": s + 1})
    return sw


def spread(sw: Switch, sports) -> list[int]:
    counts = [0] * MEMBERS
    for sport in sports:
        (out,) = sw.send(0, bytes(Ether() / IP(src="192.0.2.1", dst="10.0.2.5") / UDP(sport=sport, dport=4791)))
        counts[out.port - 1] += 1
    return counts


def assert_uniform(counts: list[int]) -> None:
    n = sum(counts)
    p = 1 / MEMBERS
    bound = 4 * math.sqrt(n * p * (1 - p))
    assert all(abs(c - n * p) <= bound for c in counts), counts


def test_random_spraying_draws_each_packet_uniformly_whatever_its_flow():
    sw = router("spray")
    sw.table_set_default("spray_config", "set_spray", {"mode": 1})
    counts = spread(sw, [49152] * N)            # one flow: every packet its own draw
    assert_uniform(counts)
    assert min(counts) > 0


def test_letflow_puts_new_flowlets_on_uniformly_drawn_members_and_keeps_them():
    """Every new flow starts a flowlet (empty slot) on a random member; a flow's next packet,
    no time later, follows its first."""
    sw = router("flowlet")
    firsts = []
    for sport in range(20000, 20000 + N):
        firsts.append(spread(sw, [sport]).index(1))
    assert_uniform([firsts.count(m) for m in range(MEMBERS)])
    for sport, member in zip(range(20000, 20100), firsts):
        assert spread(sw, [sport]).index(1) == member


@pytest.mark.parametrize("seed", [1, 0x5EED0001])
def test_a_seeded_ecmp_hash_still_spreads_flows_evenly(seed):
    """The seed changes which flows share a member, not how evenly flows spread."""
    sw = router("ecmp")
    sw.table_set_default("hash_config", "set_hash", {"seed": seed, "fields": 31})
    assert_uniform(spread(sw, range(30000, 30000 + N)))


def _path_edge(age_us: int) -> Switch:
    """adaptive.p4 in path mode as the edge of leaf 10.1.1.0/24 (id 0x101), leaf 0x201 over two ports."""
    sw = Switch.from_file(builtin_program("adaptive"), seed=11)
    sw.table_add("ipv4_lpm", "set_ecmp", ["10.2.1.0/24"], {"group": 1, "count": 2})
    sw.table_add("ipv4_lpm", "set_nhop", ["10.1.1.2/32"], {"dmac": "00:00:00:00:01:02", "port": 5})
    for s in range(2):
        sw.table_add("ecmp_nhop", "set_nhop", [1, s], {"dmac": f"08:00:00:00:02:0{s}", "port": s + 1})
    sw.table_add("least_loaded.ecmp_members", "least_loaded.set_members", [1],
                 {f"port{i}": (i + 1 if i < 2 else 0) for i in range(8)})
    sw.table_set_default("path_config", "set_path", {"edge": 1, "leaf": 0x101, "age": age_us, "shift": 14,
                                                     "share": 256})
    return sw


def _feedback(sw: Switch, member: int, metric: int) -> None:
    """A packet from leaf 0x201 to our host carrying one feedback entry (the shim of adaptive.p4)."""
    word = 0x201 << 52 | member << 36 | 1 << 35 | metric << 24 | 0x0800
    pkt = bytes(Ether(type=0x88B5)) + word.to_bytes(8, "big") + bytes(IP(src="10.2.1.5", dst="10.1.1.2") / UDP())
    (out,) = sw.send(1, pkt)
    assert out.port == 5 and out.data[12:14] == b"\x08\x00"      # the shim is off before the host


def _ports(sw: Switch, n: int) -> list[int]:
    pkt = bytes(Ether() / IP(src="10.1.1.2", dst="10.2.1.5") / UDP(sport=5000, dport=4791))
    return [sw.send(5, pkt)[0].port for _ in range(n)]


@pytest.mark.parametrize("age, fresh", [(50, True), (49, False)])
def test_path_metrics_count_until_they_are_older_than_the_age(age, fresh):
    """Remote metrics reported at 100 us steer the source edge at 150 us while age >= 50; one
    microsecond past the age they count as none, and the equal ports go round both members."""
    sw = _path_edge(age)
    sw.dp.now_us = 100
    _feedback(sw, 0, 5)          # member 0's path: 5 quanta
    _feedback(sw, 1, 1)          # member 1's path: 1
    sw.dp.now_us = 150
    ports = _ports(sw, 4)
    if fresh:
        assert ports == [2, 2, 2, 2]
    else:
        assert sorted(ports) == [1, 1, 2, 2]


def test_path_metrics_steer_only_the_share_of_packets_that_heed_them():
    """share/256 of a source edge's packets heed the remote metrics (a random draw each): with
    share 64, about a quarter go by the path (member 1 here) beyond the local round robin's half."""
    sw = _path_edge(1000)
    sw.table_set_default("path_config", "set_path", {"edge": 1, "leaf": 0x101, "age": 1000, "shift": 14,
                                                     "share": 64})
    _feedback(sw, 0, 5)
    _feedback(sw, 1, 1)
    ports = _ports(sw, N)
    heeded = ports.count(2) - ports.count(1)     # heeding packets all go to port 2; the rest split evenly
    p = 64 / 256
    assert abs(heeded - N * p) <= 4 * math.sqrt(N * p * (1 - p)) + 2, ports.count(2)


def _avoiding_edge(age_us: int, up: int, down: int) -> Switch:
    sw = _path_edge(age_us)
    sw.table_set_default("avoid_config", "set_avoid", {"up": up, "down": down})
    return sw


def test_avoidance_passes_a_member_over_on_its_chance_of_the_draws():
    """A chance c (of 256) passes member 0 over on c/256 of the packets; those go to member 1,
    the rest round both: member 0 gets (1 - c/256) / 2 of them. Chances built by reports: 0 + 128
    (one congested report, step 128) is 128; from 256, a congested report holds it at 256 (not
    past) and a clear one (step 56) takes it to 200, not to 300 - 56 = 244."""
    for steps, reports, chance in (((128, 1), [1], 128), ((100, 56), [1, 1, 1, 0], 200)):
        sw = _avoiding_edge(1000, *steps)
        for metric in reports:
            _feedback(sw, 0, metric)
        ports = _ports(sw, N)
        p = (1 - chance / 256) / 2
        assert abs(ports.count(1) - N * p) <= 4 * math.sqrt(N * p * (1 - p)), (chance, ports.count(1))


@pytest.mark.parametrize("age, fresh", [(50, True), (49, False)])
def test_avoidance_counts_until_its_reports_are_older_than_the_age(age, fresh):
    """A chance of 256 (a congested report, step 256) built at 100 us passes member 0 over at
    150 us while age >= 50; past the age it counts as none, and the ports go round both members."""
    sw = _avoiding_edge(age, 256, 256)
    sw.dp.now_us = 100
    _feedback(sw, 0, 1)
    sw.dp.now_us = 150
    ports = _ports(sw, 4)
    assert ports == [2, 2, 2, 2] if fresh else sorted(ports) == [1, 1, 2, 2]
