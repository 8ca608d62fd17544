"""INT roles from a topology: every switch's node id in the topology's order, sources and sinks
at the host ports, a watchlist that limits INT to the flows named, and the values that cannot be
set refused before anything is (the stack's 8-bit length, the spec's reserved bits)."""
from __future__ import annotations

import pytest

from dataplane.net.apps.basic import UdpFlow
from dataplane.net.apps.int_collector import IntCollector
from dataplane.net.fabric.network import Network
from dataplane.net.telemetry.int_roles import configure_int, report_source_ip
from dataplane.net.telemetry.int_wire import hop_words, instruction_bitmap
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir


@pytest.fixture
def net():
    return Network.from_spec(load_topology(data_dir("topologies") / "int-leaf-spine.yaml"), seed=1)


def test_roles_follow_the_topology(net):
    """Node ids 1.. in the topology's order; the leaves' host ports are sources and sinks."""
    d = configure_int(net, "h1")
    assert d.node_ids == {"spine1": 1, "spine2": 2, "leaf1": 3, "leaf2": 4}
    assert d.host_ports == {"spine1": [], "spine2": [], "leaf1": [1, 2], "leaf2": [1, 2]}
    assert d.collector == "h1" and report_source_ip(4) == 0x0AFF0004


def test_watchlist_limits_int_to_the_flows_named(net):
    """Only h3's flow to h2 port 7000 is watched: its reports come, h4's flow passes without."""
    d = configure_int(net, "h1", flows=[{"src": "10.0.2.2", "dport": 7000}])
    collector = IntCollector(net.host("h1"), d.report_port, node_names=d.node_names)
    for src in ("h3", "h4"):
        UdpFlow(net.host(src), net.host("h2").ip, rate_bps=1_000_000_000, size_bytes=500, duration_ns=20_000,
                dst_port=7000)
    net.run(200_000)
    assert [f["src"] for f in collector.summary()["flows"]] == ["10.0.2.2"]
    assert collector.summary()["flows"][0]["reports"] == 5            # 20 us of 1 Gb/s at 500 B


def test_largest_stack_is_accepted_and_one_more_hop_refused(net):
    """Hops times Hop ML may fill the 252 words after the INT-MD header, not pass them."""
    words = hop_words(0xFD00)
    most = 252 // words
    configure_int(net, None, instructions=0xFD00, max_hops=most)
    with pytest.raises(ValueError, match=f"at most {most} hops"):
        configure_int(net, None, instructions=0xFD00, max_hops=most + 1)


@pytest.mark.parametrize("kwargs, message", [
    ({"instructions": 0x0040}, "only bits 0-8 and 15"),
    ({"instructions": 0}, "must be 16 bits"),
    ({"max_hops": 0}, "max_hops 0 must be 1..255"),
    ({"report_port": 5000}, "not INT's own 5000"),
    ({"flows": [{"src": "10.0.2.2", "sport": 1}]}, "src, dst and dport only"),
    ({"flows": [{"dport": 70000}]}, "dport must be 0..65535"),
])
def test_bad_settings_are_refused(net, kwargs, message):
    """Reserved instruction bits, an empty bitmap, no hops, the INT port for reports, unknown
    or out-of-range watchlist keys: ValueError, and no table written."""
    with pytest.raises(ValueError, match=message):
        configure_int(net, "h1", **kwargs)
    assert net.switch("leaf1").api.table_entries("MyIngress.int_source") == []


def test_a_node_id_bitmap_is_one_word(net):
    """A bitmap of node ids only gives 1-word hops: the smallest stack."""
    d = configure_int(net, None, instructions=instruction_bitmap("node_id"), max_hops=252)
    assert d.max_hops == 252 and d.instructions == 0x8000
