"""Traffic classes: queues per egress port chosen by priority, strict and DWRR schedulers,
per-queue depth, ECN marking and counters (dataplane.net.devices.tclass)."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.capture.metrics import format_table, summary, write_metrics
from dataplane.net.capture.plots import plot_queue_classes, plot_queues
from dataplane.net.devices.tclass import ClassPort, ce_marked
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_yaml_topology
from dataplane.resources import data_dir

from ..conftest import router_hosts

RUN_NS = 300_000
LOW, HIGH = 0x02, 0x22          # IP precedence 0 and 1 (tclass_router's priority), both ECT(0)


PSA_PROGRAM = Path(__file__).resolve().parent.parent / "data" / "psa_tclass.p4"


def tc_yaml(queues: str, program: str = "tclass_router") -> str:
    """h1 and h2 (10 Gb/s) send to h3 behind a 5 Gb/s port of s1; ``queues`` is s1's setting."""
    entries = data_dir("programs") / ("psa_router.json" if program.endswith("psa_tclass.p4") else "ipv4_router.json")
    return f"""
name: tc
defaults: {{latency: 1us, queue: 64KB}}
topology:
  nodes:
    s1: {{kind: switch, program: {program}, entries: {entries}, queues: {queues}}}
{router_hosts(1, 2, 3)}
  links:
    - {{endpoints: ["s1:p1", "h1"], bandwidth: 10Gbps}}
    - {{endpoints: ["s1:p2", "h2"], bandwidth: 10Gbps}}
    - {{endpoints: ["s1:p3", "h3"], bandwidth: 5Gbps}}
"""


def run(queues: str, tos=(LOW, HIGH), rates=(10_000_000_000, 10_000_000_000), program: str = "tclass_router"):
    """h1 and h2 send for RUN_NS (both at 10 Gb/s by default: the 5 Gb/s port stays backlogged
    in both classes)."""
    net = Network.from_spec(load_yaml_topology(tc_yaml(queues, program)))
    sinks = [UdpSink(net.host("h3"), 9000 + i) for i in range(2)]
    for i, h in enumerate(("h1", "h2")):
        UdpFlow(net.host(h), "10.0.3.3", rates[i], size_bytes=1000, duration_ns=RUN_NS, dst_port=9000 + i,
                tos=tos[i])
    net.run(RUN_NS)
    return net, sinks


@pytest.fixture(scope="module")
def strict():
    """The high class offers 2 Gb/s of the 5, the low class 10."""
    return run("{count: 2}", rates=(10_000_000_000, 2_000_000_000))


@pytest.fixture(scope="module")
def dwrr():
    return run("{count: 2, scheduler: dwrr, weights: [1, 3]}")


def test_strict_priority_serves_the_higher_queue_first(strict):
    net, (low, high) = strict
    port = net.switch("s1").ports[3]
    assert isinstance(port, ClassPort)
    q0, q1 = port.queue_metrics()
    # The high class loses nothing and never waits behind more than the frame in service and
    # its own burst; the low class gets the rest of the port, its queue fills and drops.
    assert q1["drops"] == 0 and q1["max_qdepth"] <= 2 and high.stats["bytes"] >= (q1["tx_packets"] - 1) * 1000
    assert q0["drops"] > 0 and q0["max_qdepth"] > 50
    assert abs(low.stats["bytes"] + high.stats["bytes"] - 5e9 / 8 * RUN_NS / 1e9) < 0.1 * 5e9 / 8 * RUN_NS / 1e9


def test_dwrr_shares_follow_the_weights(dwrr):
    net, _ = dwrr
    q0, q1 = net.switch("s1").ports[3].queue_metrics()
    share = q1["tx_bytes"] / (q0["tx_bytes"] + q1["tx_bytes"])
    assert abs(share - 0.75) <= 0.75 * 0.02


