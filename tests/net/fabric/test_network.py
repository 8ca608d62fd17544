"""Whole networks: P4 switches, hosts and links in simulated time."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.apps.traffic import Traffic
from dataplane.net.capture.pcap import read_pcap
from dataplane.net.devices.controller import Controller
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir

from ..conftest import router_hosts

LEAF_SPINE = data_dir("topologies") / "leaf-spine.yaml"
BASIC = data_dir("topologies") / "basic.yaml"


def leaf_spine(seed: int = 0) -> Network:
    return Network.from_spec(load_topology(LEAF_SPINE), seed=seed)


def test_ping_crosses_the_leaf_spine():
    """Every host reaches every other through leaves and spines running ecmp_router.p4."""
    net = leaf_spine()
    tr = Traffic(net)
    tr.pattern("pingall", 5_000_000)
    net.run(5_000_000)
    results = tr.host_results()
    assert all(r["sent"] == 3 and r["delivered"] == 3 and r["lost"] == 0 for r in results.values()), results


def test_ecmp_spreads_flows_over_both_spines():
    """Flows from h1 to h3 that differ in source port hash onto both uplinks of leaf1."""
    net = leaf_spine()
    sink = UdpSink(net.host("h3"), 7000)
    for i in range(16):
        UdpFlow(net.host("h1"), net.host("h3").ip, 100_000_000, size_bytes=500, start_ns=i * 1000,
                duration_ns=200_000, dst_port=7000, src_port=40000 + i)
    net.run(2_000_000)
    up1 = net.switch("leaf1").ports[3].stats.tx_packets
    up2 = net.switch("leaf1").ports[4].stats.tx_packets
    assert up1 > 0 and up2 > 0, (up1, up2)
    assert sum(f.packets for f in sink.flows.values()) == up1 + up2
    assert len(sink.flows) == 16


def test_bottleneck_queue_drops_what_does_not_fit(tmp_path):
    """A burst into a 10x slower link: accepted = 1 in service + the queue + what drains meanwhile."""
    topo = tmp_path / "bottleneck.yaml"
    topo.write_text(f"""
name: bottleneck
topology:
  nodes:
    s1: {{kind: switch, program: ipv4_router, entries: {data_dir('programs') / 'ipv4_router.json'}}}
{router_hosts(1, 2)}
  links:
    - {{endpoints: ["s1:p1", "h1:eth0"], bandwidth: 10Gbps, latency: 0us, queue: 1000p}}
    - {{endpoints: ["s1:p2", "h2:eth0"], bandwidth: 1Gbps, latency: 0us, queue: 10p}}
