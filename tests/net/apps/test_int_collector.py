"""The INT collector's records, hop by hop, against what the fabric itself saw: every hop's egress
timestamp is the time its frame went onto the wire in that port's pcap, its egress tx bytes the
bytes of the frames that port's pcap holds before it, its ingress timestamp the time the frame
arrived at the switch, its hop latency the difference, and its queue occupancy the bytes of the
items left in that port's queue when the packet left it (summed from the queue, not read from the
switch's counter)."""
from __future__ import annotations

from collections import defaultdict

import pytest

from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.apps.int_collector import IntCollector, format_summary
from dataplane.net.capture.pcap import read_pcap
from dataplane.net.fabric.network import Network
from dataplane.net.telemetry.int_roles import configure_int
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir

TOPOLOGY = data_dir("topologies") / "int-leaf-spine.yaml"


def _spy(net):
    """Wrap every switch's receive and dequeue: arrival times by (switch, port), and the bytes
    waiting in a port's queue when each packet left it, by (switch, port, time)."""
    arrivals: dict[tuple[str, int], set[int]] = defaultdict(set)
    queued: dict[tuple[str, int, int], int] = {}
    for node in net.switches.values():
        receive, dequeue = node.receive, node.dequeue

        def on_receive(port, data, _node=node, _receive=receive):
            arrivals[(_node.name, port.number)].add(_node.sim.now)
            _receive(port, data)

        def on_dequeue(port, item, enq_time, enq_depth, _node=node, _dequeue=dequeue):
            queued[(_node.name, port.number, _node.sim.now)] = sum(entry[1] for entry in port.queue)
            return _dequeue(port, item, enq_time, enq_depth)

        node.receive, node.dequeue = on_receive, on_dequeue
    return arrivals, queued


@pytest.fixture(scope="module")
def incast_run(tmp_path_factory):
    """h3 and h4 (leaf2) send 8 Gb/s each to h2 (leaf1) for 100 us: leaf1's port to h2 queues.
    Reports go to h1."""
    out = tmp_path_factory.mktemp("int")
    net = Network.from_spec(load_topology(TOPOLOGY), seed=3)
    deployment = configure_int(net, "h1")
    collector = IntCollector(net.host("h1"), deployment.report_port, node_names=deployment.node_names)
    arrivals, queued = _spy(net)
    net.capture(out)
    sink = UdpSink(net.host("h2"), 7000)
    for name in ("h3", "h4"):
        UdpFlow(net.host(name), net.host("h2").ip, rate_bps=8_000_000_000, size_bytes=1000, start_ns=1_000,
                duration_ns=100_000, dst_port=7000)
    net.run(400_000)
    net.close()
    pcaps = {port.name: read_pcap(out / f"{port.name.replace(':', '-')}.pcap")
             for node in net.switches.values() for port in node.ports.values()}
    return net, deployment, collector, arrivals, queued, pcaps, sink


def test_every_hop_matches_the_fabric(incast_run):
    """Each record's timestamps, tx bytes, latency, ports and queue are the fabric's, hop by hop."""
    net, deployment, collector, arrivals, queued, pcaps, _ = incast_run
    names = deployment.node_names
    records = collector.records()
    assert collector.stats["bad_reports"] == 0 and collector.stats["truncated_reports"] == 0
    assert len(records) > 100
    by_report: dict[int, list[dict]] = defaultdict(list)
    for rec in records:
        by_report[rec["time_ns"] * 10_000 + rec["flow"]].append(rec)
    for rec in records:
        node = net.switch(names[rec["node_id"]])
        out_port = node.ports[rec["egress_port"]]
        frames = pcaps[out_port.name]
        times = [t for t, _ in frames]
        assert rec["egress_ts_ns"] in times, (rec, out_port.name)
        before = sum(len(data) for t, data in frames if t < rec["egress_ts_ns"])
        assert rec["egress_tx_bytes"] == before % (1 << 32)
        assert rec["ingress_ts_ns"] in arrivals[(node.name, rec["ingress_port"])]
        assert rec["hop_latency_ns"] == rec["egress_ts_ns"] - rec["ingress_ts_ns"]
        assert rec["queue_bytes"] == queued[(node.name, rec["egress_port"], rec["egress_ts_ns"])]
    # The path: leaf2 -> a spine -> leaf1, each hop entering where the last one's frame arrived.
    for hops in by_report.values():
        if len(hops) < 2:
            continue
        hops.sort(key=lambda r: r["hop"])
        for a, b in zip(hops, hops[1:]):
            port = net.switch(names[a["node_id"]]).ports[a["egress_port"]]
            assert (port.peer.node.name, port.peer.number) == (names[b["node_id"]], b["ingress_port"])
            assert b["ingress_ts_ns"] > a["egress_ts_ns"]


def test_the_incast_queue_shows_where_the_fabric_queued(incast_run):
    """16 Gb/s for a 10 Gb/s port: the hop whose records hold the largest queue is the port whose
    queue the fabric saw deepest, near its 64 packets; the packets waited there at least as long as
    10 Gb/s takes to send that many bytes; the sink's hop (INT stripped, 10 Gb/s in) has no queue."""
    net, deployment, collector, _, queued, _, sink = incast_run
    data = collector.summary()
    flows = [f for f in data["flows"] if f["dst"] == "10.0.1.3"]
    assert len(flows) == 2 and sum(f["reports"] for f in flows) == sum(r.packets for r in sink.flows.values())
    hops = [h for f in flows for h in f["hops"]]
    worst = max(hops, key=lambda h: h["queue_bytes"]["max"])
    ports = [p for node in net.switches.values() for p in node.ports.values()]
    deepest = max(ports, key=lambda p: p.stats.max_qdepth)
    assert (worst["node"], worst["egress_port"]) == (deepest.node.name, deepest.number)
    assert worst["queue_bytes"]["max"] > 60 * 1000
    assert worst["latency_ns"]["max"] >= worst["queue_bytes"]["max"] * 8 / 10
    assert worst["queue_bytes"]["max"] == max(q for k, q in queued.items() if k[:2] == (deepest.node.name,
                                                                                       deepest.number))
    for f in flows:
        assert [h["hop"] for h in f["hops"]] == [0, 1, 2]
        assert f["hops"][-1]["node"] == "leaf1" and f["hops"][-1]["queue_bytes"]["max"] == 0
        assert len(f["hops"][0]["series"]) <= 200
        assert [p[0] for p in f["hops"][0]["series"]] == sorted(p[0] for p in f["hops"][0]["series"])
    text = format_summary(data)
    assert f"hop {worst['hop']} {worst['node']} port {worst['ingress_port']} -> {worst['egress_port']}" in text
