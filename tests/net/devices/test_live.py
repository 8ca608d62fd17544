"""A network's switches as live switches: held at time 0 until written, then paced to the
wall clock; CPU-port packets to listeners, injected packets into the pipeline."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.switch import Switch
from dataplane.net.apps.traffic import Traffic
from dataplane.net.devices.live import LiveNetwork
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_topology
from dataplane.resources import builtin_program

TOPO = Path(__file__).parents[1] / "data" / "served" / "topology.json"
PROGRAM = builtin_program("ipv4_router")
CPU = 64


def _network():
    net = Network.from_spec(load_topology(TOPO, program=PROGRAM))
    tr = Traffic(net)
    tr.pattern("pingall", 1_000_000)
    return net, tr


def _configured(name: str) -> Switch:
    """What a controller would load into switch ``name``: the router with its routes."""
    sw = Switch.from_file(PROGRAM, name=name)
    local, remote = ("10.0.1.1", "10.0.2.2") if name == "s1" else ("10.0.2.2", "10.0.1.1")
    mac = "08:00:00:00:01:11" if name == "s1" else "08:00:00:00:02:22"
    sw.table_add("ipv4_lpm", "ipv4_forward", [f"{local}/32"], [mac, 1])
    sw.table_add("ipv4_lpm", "ipv4_forward", [f"{remote}/32"], ["08:00:00:00:99:99", 2])
    sw.table_add("ipv4_lpm", "ipv4_forward", ["10.0.9.0/24"], ["08:00:00:00:09:09", CPU])
    return sw


def _run_in_thread(live, until_ns):
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("done", live.run(until_ns)), daemon=True)
    t.start()
    return t, result


def test_nodes_follow_the_network_order_with_device_ids_from_the_first():
    net, _ = _network()
    live = LiveNetwork(net, first_device_id=3, cpu_port=CPU)
    assert [(n.name, n.device_id, n.cpu_port) for n in live.nodes] == [("s1", 3, CPU), ("s2", 4, CPU)]


def test_without_cpu_port_each_switch_takes_its_own_from_the_topology():
    spec = load_topology(TOPO, program=PROGRAM)
    spec.switches["s2"].params["cpu_port"] = 510       # topology.json's "cpu_port" of a switch
    live = LiveNetwork(Network.from_spec(spec))
    assert [n.cpu_port for n in live.nodes] == [None, 510]
    assert [n.cpu_port for n in LiveNetwork(Network.from_spec(spec), cpu_port=CPU).nodes] == [CPU, CPU]


def test_the_network_holds_still_until_a_write_and_settle_s_of_quiet_then_runs_paced():
    net, tr = _network()
    sw1, sw2 = _configured("s1"), _configured("s2")   # compiled first: on PyPy that takes a while
    live = LiveNetwork(net, settle_s=0.5)
    t, result = _run_in_thread(live, 50_000_000)    # 50 ms of traffic after the start
    s1, s2 = live.nodes
    time.sleep(0.3)
    assert net.sim.now == 0 and net.sim.events_run == 0     # no controller has written yet
    s1.replace(sw1)
    s1.note_write()
    time.sleep(0.1)
    s2.replace(sw2)                                        # a pipeline set is a write too
    time.sleep(0.2)
    assert net.sim.now == 0 and net.sim.events_run == 0     # 0.2 s since s2's pipeline < settle_s
    s2.note_write()
    began = time.monotonic()
    t.join(timeout=10)
    assert result == {"done": True}
    assert time.monotonic() - began >= 0.5 + 0.05 - 0.01    # settle, then 50 ms paced
    assert tr.host_results() == {"h1": {"sent": 1, "delivered": 1, "lost": 0, "received": 2},
                                 "h2": {"sent": 1, "delivered": 1, "lost": 0, "received": 2}}


def test_start_begins_the_traffic_without_configuration():
    net, tr = _network()
    live = LiveNetwork(net, settle_s=60)
    t, result = _run_in_thread(live, 2_000_000)
    live.start()
    t.join(timeout=10)
    assert result == {"done": True}
    # the topology's switches run ipv4_router with no entries: everything is dropped
    assert tr.host_results()["h1"] == {"sent": 1, "delivered": 0, "lost": 1, "received": 0}


def test_stop_ends_a_run_that_never_started():
    net, _ = _network()
    live = LiveNetwork(net)
    t, result = _run_in_thread(live, 1_000_000)
    live.stop()
    t.join(timeout=5)
    assert result == {"done": False}


def test_cpu_port_packets_reach_listeners_and_injected_packets_are_forwarded():
    net, _ = _network()
    live = LiveNetwork(net, cpu_port=CPU, settle_s=0)
    s1, s2 = live.nodes
    for node in live.nodes:
        node.replace(_configured(node.name))
        node.note_write()
    got = []
    s1.listen(lambda port, data: got.append((port, data)))
    to_cpu = bytes(Ether(dst="08:00:00:00:01:00") / IP(src="10.0.1.1", dst="10.0.9.9", ttl=9) / UDP())
    s1.inject(1, to_cpu)                                    # as if from h1: routed to the CPU port
    to_h2 = bytes(Ether() / IP(src="10.0.9.9", dst="10.0.2.2", ttl=9) / UDP())
    s1.inject(CPU, to_h2)                                   # a packet-out: routed towards s2, then h2
    received = []
    net.host("h2").ports[0].node.receive = lambda port, data, _r=received: _r.append(data)
    t, result = _run_in_thread(live, 5_000_000)
    t.join(timeout=10)
    assert result == {"done": True}
    assert [(p, IP(d[14:]).dst, IP(d[14:]).ttl) for p, d in got] == [(CPU, "10.0.9.9", 8)]
    assert [IP(d[14:]).ttl for d in received if IP(d[14:]).src == "10.0.9.9"] == [7]   # two routers


def test_a_cpu_port_that_is_a_link_port_is_refused():
    net, _ = _network()
    with pytest.raises(ValueError, match="CPU port 1 is also a link's port"):
        LiveNetwork(net, cpu_port=1)


def test_the_device_clock_is_the_simulated_clock():
    net, _ = _network()
    live = LiveNetwork(net)
    live.start()
    assert live.nodes[0].now_us() == 0
    live.run(3_000_000)
    assert live.nodes[1].now_us() == 3000


def test_a_new_pipeline_drops_what_waits_for_the_old_ones_egress():
    net, _ = _network()
    live = LiveNetwork(net)
    s1 = live.nodes[0]
    s1.replace(_configured("s1"))
    burst = bytes(Ether() / IP(src="10.0.1.1", dst="10.0.2.2", ttl=9) / UDP() / (b"x" * 1000))
    for _ in range(5):
        s1.inject(1, burst)
    net.run(0)                          # ingress at time 0: one frame on the wire, four queued
    port2 = s1.node.ports[2]
    assert len(port2.queue) == 4
    s1.replace(Switch.from_file(builtin_program("ecmp_router"), name="s1"))   # other metadata types
    net.run(1_000_000)                  # the old frame finishes; nothing of the old pipeline runs
    assert s1.node.drops["pipeline replaced"] == 4 and port2.queue_bytes == 0
    assert port2.stats.tx_packets == 1
