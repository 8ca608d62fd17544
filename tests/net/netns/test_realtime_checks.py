"""The parts of real-time runs that need no root: the pacer's lag figures, --realtime on simulated
hosts, the privilege check's message, and the topology and command-line errors."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.core.pacing import WallClockPacer
from dataplane.net.fabric.network import Network, NetworkError
from dataplane.net.netns import namespaces
from dataplane.net.netns.namespaces import NetnsError
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir

TOPOLOGY = data_dir("topologies") / "source-routing.yaml"


class _Net:
    """Just what the pacer reads: a simulator with a heap and events_run, and switches."""

    class sim:
        _heap: list = []
        events_run = 0
        now = 0

    switches: dict = {}


def test_pacer_reports_the_lag_of_late_steps():
    net = _Net()
    late = []
    pacer = WallClockPacer(net, lambda target: None, warn_lag_ns=2_000_000, on_late=lambda lag, t: late.append(lag))
    for lag in [0] * 98 + [3_000_000, 9_000_000]:
        pacer._note_lag(lag, 0)
    report = pacer.report()
    assert report.max_lag_ns == 9_000_000 and report.steps == 100
    assert report.p99_lag_ns == 3_000_000         # the 99th of 100 steps, nearest rank
    assert late == [3_000_000, 9_000_000]        # warned at 2 ms, then past each doubling


@pytest.mark.no_pypy          # wall-clock bound: the PyPy re-run would only wait as long again
@pytest.mark.realtime
def test_realtime_run_of_simulated_hosts_follows_the_wall_clock():
    r = CliRunner().invoke(main, ["run", str(TOPOLOGY), "--realtime", "--duration", "100ms", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)["realtime"]
    assert data["reached_end"] and data["wall_s"] >= 0.1 and data["sim_ns"] == 100_000_000
    assert data["packets"] > 0 and data["netns_hosts"] == {}


def test_namespace_hosts_without_privileges_say_what_is_needed(monkeypatch):
    monkeypatch.setattr(namespaces.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(namespaces, "_effective_capabilities", lambda: 1 << 12)    # NET_ADMIN only
    with pytest.raises(NetnsError, match="need root, or the CAP_NET_ADMIN and CAP_SYS_ADMIN"):
        namespaces.check_privileges()


def _topology_with(tmp_path, netns: str):
    """The source-routing topology with ``netns: NETNS`` on h1, its entries found where they are."""
    text = TOPOLOGY.read_text().replace("kind: host\n      ip: 10.0.1.1/24", f"kind: host\n      netns: {netns}\n      ip: 10.0.1.1/24")
    (tmp_path / "t.yaml").write_text(text.replace("source-routing/", str(TOPOLOGY.parent / "source-routing") + "/"))
    return tmp_path / "t.yaml"


def test_netns_host_needs_a_realtime_run(tmp_path):
    _topology_with(tmp_path, "true")
    spec = load_topology(tmp_path / "t.yaml")
    assert spec.hosts["h1"].netns and not spec.hosts["h2"].netns
    with pytest.raises(NetworkError, match="host 'h1' is a namespace host .* --realtime"):
        Network.from_spec(spec)


def test_netns_field_must_be_a_boolean(tmp_path):
    _topology_with(tmp_path, "yes please")
    r = CliRunner().invoke(main, ["run", str(tmp_path / "t.yaml")])
    assert r.exit_code == 1
    assert "t.yaml:" in r.output and "topology.nodes.h1.netns: must be true or false" in r.output


def test_exec_without_a_run_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("DATAPLANE_STATE_DIR", str(tmp_path))
    monkeypatch.setattr(namespaces, "check_privileges", lambda: None)
    r = CliRunner().invoke(main, ["exec", "h1", "--", "true"])
    assert r.exit_code == 1 and "no real-time run with namespace hosts is up" in r.output
    r = CliRunner().invoke(main, ["exec", "--run", "nope", "h1", "--", "true"])
    assert r.exit_code == 1 and "nope.json: no such state file" in r.output


def test_namespace_hosts_are_recorded_and_summarised_as_hosts(tmp_path):
    """--out's recorder and the summary read a namespace host's counters as a simulated host's
    (here without its TAP device: what the network sends it is not counted)."""
    from dataplane.net.apps.traffic import Traffic
    from dataplane.net.capture import metrics
    from dataplane.net.netns.host import NetnsHost
    from dataplane.report.collect import host_counters
    from dataplane.report.record import Recorder

    spec = load_topology(_topology_with(tmp_path, "true"))
    net = Network.from_spec(spec, netns_hosts=NetnsHost)
    recorder = Recorder(net)
    net.hosts["h1"].send(bytes(20))          # a runt from the namespace: padded, counted, switched (and dropped)
    net.run(1_000_000)
    recorder.stop()
    data = metrics.summary(net, Traffic(net).host_results())
    assert data["ports"]["h1:eth0"]["tx_packets"] == 1 and data["switches"]["s1"]["packets_in"] == 1
    assert host_counters(net)["h1"]["sent"] == 1 and net.hosts["h1"].summary()["to_network"] == 1
