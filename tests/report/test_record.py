"""dataplane.report.record: sampling a running network changes nothing in the run, counts
table hits per table and node, keeps its samples bounded and never keeps a run alive."""
from __future__ import annotations

from dataplane.net.apps.traffic import Traffic
from dataplane.net.capture import metrics
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_topology
from dataplane.report.record import BUCKETS, Recorder, recording
from dataplane.resources import data_dir


def _leaf_spine(traffic: str = "all-to-all", until: int = 300_000, record: bool = True):
    net = Network.from_spec(load_topology(data_dir("topologies") / "leaf-spine.yaml"), seed=3)
    tr = Traffic(net)
    tr.pattern(traffic, until)
    rec = Recorder(net) if record else None
    net.run(until)
    if rec is not None:
        rec.stop()
    return net, tr, rec


def test_recording_leaves_the_run_as_it_was():
    plain, tr0, _ = _leaf_spine(record=False)
    watched, tr1, _ = _leaf_spine(record=True)
    assert metrics.summary(watched, tr1.host_results()) == metrics.summary(plain, tr0.host_results())


def test_table_hits_and_misses_count_every_lookup():
    net, _, rec = _leaf_spine()
    for name, node in net.switches.items():
        counts = rec.tables[name]
        # every packet a switch takes in is looked up in ipv4_lpm once (ecmp_router.p4)
        lpm = counts.hits.get("MyIngress.ipv4_lpm", 0) + counts.misses.get("MyIngress.ipv4_lpm", 0)
        assert lpm == node.packets_in > 0
        assert node.trace is None          # handed back when the recorder stopped


def test_samples_stay_bounded_as_the_run_grows():
    net, _, rec = _leaf_spine(until=3_000_000)
    assert len(rec.times) < 2 * BUCKETS
    assert rec.period > 1_000
    assert rec.times == sorted(rec.times) and rec.times[-1] == net.sim.now
    tx = sum(p.stats.tx_bytes for p in rec.ports)
    assert sum(rec.port_samples[-1][k][0] for k in range(len(rec.ports))) == tx


def test_a_lone_sampler_does_not_keep_an_open_ended_run_alive():
    net = Network.from_spec(load_topology(data_dir("topologies") / "leaf-spine.yaml"))
    Traffic(net).pattern("pingall", 0)
    rec = Recorder(net)
    net.run()                            # no end time: returns when the pings are done
    assert net.sim.pending == 0 and rec.times[-1] < 10_000_000


def test_recording_sees_every_network_built_inside_it():
    seen = []
    with recording(lambda net: seen.append(net)) as recorders:
        a = Network.from_spec(load_topology(data_dir("topologies") / "basic.yaml"))
        b = Network.from_spec(load_topology(data_dir("topologies") / "basic.yaml"))
    Network.from_spec(load_topology(data_dir("topologies") / "basic.yaml"))
    assert seen == [a, b] and [r.net for r in recorders] == [a, b]


def test_a_saturated_link_charts_as_a_flat_rate_not_a_sawtooth():
    from dataplane.report.series import series

    net = Network.from_spec(load_topology(data_dir("topologies") / "basic.yaml"), seed=1)
    Traffic(net).udp("h1", "h2", rate_bps=10_000_000_000, size=1000, start_ns=0)
    rec = Recorder(net)
    net.run(200_000)
    rec.stop()
    s = series(net, rec, {}, None)
    rates = [g for t, g in zip(s["t_ns"], dict(s["throughput_gbps"])["h1:eth0"]) if 20_000 < t < 180_000]
    # intervals of 2 us hold two or three 0.8 us frames: counted whole, the rate swings by a third
    assert len(rates) > 50 and max(rates) - min(rates) < 0.02 * max(rates), rates


def test_the_recorder_and_a_queue_sampler_do_not_keep_each_other_running():
    from dataplane.net.devices.queue_bytes import QueueSampler

    def run(record: bool):
        net = Network.from_spec(load_topology(data_dir("topologies") / "basic.yaml"), seed=1)
        Traffic(net).ping("h1", "h2", count=2)
        sampler = QueueSampler(net.sim, net.hosts["h1"].ports[0], 1_000, end_ns=1_000_000_000)
        rec = Recorder(net) if record else None
        net.run()                        # open-ended: ends when only samplers are left
        if rec is not None:
            rec.stop()
        return net.sim.now, list(sampler.times)

    assert run(record=True) == run(record=False)
    assert run(record=False)[0] < 1_000_000          # far from the sampler's 1 s end


def test_on_ranks_the_samples_past_where_one_process_stops_are_cut_and_their_thinnings_undone(monkeypatch, one_rank_comm):
    """As a rank's sampler does, this one samples to the end of the run (3 ms, 2 ms past where
    one process's stopped, and thinning its samples past it); the cut leaves what one
    process's sampler kept."""
    from dataplane.net.parallel import runtime

    monkeypatch.setattr(runtime, "_max_op", lambda: None)
    spec = load_topology(data_dir("topologies") / "leaf-spine.yaml")
    recorders = []
    for parallel in (False, True):
        local = [True] * (1 + len(spec.switches) + len(spec.hosts))
        sim = runtime.ParallelSimulator(3, local, one_rank_comm, 0) if parallel else None
        net = Network.from_spec(spec, seed=3, sim=sim)
        Traffic(net).pattern("all-to-all", 1_000_000)
        rec = Recorder(net)
        net.run(3_000_000)
        recorders.append(rec)
    one, ranks = recorders
    assert ranks.sim.observer_runs > one.events + 200 and ranks.events == one.events    # it was cut
    assert one.period > 1_000 and ranks.sim.now == 3_000_000
    for field in ("times", "port_samples", "depth_samples", "ce_samples", "program_drop_samples", "period"):
        assert getattr(ranks, field) == getattr(one, field), field
