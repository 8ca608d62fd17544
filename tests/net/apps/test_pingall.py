"""Mininet's pingall (dataplane.net.apps.pingall): every host pings every other once, one ping at
a time, each ending at its reply, when the host gives up on ARP, or at its timeout.

tests/net/data/flood is the P4 tutorials' multicast exercise in small: an L2 switch that sends
known MACs out of one port and floods the rest to multicast group 1, whose replicas leave out
h3's port. h1 and h2 never get h3 to answer ARP, while h3's own pings, which come last, teach
them its address: Mininet shows h1 -> h2 X, h2 -> h1 X, h3 -> h1 h2. Fired all at once
(pingall-parallel), h3's ARP requests arrive while h1 and h2 still retry, and all six pings
succeed, which is what the simulated pingall showed before it went one at a time."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.apps.basic import Ping
from dataplane.net.apps.pingall import PingAll
from dataplane.net.apps.traffic import Traffic
from dataplane.net.fabric.network import Network
from dataplane.net.hosts.host import Host
from dataplane.net.topology.load import load_topology

FLOOD = Path(__file__).parents[1] / "data" / "flood"
TOPO, PROGRAM = FLOOD / "topology.json", FLOOD / "flood.p4"


def _run(*args: str) -> tuple[dict, str]:
    r = CliRunner().invoke(main, ["run", str(TOPO), "--program", str(PROGRAM), *args, "--json"])
    assert r.exit_code == 0, r.output
    text = CliRunner().invoke(main, ["run", str(TOPO), "--program", str(PROGRAM), *args]).output
    return json.loads(r.output), text


def test_pingall_goes_one_ping_at_a_time_as_mininet_and_h3_is_unreachable():
    data, text = _run()
    assert data["pingall"]["reached"] == {"h1": {"h2": True, "h3": False}, "h2": {"h1": True, "h3": False},
                                          "h3": {"h1": True, "h2": True}}
    assert "h1 -> h2 X\nh2 -> h1 X\nh3 -> h1 h2\n*** Results: 33% dropped (4/6 received)\n" in text
    assert {h: (v["sent"], v["delivered"]) for h, v in data["hosts"].items()} == {
        "h1": (2, 1), "h2": (2, 1), "h3": (2, 2)}


def test_pingall_parallel_fires_every_ping_at_once_and_all_get_through():
    data, text = _run("--traffic", "pingall-parallel")
    assert data["pingall"]["sequential"] is False
    assert all(all(row.values()) for row in data["pingall"]["reached"].values())
    assert "*** Results: 0% dropped (6/6 received)" in text


def _flood_net():
    net = Network.from_spec(load_topology(TOPO, program=PROGRAM))
    return net, Traffic(net)


def test_a_ping_whose_next_hop_never_answers_arp_ends_when_the_host_gives_up():
    """h1 -> h3 ends after the host's three ARP requests, 1 ms apart, go unanswered (3 ms), not
    at the 1 s timeout; h2 -> h3 the same, so the six pings take two such waits and a few us."""
    net, tr = _flood_net()
    pa = tr.pingall_sequential()
    net.run(10_000_000)
    assert pa.done and [ok for _, _, ok in pa.results] == [True, False, True, False, True, True]
    give_up = Host.arp_retries * Host.arp_timeout_ns
    assert 2 * give_up <= pa.done_ns < 2 * give_up + 100_000


def test_a_reply_later_than_the_timeout_is_a_lost_ping(pair):
    """The wait for each reply is ``timeout_ns``: 1 ns shorter than the round trip loses the
    ping, 1 ns longer keeps it (static ARP: the round trip is the echo there and back)."""
    sim, h1, h2, _ = pair(static_arp=True)
    probe = Ping(h1, h2.ip, count=1)
    sim.run()
    rtt = probe.rtts[0]
    for timeout, answered in ((rtt - 1, False), (rtt + 1, True)):
        sim, h1, h2, _ = pair(static_arp=True)
        pa = PingAll([h1, h2], timeout_ns=timeout)
        sim.run()
        assert pa.results[0] == ("h1", "h2", answered)
        # the next ping starts when the first ends: at its timeout, or at its reply
        assert pa.results[1] == ("h2", "h1", answered)


def test_the_run_lasts_until_pingall_is_done_unless_duration_is_given(tmp_path):
    """A switch that drops everything: each of the six pings waits its full 1 s timeout (static
    ARP, so nothing ends them sooner); without --duration the run goes on until all six ended."""
    program = tmp_path / "drop.p4"
    program.write_text(PROGRAM.read_text().replace("apply { mac_lookup.apply(); }", "apply { mark_to_drop(sm); }"))
    topo = json.loads(TOPO.read_text())
    for h in topo["hosts"].values():
        h["commands"] = [f"arp -s {o['ip'].split('/')[0]} {o['mac']}" for o in topo["hosts"].values() if o is not h]
    (tmp_path / "topology.json").write_text(json.dumps(topo))
    (tmp_path / "s1-runtime.json").write_text((FLOOD / "s1-runtime.json").read_text())
    r = CliRunner().invoke(main, ["run", str(tmp_path / "topology.json"), "--program", str(program), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["pingall"]["sent"] == 6 and data["pingall"]["received"] == 0
    r = CliRunner().invoke(main, ["run", str(tmp_path / "topology.json"), "--program", str(program),
                                  "--duration", "2500ms"])
    assert "*** Results: 100% dropped (0/2 received)\n*** the run ended before 4 of the 6 pings were done" in r.output


def test_pingall_by_name_on_several_ranks_is_refused():
    """Each ping waits for the last, which one process can hand on; several ranks cannot."""
    r = CliRunner().invoke(main, ["run", "--traffic", "pingall", "--ranks", "2"])
    assert r.exit_code == 2
    assert "pingall waits for each ping before the next, which one process does; on several ranks give " \
           "--traffic pingall-parallel" in r.output
