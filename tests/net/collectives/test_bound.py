"""The bound: line bytes of RoCEv2 messages, and ECMP's ideal share of each flow over shortest paths."""
from __future__ import annotations

import pytest

from dataplane.net.collectives.bound import link_bound, message_wire_bytes
from dataplane.net.topology.spec import HostSpec, LinkSpec, SwitchSpec, TopologySpec


def test_message_line_bytes():
    """A 4,096-byte packet: + BTH 12, ICRC 4, UDP 8, IPv4 20, Ethernet 14 captured, then FCS 4,
    preamble 8, inter-frame gap 12 on the wire; a frame is at least 64 bytes + 20."""
    full = 4096 + 12 + 4 + 8 + 20 + 14 + 4 + 8 + 12
    assert message_wire_bytes(4096, 4096) == full
    assert message_wire_bytes(4097, 4096) == full + 84           # 1 byte more: a minimum frame
    assert message_wire_bytes(0, 4096) == 84
    assert message_wire_bytes(3 * 4096, 4096) == 3 * full


def leaf_spine(host_bps: int, fabric_bps: int) -> TopologySpec:
    spec = TopologySpec("t")
    for s in ("leaf1", "leaf2", "spine1", "spine2"):
        spec.switches[s] = SwitchSpec(s, None)
    for i, leaf in ((1, "leaf1"), (2, "leaf2")):
        spec.hosts[f"h{i}"] = HostSpec(f"h{i}", i, i)
        spec.links.append(LinkSpec((f"h{i}", 0), (leaf, 1), host_bps))
    for leaf in ("leaf1", "leaf2"):
        for p, spine in ((2, "spine1"), (3, "spine2")):
            spec.links.append(LinkSpec((leaf, p), (spine, int(leaf[-1])), fabric_bps))
    return spec


def test_a_flow_splits_evenly_over_both_spines():
    b = link_bound(leaf_spine(100 * 10**9, 100 * 10**9), [("h1", "h2", 1000.0)])
    assert b.wire_bytes == 1000 and b.time_ns == pytest.approx(80.0)        # the host link carries it all
    slow = link_bound(leaf_spine(100 * 10**9, 25 * 10**9), [("h1", "h2", 1000.0)])
    assert slow.wire_bytes == 500 and slow.time_ns == pytest.approx(160.0)  # half per spine, at 25G
    assert slow.link[0] in ("leaf1", "spine1", "spine2")


def test_loads_of_flows_add_up_per_direction():
    spec = leaf_spine(100 * 10**9, 100 * 10**9)
    b = link_bound(spec, [("h1", "h2", 1000.0), ("h2", "h1", 1000.0), ("h1", "h2", 500.0)])
    assert b.link in (("h1", "leaf1"), ("leaf2", "h2")) and b.wire_bytes == 1500


def test_no_path_is_an_error():
    spec = leaf_spine(10**9, 10**9)
    spec.hosts["h3"] = HostSpec("h3", 3, 3)
    with pytest.raises(ValueError, match="no path"):
        link_bound(spec, [("h1", "h3", 10.0)])
