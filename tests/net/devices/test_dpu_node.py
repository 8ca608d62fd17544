"""DPU nodes in a network: a PNA program behind a pipeline with a packet rate, a throughput
ceiling, a latency and a bounded FIFO, with every number checked against a hand derivation."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dataplane.net.apps.basic import Ping, UdpFlow, UdpSink
from dataplane.net.apps.traffic import Traffic
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_topology

DATA = Path(__file__).parents[1] / "data"
DPU_YAML = DATA / "dpu.yaml"
FROM_NET, FROM_HOST = 0, 1          # dpu_pass.p4's dir_pkts indexes


def pair(tmp_path: Path, dpu: str) -> Network:
    """h1 - d1 - h2 on 10 Gb/s links with no propagation delay and no Ethernet overhead (these
    tests time the DPU's pipeline; the links time frames as their captured bytes, so a frame
    is at d1 a whole number of ns after it was sent); ``dpu`` is d1's YAML fields.
    Both neighbours are hosts, so p0 is named the net port explicitly."""
    topo = tmp_path / "pair.yaml"
    topo.write_text(f"""
name: pair
defaults: {{bandwidth: 10Gbps, latency: 0us, queue: 1000p, overhead: none}}
topology:
  nodes:
    d1: {{kind: dpu, program: {DATA / 'dpu_pass.p4'}, entries: {DATA / 'dpu_pass.txt'}, net_ports: [p0], {dpu}}}
    h1: {{kind: host, ip: 10.0.0.1/24, mac: "02:00:00:00:00:01", arp: {{10.0.0.2: "02:00:00:00:00:02"}}}}
    h2: {{kind: host, ip: 10.0.0.2/24, mac: "02:00:00:00:00:02", arp: {{10.0.0.1: "02:00:00:00:00:01"}}}}
  links:
    - {{endpoints: ["h1:eth0", "d1:p1"]}}
    - {{endpoints: ["d1:p0", "h2:eth0"]}}