def test_one_queue_stays_the_default_and_ignores_priority():
    net, sinks = run("1")
    port = net.switch("s1").ports[3]
    assert not isinstance(port, ClassPort) and "queues" not in summary(net, {})["ports"]["s1:p3"]
    assert all(s.stats["bytes"] > 0 for s in sinks)


def test_a_priority_above_the_queues_is_dropped_as_bmv2_does():
    net, (low, high) = run("{count: 2}", tos=(LOW, 0x42))     # precedence 2 with queues 0..1
    assert high.stats["bytes"] == 0 and low.stats["bytes"] > 0
    assert net.switch("s1").drops["priority 2 out of range (2 queues)"] > 0


def test_psa_class_of_service_picks_the_queue():
    net, (low, high) = run("{count: 2}", rates=(10_000_000_000, 2_000_000_000), program=str(PSA_PROGRAM))
    q0, q1 = net.switch("s1").ports[3].queue_metrics()
    assert q1["tx_packets"] > 0 and q1["drops"] == 0 and q0["drops"] > 0 and high.stats["bytes"] > 0


def test_queue_depth_qid_and_ecn_are_per_queue(strict):
    net, _ = strict
    s1 = net.switch("s1")
    q0, q1 = s1.ports[3].queue_metrics()
    # tclass_router marks CE when the packet's own queue holds >= 32 KB: the low queue builds
    # to its 64 KB limit, the high queue (2 Gb/s, served first) never holds 32 KB.
    assert q0["max_bytes"] > 32_000 > q1["max_bytes"]
    assert q0["ce_marked"] > 0 and q1["ce_marked"] == 0
    # The program counts packets per qid, read from its @alias("queueing_metadata.qid") field.
    counter = next(v for k, v in s1.dp.instances.items() if k.endswith("queue_packets"))
    packets = [counter.packets[i] for i in range(8)]
    assert packets[0] == q0["tx_packets"] and packets[1] == q1["tx_packets"] and sum(packets[2:]) == 0


def test_per_queue_metrics_reach_csv_json_and_the_table(strict, tmp_path, plots_drawn):
    net, _ = strict
    data = summary(net, {})
    assert [q["qid"] for q in data["ports"]["s1:p3"]["queues"]] == [0, 1]
    write_metrics(tmp_path, data)
    rows = [r for r in csv.DictReader(open(tmp_path / "queues.csv")) if r["port"] == "s1:p3"]
    assert [r["qid"] for r in rows] == ["0", "1"]
    assert int(rows[1]["tx_packets"]) == data["ports"]["s1:p3"]["queues"][1]["tx_packets"] > 0
    lines = format_table(data).splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("s1:p3 "))
    assert lines[row + 1].lstrip().startswith("queues: q0")     # under its own port
    # Both depth plots draw (each queue a step line) and write their files.
    assert plot_queue_classes(net, tmp_path / "classes.png").stat().st_size > 0
    assert plot_queues(net, tmp_path / "queues.png").stat().st_size > 0


@pytest.mark.parametrize("value, message", [
    ("9", "queues count must be 1..8"),
    ("{count: 2, scheduler: wfq}", "scheduler must be strict or dwrr"),
    ("{count: 2, scheduler: dwrr, weights: [1]}", "weights must be 2 positive integers"),
    ("{count: 2, colour: red}", "unknown queues setting(s) colour"),
])
def test_bad_queue_settings_are_located_errors(value, message):
    with pytest.raises(ConfigError) as err:
        load_yaml_topology(tc_yaml(value))
    assert message in str(err.value) and ":6:" in str(err.value) and "topology.nodes.s1.queues" in str(err.value)


def test_ce_is_read_from_ipv4_and_ipv6():
    eth = bytes(12)
    assert ce_marked(eth + b"\x08\x00\x45\x03" + bytes(16))
    assert not ce_marked(eth + b"\x08\x00\x45\x02" + bytes(16))
    assert ce_marked(eth + b"\x81\x00\x00\x01" + b"\x86\xdd\x60\x30" + bytes(36))
    assert not ce_marked(eth + b"\x88\x08" + bytes(46))
