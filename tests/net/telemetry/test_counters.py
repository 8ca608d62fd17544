"""A switch's OpenConfig leaves for gNMI are the fabric's own counters: per port what --json's
``ports`` says (its ``queues`` per traffic class), the link's state as oper-status, the queue's
depth at the instant read, and the schema names every leaf given."""
from __future__ import annotations

from dataplane.net.apps.basic import UdpFlow
from dataplane.net.capture.metrics import port_metrics
from dataplane.net.fabric.network import Network
from dataplane.net.telemetry.counters import counter_schema, switch_leaves
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir


def _network(tmp_path, queues: bool = False) -> Network:
    src = data_dir("topologies") / "leaf-spine.yaml"
    text = src.read_text().replace('"leaf-spine/', f'"{src.parent}/leaf-spine/')
    if queues:
        text = text.replace("leaf2: {kind: switch, program: ecmp_router,",
                            "leaf2: {kind: switch, program: ecmp_router, queues: {count: 2},")
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return Network.from_spec(load_topology(path), seed=1)


def _leaf(leaves: dict, *elems: str) -> object:
    """The value at ``a/b[k=v]/c``-style elements."""
    for path, value in leaves.items():
        if "/".join(n + "".join(f"[{k}={v}]" for k, v in keys) for n, keys in path) == "/".join(elems):
            return value
    raise KeyError(elems)


def test_leaves_are_the_ports_counters_and_states(tmp_path):
    """Two 8 Gb/s flows into h3 for 100 us: leaf2's port p1 queues and drops; every counter leaf
    is --json's; the queue depth read mid-run is the queue's; a failed link reads DOWN."""
    net = _network(tmp_path)
    for h in ("h1", "h4"):
        UdpFlow(net.host(h), net.host("h3").ip, rate_bps=8_000_000_000, size_bytes=1000, duration_ns=100_000)
    net.run(60_000)
    port = net.switch("leaf2").ports[1]
    mid = switch_leaves(net.switch("leaf2"))
    queue = "qos/interfaces/interface[interface-id=p1]/output/queues/queue[name=0]/state"
    assert _leaf(mid, queue, "current-queue-len") == len(port.queue) > 0
    assert _leaf(mid, queue, "current-queue-octets") == port.queue_bytes > 0
    net.run(400_000)
    leaves = switch_leaves(net.switch("leaf2"))
    ports = port_metrics(net)
    for name in ("p1", "p2", "p3", "p4"):
        m = ports[f"leaf2:{name}"]
        counters = f"interfaces/interface[name={name}]/state/counters"
        got = {leaf: _leaf(leaves, counters, leaf) for leaf in ("in-octets", "in-pkts", "out-octets", "out-pkts",
                                                                "out-discards", "out-errors")}
        assert got == {"in-octets": m["rx_bytes"], "in-pkts": m["rx_packets"], "out-octets": m["tx_bytes"],
                       "out-pkts": m["tx_packets"], "out-discards": m["drops"], "out-errors": m["lost"]}
        assert _leaf(leaves, f"interfaces/interface[name={name}]/state", "oper-status") == "UP"
    assert ports["leaf2:p1"]["drops"] > 0 and _leaf(leaves, queue, "max-queue-len") == 64     # the 64p queue filled
    net.set_link("leaf2:p1", "h3:eth0", False)
    net.run(net.sim.now + 1)
    assert _leaf(switch_leaves(net.switch("leaf2")), "interfaces/interface[name=p1]/state", "oper-status") == "DOWN"


def test_traffic_classes_give_a_queue_each(tmp_path):
    """With queues: {count: 2} each queue is a list entry with its own counters (port_metrics'
    ``queues``); ecmp_router sets no priority, so queue 0 carries everything."""
    net = _network(tmp_path, queues=True)
    UdpFlow(net.host("h1"), net.host("h3").ip, rate_bps=1_000_000_000, size_bytes=1000, duration_ns=50_000)
    net.run(200_000)
    leaves = switch_leaves(net.switch("leaf2"))
    rows = port_metrics(net)["leaf2:p1"]["queues"]
    for row in rows:
        state = f"qos/interfaces/interface[interface-id=p1]/output/queues/queue[name={row['qid']}]/state"
        assert (_leaf(leaves, state, "transmit-pkts"), _leaf(leaves, state, "transmit-octets"),
                _leaf(leaves, state, "dropped-pkts"), _leaf(leaves, state, "max-queue-len")) == (
            row["tx_packets"], row["tx_bytes"], row["drops"], row["max_qdepth"])
    assert [r["tx_packets"] for r in rows] == [7, 0]       # 50 us of 1 Gb/s at 1000 B: 7 packets


def test_the_schema_names_every_leaf(tmp_path):
    """Walking the schema with each leaf's path reaches a leaf (None), lists where keys are."""
    net = _network(tmp_path)

    class ListNode:
        def __init__(self, key, children):
            self.key, self.children = key, children

    schema = counter_schema(ListNode)
    for path in switch_leaves(net.switch("leaf1")):
        node = schema
        for name, keys in path:
            node = node.children[name] if isinstance(node, ListNode) else node[name]
            assert (keys != ()) == isinstance(node, ListNode) and all(k == node.key for k, _ in keys)
        assert node is None, path
