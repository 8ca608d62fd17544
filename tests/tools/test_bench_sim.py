"""tools/bench_sim.py: its RDMA workloads move what they say they move, and the decision
cache (``--without decisions``) changes none of what they measure but the time."""
from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.no_pypy     # a measurement tool's bookkeeping: nothing the interpreter changes


def test_the_permutation_moves_every_host(load_tool):
    bench = load_tool("bench_sim")
    for seed in range(5):
        p = bench.permutation(16, seed)
        assert sorted(p) == list(range(16)) and all(i != v for i, v in enumerate(p))


def test_incast_hops_are_every_data_packet_over_its_four_links(monkeypatch, load_tool):
    """16 senders, each message in 4 KB payloads, each packet host -> leaf -> spine -> leaf -> host."""
    bench = load_tool("bench_sim")
    scale = 0.01
    r = bench.run("incast", scale)
    packets = math.ceil(int(bench.SIZE["incast"] * scale) / bench.PAYLOAD)
    assert r["packet_hops"] == 16 * packets * 4
    from dataplane.net.devices.switch_node import SwitchNode

    monkeypatch.setattr(SwitchNode, "decision_cache", False)
    off = bench.run("incast", scale)
    for k in ("packet_hops", "events", "sim_time_ns", "pause_frames"):
        assert off[k] == r[k], k