""")
    net = Network.from_spec(load_topology(topo))
    sink = UdpSink(net.host("h2"), 9000)
    burst = 100
    # 100 back-to-back 1000-byte packets at 10 Gb/s into a 1 Gb/s port with room for 10.
    flow = UdpFlow(net.host("h1"), net.host("h2").ip, 10_000_000_000, size_bytes=1000, start_ns=0,
                   duration_ns=10**9, total_bytes=burst * 1000, dst_port=9000)
    net.run(5_000_000)
    out = net.switch("s1").ports[2].stats
    assert flow.stats["sent"] == burst
    # By hand: a frame is 1042 bytes (1000 + UDP 8 + IP 20 + Ethernet 14); it arrives every 833.6 ns
    # (10 Gb/s) and leaves every 8336 ns (1 Gb/s), so one leaves per 10 arrivals. Packet k (0-based)
    # arrives at k*833.6; the queue (10 waiting, 1 in service) holds 11 by packet 10; after that one
    # more fits each time a departure frees a slot: the departures started by the last arrival
    # (t = 99*833.6) are floor(99/10) = 9 more, so 11 + 9 = 20 are accepted and 80 dropped.
    assert out.drops == 80
    received = sum(f.packets for f in sink.flows.values())
    assert received == 20 == burst - out.drops
    assert out.max_qdepth == 10


class RerouteOnFailure(Controller):
    """On a failed uplink, point every ECMP member that used it at the surviving uplink."""

    def on_link_down(self, port: int) -> None:
        entries = self.switch.table_entries("ecmp_nhop")
        good = [e for e in entries if e.args[1] != port]
        for e in entries:
            if e.args[1] == port and good:
                self.switch.table_modify("ecmp_nhop", e.handle, "set_nhop", list(good[0].args))


def test_link_failure_black_holes_until_the_controller_reroutes():
    """Flows hashed onto a failed uplink are lost until detection plus one table write, then delivered."""
    net = leaf_spine()
    leaf1 = net.switch("leaf1")
    leaf1.spec.detection_ns = 100_000
    handle = net.attach_controller("leaf1", RerouteOnFailure, write_latency_ns=50_000)
    sink = UdpSink(net.host("h3"), 7000)
    flows = [UdpFlow(net.host("h1"), net.host("h3").ip, 50_000_000, size_bytes=500, start_ns=0,
                     duration_ns=2_000_000, dst_port=7000, src_port=41000 + i) for i in range(8)]
    net.set_link("leaf1:p3", "spine1:p1", up=False, at_ns=1_000_000)
    net.run(3_000_000)
    sent = sum(f.stats["sent"] for f in flows)
    got = sum(r.packets for r in sink.flows.values())
    lost = sent - got
    assert handle.writes_done >= 1 and not handle.errors
    assert lost > 0, "traffic on the failed uplink must be lost during detection"
    # Loss is bounded by the outage: 100 us detection + 50 us write at 8 x 50 Mb/s of 542-byte frames.
    outage_ns = 100_000 + 50_000
    max_lost = int(8 * 50_000_000 * outage_ns / 1e9 / (500 * 8)) + 8
    assert lost <= max_lost, (lost, max_lost)
    # After the reroute no packet takes the dead port.
    dead = leaf1.ports[3].stats
    assert all(t < 1_000_000 + outage_ns + 10_000 for t, _ in dead.qdepth_samples)


def test_runs_are_deterministic_to_the_byte(tmp_path):
    """Same topology, traffic and seed: identical pcaps and metrics."""
    def once(d: Path) -> tuple[dict, dict]:
        net = leaf_spine(seed=7)
        tr = Traffic(net)
        tr.pattern("all-to-all", 2_000_000)
        net.capture(d)
        net.run(2_000_000)
        net.close()
        caps = {p.name: p.read_bytes() for p in sorted(d.glob("*.pcap"))}
        return caps, tr.host_results()

    a, ra = once(tmp_path / "a")
    b, rb = once(tmp_path / "b")
    assert a == b and ra == rb
    assert any(len(read_pcap(tmp_path / "a" / name)) > 10 for name in a)


def test_run_command_prints_the_json_summary(tmp_path):
    """`dataplane run` with no topology runs the built-in leaf-spine and reports every host."""
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-c", "from dataplane.cli import run; run()", "run", "--duration", "3ms",
                        "--json", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert set(data["hosts"]) == {"h1", "h2", "h3", "h4"}
    assert all(h["lost"] == 0 and h["delivered"] == h["sent"] > 0 for h in data["hosts"].values())
    assert {"tx_packets", "drops", "max_qdepth"} <= set(data["ports"]["leaf1:p1"])
    assert data["sim_time_ns"] == 3_000_000 and data["events"] > 0
    assert (out / "summary.json").is_file() and (out / "ports.csv").is_file()
    assert len(list((out / "pcap").glob("*.pcap"))) == 16


def test_tutorials_topology_json_runs_unchanged():
    """A P4-tutorials exercise (topology.json + sN-runtime.json) runs with `--program`, hosts pinging across two switches."""
    topo = Path(__file__).parents[1] / "data" / "tutorial" / "topology.json"
    r = subprocess.run([sys.executable, "-c", "from dataplane.cli import run; run()", "run", str(topo),
                        "--program", str(data_dir("programs") / "ipv4_router.p4"), "--duration", "2ms", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    hosts = json.loads(r.stdout)["hosts"]
    assert hosts == {"h1": {"sent": 1, "delivered": 1, "lost": 0, "received": 2},
                     "h2": {"sent": 1, "delivered": 1, "lost": 0, "received": 2}}
