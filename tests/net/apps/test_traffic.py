"""Traffic's per-flow throughput series: no binning sawtooth around a constant rate."""
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
