"""The ``port_backlog`` register a switch keeps for its program: before every ingress, each port's
bytes not yet on the wire (its queue plus what is left of the frame on the wire), so an ingress
pipeline can compare its ports' loads (programs/lb_least_loaded.p4h)."""
from __future__ import annotations

from dataplane.net.fabric.network import Network
from dataplane.net.hosts.packets import parse_ip
from dataplane.net.topology.spec import HostSpec, LinkSpec, SwitchSpec, TopologySpec
from dataplane.resources import builtin_program

G10, G100 = 10_000_000_000, 100_000_000_000
LATENCY = 1_000
MACS = {n: 0x0200_0000_0000 + n for n in (1, 2, 3)}


def network():
    """s1 (adaptive.p4) with h1 on port 1 and h3 on port 3 at 100 Gb/s, h2 on port 2 at 10 Gb/s."""
    spec = TopologySpec("backlog")
    spec.switches["s1"] = SwitchSpec("s1", builtin_program("adaptive"))
    for n in (1, 2, 3):
        ip = parse_ip(f"10.0.0.{n}")
        arp = {parse_ip(f"10.0.0.{m}"): MACS[m] for m in (1, 2, 3) if m != n}
        spec.hosts[f"h{n}"] = HostSpec(f"h{n}", MACS[n], ip, 24, static_arp=arp)
        spec.links.append(LinkSpec((f"h{n}", 0), ("s1", n), G10 if n == 2 else G100, LATENCY, (100, "packets"), 9000))
    net = Network.from_spec(spec, seed=1)
    s1 = net.switch("s1")
    for n in (1, 2, 3):
        s1.api.table_add("MyIngress.ipv4_lpm", "MyIngress.set_nhop", [f"10.0.0.{n}/32"],
                         {"dmac": MACS[n], "port": n})
    return net, s1


def wire_ns(frame: int, rate: int) -> float:
    """IEEE 802.3 line time of a frame: captured bytes + FCS 4 + preamble/SFD 8 + gap 12."""
    return (frame + 24) * 8e9 / rate


def test_backlog_is_the_queue_plus_the_rest_of_the_frame_on_the_wire():
    """Two 9,014-byte frames from h1 to h2 (back to back at 100 Gb/s, out at 10 Gb/s), then a probe
    from h3 that reaches s1 1,000 ns after the first frame started on port 2: port 2 then holds the
    second frame (9,014 B queued) and 6,230 ns of the first one's 7,230 ns at 1.25 B/ns; the
    other ports are idle."""
    net, s1 = network()
    seen: dict[int, list[int]] = {}
    inner = s1._write_backlog

    def spy(reg):
        inner(reg)
        seen[net.sim.now] = list(reg.values[:4])

    s1._write_backlog = spy
    h1, h3 = net.host("h1"), net.host("h3")
    big = bytes(8972)                                     # 14 + 20 + 8 + 8972 = 9014-byte frames (MTU 9000)
    h1.send_udp("10.0.0.2", 1000, 2000, big)
    h1.send_udp("10.0.0.2", 1000, 2000, big)
    first_in = int(wire_ns(9014, G100)) + LATENCY           # when s1 has the whole first frame
    probe = bytes(22)                                     # a 64-byte frame
    probe_wire = int(wire_ns(64, G100))
    net.sim.at(first_in + 1_000 - probe_wire - LATENCY, h3.send_udp, "10.0.0.2", 1000, 2000, probe)
    net.run()
    assert seen[first_in] == [0, 0, 0, 0]                 # the first frame's own ingress: all idle
    on_wire = int(wire_ns(9014, G10))                     # 7230 ns (the port rounds down)
    assert on_wire == 7230
    probe_at = first_in + 1_000
    assert seen[probe_at][2] == 9014 + (on_wire - 1_000) * G10 // 8_000_000_000 == 9014 + 7787
    assert seen[probe_at][1] == seen[probe_at][3] == 0


def test_a_switch_without_the_register_is_left_alone():
    """ecn.p4 declares no port_backlog: nothing is written before its ingress."""
    spec = TopologySpec("plain")
    spec.switches["s1"] = SwitchSpec("s1", builtin_program("ecn"))
    spec.hosts["h1"] = HostSpec("h1", MACS[1], parse_ip("10.0.0.1"))
    spec.links.append(LinkSpec(("h1", 0), ("s1", 1)))
    net = Network.from_spec(spec, seed=1)
    assert net.switch("s1")._backlog_register is None


def test_a_switch_whose_program_reads_the_backlog_keeps_no_decision_cache():
    """The backlog changes between two packets of one flow, so a decision remembered for the first
    would be wrong for the second: the switch says so, as for timestamp_ns and port_tx_bytes."""
    _, s1 = network()
    assert s1.decisions is None
    assert s1.decision_refusal == "the program reads port_backlog, which the fabric writes"
