"""The load-balancing programs' random choices, beyond their STF tests (which fix every other
decision): spray.p4's random mode and flowlet.p4's LetFlow choice draw members uniformly."""
from __future__ import annotations

import math

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.switch import Switch
from dataplane.resources import builtin_program

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
