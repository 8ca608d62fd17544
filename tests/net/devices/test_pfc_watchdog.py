"""The PFC watchdog on a switch port with one queue: a host's NIC storms pause frames at the
switch; the watchdog finds the port stalled, stops honouring pause there (dropping what it
holds and what arrives, SONiC's default), and restores it once the storm has stopped."""
from __future__ import annotations

import pytest

from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.devices.pfc import MAX_QUANTA, enable_pfc, pfc_frame
from dataplane.net.devices.pfc_watchdog import WatchedPort
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_yaml_topology
from dataplane.resources import data_dir

from ..conftest import router_hosts

DETECTION, RESTORATION = 20_000, 40_000     # ns
STORM_END = 100_000                         # h2 sends pause frames every 5 us until then
FLOW_END = 300_000                          # h1 sends 1 Gb/s of 1000-byte datagrams until then


def storm_yaml(watchdog: str) -> str:
    entries = data_dir("programs") / "ipv4_router.json"
    return f"""
name: storm
defaults: {{latency: 1us, queue: 64KB}}
topology:
  nodes:
    s1: {{kind: switch, program: ipv4_router, entries: {entries},
          pfc: {{xoff: 20KB, xon: 10KB, watchdog: {watchdog}}}}}
{router_hosts(1, 3)}
  links:
    - {{endpoints: ["s1:p1", "h1"], bandwidth: 10Gbps}}
    - {{endpoints: ["s1:p3", "h3"], bandwidth: 10Gbps}}
"""


def run_storm(action: str):
    watchdog = f"{{detection: {DETECTION}ns, restoration: {RESTORATION}ns, poll: 5us, action: {action}}}"
    net = Network.from_spec(load_yaml_topology(storm_yaml(watchdog)))
    h3 = net.host("h3")
    storm = pfc_frame(h3.mac, MAX_QUANTA, 1 << 3)     # a stuck NIC: XOFF for class 3, over and over
    for t in range(0, STORM_END, 5_000):
        h3.timer(t, h3.send_raw, storm)
    sink = UdpSink(h3, 9000)
    times: list[int] = []
    h3.on_receive(lambda frame, now: times.append(now) and False)
    UdpFlow(net.host("h1"), "10.0.3.3", 1_000_000_000, size_bytes=1000, duration_ns=FLOW_END, dst_port=9000)
    net.run(FLOW_END + 50_000)
    return net, sink, times


@pytest.mark.parametrize("action", ["drop", "forward"])
def test_the_watchdog_breaks_a_pause_storm_on_a_single_queue_port(action):
    net, sink, times = run_storm(action)
    s1 = net.switch("s1")
    port = s1.ports[3]
    wd = s1.pfc_watchdog
    assert isinstance(port, WatchedPort)
    events = [(t, qid, what) for t, name, qid, what in wd.events if name == "s1:p3"]
    assert [(qid, what) for _, qid, what in events] == [(-1, f"storm ({action})"), (-1, "restored")]
    stormed_at, restored_at = events[0][0], events[1][0]
    # Stalled from the first datagram (about 1 us in), found after the detection time (polled every 5 us).
    assert DETECTION <= stormed_at <= DETECTION + 2 * 5_000 + 1_000
    # Restored once no pause frame arrived for the restoration time (the last one at about STORM_END).
    assert STORM_END + RESTORATION - 5_000 <= restored_at <= STORM_END + RESTORATION + 5_000
    assert port.stats.pause_rx == STORM_END // 5_000 and not port.stormed and port.storms == 1
    sent = net.host("h1").stats.sent
    if action == "drop":
        # What the port held and what arrived while stormed is dropped and counted; the rest arrives.
        assert port.storm_drops > 0 and sink.stats["received"] + port.storm_drops == sent
        assert not [t for t in times if stormed_at < t < restored_at]
    else:
        # Sent despite the pause: nothing dropped, datagrams arrive while stormed.
        assert port.storm_drops == 0 and sink.stats["received"] == sent
        assert [t for t in times if stormed_at < t < restored_at]
    assert wd.stats()["storm_drops"] == port.storm_drops
    assert [t for t in times if t > restored_at + 2_000]            # delivering again after restoration
    assert port.stats.drops == 0 and sum(s1.pfc.bytes.values()) == 0


def test_enable_pfc_adds_a_watchdog_only_where_ports_can_be_watched():
    plain = Network.from_spec(load_yaml_topology(storm_yaml("null"))).switch("s1")
    assert plain.pfc_watchdog is None and not isinstance(plain.ports[3], WatchedPort)
    with pytest.raises(ValueError, match="cannot watch s1:p1, s1:p3, built without one"):
        enable_pfc(plain, {"xoff": 20_000, "watchdog": {"detection": "20us"}})
    watched = Network.from_spec(load_yaml_topology(storm_yaml("{detection: 1ms}"))).switch("s1")
    enable_pfc(watched, {"xoff": 20_000, "watchdog": {"detection": "20us"}})
    assert watched.pfc_watchdog.config.detection_ns == 20_000 and len(watched.pfc_watchdog.watched()) == 2
    assert enable_pfc(watched, False) is None and watched.pfc_watchdog is None


def test_on_ranks_the_polls_past_where_one_process_stops_are_cut(monkeypatch, one_rank_comm):
    """On a rank the watchdog polls to the end of the run (here 170 us past the last event),
    restoring the port after one process's watchdog stopped; the cut takes that back."""
    from dataplane.net.parallel import runtime

    monkeypatch.setattr(runtime, "_max_op", lambda: None)
    spec = load_yaml_topology(storm_yaml(f"{{detection: {DETECTION}ns, restoration: 100us, poll: 5us}}"))
    results = []
    for parallel in (False, True):
        sim = runtime.ParallelSimulator(0, [True] * 4, one_rank_comm, 0) if parallel else None
        net = Network.from_spec(spec, sim=sim)
        h3 = net.host("h3")
        for t in range(0, 30_000, 5_000):      # the storm and the flow end before the restoration is due
            net.sim.at(t, h3.send_raw, pfc_frame(h3.mac, 1000, 1 << 3))     # 51 us each
        UdpSink(h3, 9000)
        UdpFlow(net.host("h1"), "10.0.3.3", 1_000_000_000, size_bytes=1000, duration_ns=30_000, dst_port=9000)
        net.run(250_000)
        wd = net.switch("s1").pfc_watchdog
        results.append((wd.stats(), net.switch("s1").ports[3].stormed, wd._running))
    one, ranks = results
    assert [e.split(": ")[1] for e in one[0]["events"]] == ["storm (drop)"] and one[1:] == (True, False)
    assert ranks == one
