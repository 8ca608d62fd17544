"""Traffic's per-flow throughput series: no binning sawtooth around a constant rate; an app's
DSCP choosing its traffic class."""
import pytest

from dataplane.net.apps.traffic import Traffic, rebin
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir


def test_rebin_averages_groups_and_drops_a_short_tail():
    pts = [(0, 1.0), (10, 3.0), (20, 2.0), (30, 4.0), (40, 9.0)]
    assert rebin(pts, 2) == [(0, 2.0), (20, 3.0)]
    assert rebin(pts, 1) == pts
    assert rebin(pts[:1], 3) == [(0, 1.0)]


def test_all_to_all_series_are_flat_at_the_flow_rate():
    # 100 Mb/s of 1000-byte packets is one packet per 80 us: 100 us bins would alternate 1 and 2 packets.
    net = Network.from_spec(load_topology(data_dir("topologies") / "leaf-spine.yaml"))
    tr = Traffic(net)
    tr.pattern("all-to-all", 10_000_000)
    net.run(10_000_000)
    series = tr.throughput_series()
    assert len(series) == 12
    for name, points in series.items():
        inner = [g for _, g in points[1:-1]]
        assert len(inner) >= 2, name
        assert all(abs(g - 0.1) <= 0.1 * 0.15 for g in inner), (name, inner)


HOST_CLASSES = """
name: hq
defaults: {latency: 1us, queue: 64KB}
topology:
  nodes:
    s1: {kind: switch, program: tclass_router, entries: ENTRIES, queues: {count: 4, scheduler: dwrr},
         pfc: {xoff: 20KB, xon: 10KB, priorities: [3]}}
    h1: {kind: host, ip: 10.0.1.1/24, mac: "08:00:00:00:01:11", gateway: 10.0.1.10,
         arp: {10.0.1.10: "08:00:00:00:01:00"}, queues: 8}
    h2: {kind: host, ip: 10.0.2.2/24, mac: "08:00:00:00:02:22", gateway: 10.0.2.20,
         arp: {10.0.2.20: "08:00:00:00:02:00"}}
  links:
    - {endpoints: ["s1:p1", "h1"], bandwidth: 10Gbps}
    - {endpoints: ["s1:p2", "h2"], bandwidth: 2Gbps}
"""


def test_an_apps_dscp_picks_its_class_and_pfc_pauses_only_that_class_at_the_sender(tmp_path):
    from dataplane.control.config_errors import ConfigError
    from dataplane.net.capture.metrics import port_metrics
    from dataplane.net.topology.load import load_yaml_topology

    topo = HOST_CLASSES.replace("ENTRIES", str(data_dir("programs") / "ipv4_router.json"))
    net = Network.from_spec(load_yaml_topology(topo))
    (tmp_path / "t.yaml").write_text("- {app: udp, from: h1, to: h2, rate: 5Gbps, duration: 300us, dscp: 24}\n"
                                     "- {app: udp, from: h1, to: h2, rate: 5Gbps, duration: 300us}\n")
    Traffic(net).load(tmp_path / "t.yaml")
    net.run(500_000)
    m = port_metrics(net)
    q = m["h1:eth0"]["queues"]
    # s1 pauses priority 3 (DSCP 24) on the port to h1; h1 keeps sending priority 0 meanwhile.
    assert m["s1:p1"]["pause_tx"] > 0 and q[3]["pause_rx"] > 0 and q[3]["paused_ns"] > 100_000
    assert q[0]["pause_rx"] == 0 and q[0]["tx_packets"] > q[3]["tx_packets"] > 0
    assert 0 < m["h1:eth0"]["paused_ns"] <= 500_000
    bottleneck = m["s1:p2"]["queues"]
    assert bottleneck[3]["drops"] == 0 and bottleneck[0]["drops"] > 0       # lossless, and lossy
    (tmp_path / "bad.yaml").write_text("- {app: ping, from: h1, to: h2, dscp: 64}\n")
    with pytest.raises(ConfigError, match="traffic entry 1: dscp must be a whole number 0..63, got 64"):
        Traffic(net).load(tmp_path / "bad.yaml")


def test_a_traffic_file_with_an_unknown_field_is_a_located_error(tmp_path):
    from dataplane.control.config_errors import ConfigError

    net = Network.from_spec(load_topology(data_dir("topologies") / "leaf-spine.yaml"))
    bad = tmp_path / "typo.yaml"
    bad.write_text("- {app: ping, from: h1, to: h2}\n"
                   "# a comment line\n"
                   "- {app: udp, from: h1, to: h2, tos: 0x60, duraton: 1ms}\n")
    with pytest.raises(ConfigError) as err:
        Traffic(net).load(bad)
    assert err.value.line == 3
    assert "traffic entry 2: unknown field duraton, tos for app udp" in err.value.message
    bad.write_text("- {app: ftp, from: h1, to: h2}\n")
    with pytest.raises(ConfigError, match="traffic entry 1: unknown app 'ftp'") as err:
        Traffic(net).load(bad)
    assert err.value.file == str(bad) and err.value.line == 1
