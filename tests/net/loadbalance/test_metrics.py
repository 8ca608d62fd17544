"""The figures of a load-balancing run: the bisection a perfect balancer gets (each flow's fair
share of what it crosses), percentiles and the utilisation spread."""
from __future__ import annotations

import pytest

from dataplane.net.loadbalance.metrics import (
    aggregate_goodput,
    payload_efficiency,
    percentile,
    rack_bound,
    utilisation_spread,
)

G = 100e9


def test_a_permutation_between_racks_gets_every_host_line_rate_on_a_non_blocking_fabric():
    """Two racks of two hosts, each rack two 100G uplinks: every flow gets its host's 100G."""
    pairs = [(0, 2), (1, 3), (2, 1), (3, 0)]
    rack_of = ["r1", "r1", "r2", "r2"]
    assert rack_bound(pairs, [G] * 4, rack_of, {"r1": 2 * G, "r2": 2 * G}) == [G] * 4


def test_a_rack_that_lost_an_uplink_shares_what_is_left_both_ways():
    """r1 has one 100G uplink left for its two outgoing and its two incoming flows: 50G each;
    a flow inside a rack crosses no uplink."""
    pairs = [(0, 2), (1, 3), (2, 1), (3, 0), (4, 5)]
    rack_of = ["r1", "r1", "r2", "r2", "r3", "r3"]
    got = rack_bound(pairs, [G] * 6, rack_of, {"r1": G, "r2": 2 * G, "r3": 0.0})
    assert got == [G / 2, G / 2, G / 2, G / 2, G]


def test_a_host_sending_to_several_shares_its_own_link():
    pairs = [(0, 1), (0, 2), (0, 3), (1, 0)]
    got = rack_bound(pairs, [G] * 4, ["a", "b", "c", "d"], {r: 10 * G for r in "abcd"})
    assert got == [G / 3, G / 3, G / 3, G]


def test_goodput_sums_each_flows_own_rate():
    """1 MB in 80 us is 100 Gb/s; in 160 us, 50: together 150."""
    assert aggregate_goodput([(1_000_000, 80_000), (1_000_000, 160_000)]) == pytest.approx(150.0)


def test_payload_efficiency_counts_headers_and_ethernet_overhead():
    """4096 B of payload: + BTH 12 + ICRC 4 + UDP 8 + IPv4 20 + Ethernet 14, + FCS 4, preamble 8, gap 12."""
    assert payload_efficiency(4096 * 10, 4096) == pytest.approx(4096 / (4096 + 58 + 24))


def test_percentile_is_the_nearest_rank():
    values = list(range(1, 101))
    assert percentile(values, 99) == 99 and percentile(values, 100) == 100 and percentile(values, 1) == 1
    assert percentile([5.0], 99) == 5.0 and percentile([], 50) == 0.0


def test_spread_is_the_busiest_over_the_mean():
    assert utilisation_spread([0.5, 0.5, 1.0]) == (1.0, pytest.approx(1.5))
    assert utilisation_spread([]) == (0.0, 0.0) and utilisation_spread([0.0, 0.0]) == (0.0, 0.0)