""")
    return Network.from_spec(load_topology(topo))


def flow(net: Network, interval_ns: int, packets: int) -> tuple[UdpFlow, UdpSink]:
    """``packets`` 125-byte frames (83 B of UDP payload + 8 UDP + 20 IP + 14 Ethernet) from h1
    to h2, one every ``interval_ns`` from t = 0. A frame takes 125*8/10 = 100 ns on the 10 Gb/s
    wire and the links have no delay, so frame k reaches d1 at exactly interval*k + 100."""
    sink = UdpSink(net.host("h2"), 9000)
    rate = 83 * 8 * 10**9 // interval_ns          # UdpFlow paces by payload bits
    f = UdpFlow(net.host("h1"), net.host("h2").ip, rate, size_bytes=83, start_ns=0, total_bytes=83 * packets,
                dst_port=9000)
    return f, sink


def received(sink: UdpSink) -> int:
    return sum(r.packets for r in sink.flows.values())


def test_ping_crosses_two_dpus_and_a_switch():
    """h1 - d1 - s1 - d2 - h2: pings go through both DPUs' PNA programs, and the default port
    roles hold: the host-facing p1 is a host port, the switch-facing p0 a net port."""
    net = Network.from_spec(load_topology(DPU_YAML))
    tr = Traffic(net)
    pings = [tr.ping("h1", "h2", count=3), tr.ping("h2", "h1", count=3, start_ns=50_000)]
    net.run(2_000_000)
    assert [p.stats["received"] for p in pings] == [3, 3]
    for name in ("d1", "d2"):
        d = net.dpu(name)
        assert sorted(d.dp.net_ports) == [0]
        # 12 packets each: 6 from the host (3 requests, 3 replies), 6 from the net.
        assert d.api.counter_read("dir_pkts", FROM_HOST)[0] == 6
        assert d.api.counter_read("dir_pkts", FROM_NET)[0] == 6
        assert d.stats.processed == d.stats.outputs == 12 and d.stats.drops == {}
        # The run summary names the program's counters, summed over their cells.
        assert d.summary()["counters"] == {"dir_pkts": 12, "port_pkts": 12}


def test_rtt_through_dpus_is_links_plus_pipeline_slots_plus_latency():
    """One ping, h1 -> h2 and back, through the default DPUs (2 us latency, 150 Mpps, 400 Gb/s).
    A ping frame is 98 bytes (56 data + 8 ICMP + 20 IP + 14 Ethernet). Each of the 4 links a
    way costs serialization of the frame with its Ethernet overhead (FCS 4, preamble + SFD 8,
    gap 12: 122 B), floor(122*8/10) = 97 ns, plus 1 us; each of the 2 DPUs a way costs a
    slot of max(1e9/150e6 = 6.67, 98*8/400 = 1.96) = 6.67 ns (the pipeline counts the frame,
    not the wire), its end rounded up to a whole ns (7), plus 2 us: one way is
    4*1097 + 2*2007 = 8402 ns, the RTT 16804 ns."""
    net = Network.from_spec(load_topology(DPU_YAML))
    ping = Ping(net.host("h1"), net.host("h2").ip, count=1)
    net.run(1_000_000)
    link = (98 + 4 + 8 + 12) * 8 // 10 + 1_000
    dpu = 7 + 2_000
    assert ping.rtts == [2 * (4 * link + 2 * dpu)]


def test_dpu_latency_adds_exactly_its_value_per_traversal_to_the_rtt():
    """Set programmatically on the spec: a ping crosses the two DPUs twice each, so 5 us of
    DPU latency adds 4 x 5 us to the RTT against a 0 us DPU, and nothing else changes."""
    rtts = {}
    for latency in (0, 5_000):
        spec = load_topology(DPU_YAML)
        for d in spec.dpus.values():
            d.latency_ns = latency
        net = Network.from_spec(spec)
        ping = Ping(net.host("h1"), net.host("h2").ip, count=3, interval_ns=100_000)
        net.run(1_000_000)
        assert ping.stats["received"] == 3
        rtts[latency] = ping.rtts
    assert [b - a for a, b in zip(rtts[0], rtts[5_000])] == [20_000] * 3


@pytest.mark.parametrize("queue", ["10p", "1250B"])     # 1250 B = 10 of the 125-byte frames
def test_offered_load_above_the_packet_rate_queues_then_drops(tmp_path, queue):
    """100 frames, one per 100 ns (10 Mpps), into a 1 Mpps pipeline (1000 ns slot) with room
    for 10 waiting. Frame k arrives at 100k + 100. Frame 0 starts at once; frames 1-9 wait;
    frame 10 arrives as frame 1 enters the pipeline (t = 1100) and waits (9 waiting); frame 11
    makes 10; frames 12-19 find it full. From then one slot frees per 1000 ns, i.e. per 10
    arrivals, and the arrival that sees it is frame 20, 30, ..., 90: 8 more. Accepted:
    12 + 8 = 20; dropped 80; at most 10 waiting. The pipeline is busy without a gap from
    t = 100 to 100 + 20*1000 = 20100, so at 40000 the utilisation is 20000/40000 = 0.5."""
    net = pair(tmp_path, f"packet_rate: 1Mpps, latency: 0us, queue: {queue}")
    f, sink = flow(net, interval_ns=100, packets=100)
    d = net.dpu("d1")
    net.run(5_100)
    assert d.busy_ns() == 5_000          # busy since t = 100 without a gap
    net.run(40_000)
    assert f.stats["sent"] == 100
    assert d.stats.received == 100
    assert d.stats.drops == {"pipeline queue full": 80}
    assert d.stats.processed == 20 and received(sink) == 20
    assert d.stats.max_queue == 10
    # Accepted frame j (0-based) leaves d1 at 100 + 1000(j+1) and reaches h2 100 ns later;
    # frames 0-11 were sent at 100j, frames 20, 30, ..., 90 waited a full queue (10 slots).
    delays = list(next(iter(sink.flows.values())).delays)
    assert delays == [1200 + 900 * j for j in range(12)] + [11_200] * 8
    assert d.busy_ns() == 20_000 and d.utilisation() == 0.5 == d.utilisation(40_000)
    with pytest.raises(ValueError):
        d.utilisation(5_000)             # before the last arrival: the past is not kept


@pytest.mark.parametrize("cost", ["packet_rate: 1Mpps, rate: 400Gbps", "packet_rate: 150Mpps, rate: 1Gbps"])
def test_utilisation_is_offered_load_over_capacity(tmp_path, cost):
    """One 125-byte frame per 4000 ns. The slot is 1000 ns either way: 1/1 Mpps, or 1000 bits
    at 1 Gb/s (the throughput ceiling beats 150 Mpps's 6.67 ns). Offered / capacity is
    1000/4000 = 0.25 (in bits: 250 Mb/s of a 1 Gb/s ceiling). 100 frames arrive at
    4000k + 100 and each is served before the next, so at t = 400000 the pipeline has been
    busy 100 x 1000 ns: utilisation 0.25, nothing waits, nothing drops."""
    net = pair(tmp_path, f"{cost}, latency: 0us")
    f, sink = flow(net, interval_ns=4000, packets=100)
    net.run(400_000)
    d = net.dpu("d1")
    assert received(sink) == 100 and d.stats.drops == {} and d.stats.max_queue == 0
    assert d.utilisation() == 0.25


def test_each_packet_costs_one_simulator_event(tmp_path):
    """The pipeline is booked on arrival, so a packet adds exactly one event (its output),
    however deep the FIFO; a dropped one adds none."""
    net = pair(tmp_path, "packet_rate: 1Mpps, queue: 3p")
    d = net.dpu("d1")
    frame = bytes.fromhex("020000000002" "020000000001" "0800") + bytes(100)
    before = net.sim.pending
    for _ in range(6):                 # 1 in the pipeline, 3 waiting, 2 dropped
        d.receive(d.ports[1], frame)
    assert net.sim.pending - before == 4
    assert d.stats.drops == {"pipeline queue full": 2} and d.queue_depth() == 3


def test_pna_drops_and_unmapped_ports_are_counted_by_reason(tmp_path):
    """A frame from a port the `pass` table does not map is dropped by the program (PNA's
    drop reason); the pipeline still spent its slot on it."""
    net = pair(tmp_path, "packet_rate: 1Mpps, latency: 0us")
    d = net.dpu("d1")
    d.api.table_delete("pass", 0)              # the p0 => p1 entry (handles count from 0)
    ping = Ping(net.host("h1"), net.host("h2").ip, count=2, interval_ns=100_000)
    net.run(300_000)
    assert ping.stats["received"] == 0
    assert d.stats.processed == 4               # 2 requests forwarded, 2 replies dropped
    assert d.stats.drops == {"dropped in main control (drop_packet, or no send_to_port)": 2}
    assert d.busy_ns() == 4_000


def test_a_failed_dpu_loses_what_it_holds_and_forwards_again_when_back(tmp_path):
    """The overload run of the drop test, with d1 down at t = 5050. By then frames 0-49 have
    arrived and 15 were accepted (0-11, 20, 30, 40); slots end at 100 + 1000(j+1), so 4 are out
    (1100 ... 4100) and 11 are lost (1 in the pipeline, 10 waiting). The pipeline was busy from
    100 to 5050 only. Back up at 20 us, a ping gets through."""
    net = pair(tmp_path, "packet_rate: 1Mpps, latency: 0us, queue: 10p")
    f, sink = flow(net, interval_ns=100, packets=100)
    net.set_node("d1", False, at_ns=5_050)
    net.set_node("d1", True, at_ns=20_000)
    ping = Ping(net.host("h1"), net.host("h2").ip, count=1, start_ns=30_000)
    d = net.dpu("d1")
    net.run(20_000)
    assert d.busy_ns() == 4_950
    net.run(200_000)
    assert received(sink) == 4
    assert d.stats.drops == {"pipeline queue full": 35, "node down": 11}
    assert ping.stats["received"] == 1


def test_run_command_reports_dpus_and_captures_their_ports(tmp_path):
    """`dataplane run --json` keeps its keys and adds "dpus"; --out writes a pcap per DPU port."""
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-c", "from dataplane.cli import run; run()", "run", str(DPU_YAML),
                        "--duration", "2ms", "--json", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert {"hosts", "ports", "switches", "sim_time_ns", "events", "log", "dpus"} <= set(data)
    assert data["hosts"]["h1"] == {"sent": 1, "delivered": 1, "lost": 0, "received": 2}
    d1 = data["dpus"]["d1"]
    # pingall: h1 -> h2 and h2 -> h1, request and reply each: 4 packets through each DPU.
    assert d1["processed"] == 4 and d1["drops"] == {} and 0 < d1["utilisation"] < 1e-4
    assert data["ports"]["d1:p0"]["tx_packets"] == 2
    assert {"d1-p0.pcap", "d1-p1.pcap", "d2-p0.pcap", "d2-p1.pcap"} <= {p.name for p in (out / "pcap").iterdir()}
