"""Hosts with an XDP / eBPF filter program on their NIC (``xdp:`` in topology YAML), next to a
v1model switch: what the switch did, what the program did, what reached each host's stack."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.capture import metrics
from dataplane.net.fabric.network import Network
from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.xdp_host import RING_FULL, XdpHost
from dataplane.net.topology.load import load_topology
from dataplane.net.topology.spec import DEFAULT_XDP_PACKET_RATE, DEFAULT_XDP_QUEUE

DATA = Path(__file__).parents[1] / "data"
STF = Path(__file__).parents[2] / "stf"


def _network() -> Network:
    return Network.from_spec(load_topology(DATA / "xdp_host.yaml"))


def _listen(host, ports: tuple[int, ...]) -> dict[int, list]:
    got: dict[int, list] = {p: [] for p in ports}
    for p in ports:
        host.bind_udp(p, lambda ip, sport, payload, tos, t, p=p: got[p].append((ip, sport, payload)))
    return got


def test_switch_and_xdp_host_each_do_their_part():
    """s1 (v1model) routes every frame; h2's XDP program drops UDP 9, answers UDP 7 itself
    (XDP_TX: the echo goes back through s1 to h1 and h2's stack never sees it), strips VXLAN
    and passes the inner frame, and passes the rest."""
    net = _network()
    h1, h2, s1 = net.host("h1"), net.host("h2"), net.switch("s1")
    assert isinstance(h2, XdpHost) and not isinstance(h1, XdpHost)
    at_h2 = _listen(h2, (9, 7, 5000, 6000))
    at_h1 = _listen(h1, (40000,))
    inner = pk.ethernet(h2.mac, 0x02AA00000001, 0x0800,
                        pk.ipv4(pk.parse_ip("192.168.7.7"), h2.ip, pk.PROTO_UDP, pk.udp(1234, 5000, b"inner")))
    vxlan = bytes([0x08, 0, 0, 0, 0, 0, 42, 0]) + inner

    sends = [(40000, 9, b"drop%d" % i) for i in range(3)] + [(40000, 7, b"echo%d" % i) for i in range(2)] + \
        [(40000, 6000, b"plain"), (40001, 4789, vxlan)]
    for i, (sport, dport, payload) in enumerate(sends):   # 5 us apart: the 4-frame ring never fills
        net.sim.at(i * 5_000, h1.send_udp, h2.ip, sport, dport, payload)
    net.run(until_ns=200_000)
    # the switch routed the 7 frames to h2 and the 2 echoes back to h1
    assert s1.packets_in == 9 and not s1.drops
    # the program
    st = h2.xdp_stats
    assert (st.received, st.processed, st.passed, st.tx, st.redirected) == (7, 7, 2, 2, 0)
    assert st.drops == {"XDP_DROP": 3}
    assert [h2.api.counter_read("stats", i)[0] for i in range(3)] == [3, 2, 1]
    # the hosts' stacks
    assert at_h2 == {9: [], 7: [], 5000: [(pk.parse_ip("192.168.7.7"), 1234, b"inner")],
                     6000: [(h1.ip, 40000, b"plain")]}
    assert h2.stats.rx_frames == 2
    assert at_h1[40000] == [(h2.ip, 7, b"echo0"), (h2.ip, 7, b"echo1")]
    # the cost: 1 Mpps is 1 us of the core per frame
    assert h2.pipe.busy_ns(net.sim.now) == 7_000
    summary = metrics.summary(net, {})
    assert summary["xdp"]["h2"]["drops"] == {"XDP_DROP": 3} and summary["xdp"]["h2"]["tx"] == 2
    assert "h1" not in summary["xdp"]
    assert "xdp host" in metrics.format_table(summary)


def test_a_burst_overflows_the_receive_ring():
    """Ten back-to-back frames at 10 Gb/s reach a 1 Mpps core with a 4-frame ring: one is in
    service, four wait, five are dropped; the five delivered leave 1 us apart, 2 us after their slot."""
    net = _network()
    h1, h2 = net.host("h1"), net.host("h2")
    times = []
    h2.bind_udp(6000, lambda ip, sport, payload, tos, t: times.append(t))
    net.sim.at(0, lambda: [h1.send_udp(h2.ip, 40000, 6000, bytes(8)) for _ in range(10)])
    net.run(until_ns=100_000)
    assert h2.xdp_stats.drops == {RING_FULL: 5}
    assert len(times) == 5
    assert [b - a for a, b in zip(times, times[1:])] == [1_000] * 4
    assert h2.xdp_stats.max_queue == 4


def test_an_ebpf_filter_on_a_host(tmp_path: Path):
    """An ebpfFilter program works too: accepted frames reach the stack, the rest are dropped
    (here: the filter accepts only IPv4 with a TTL >= the entry's floor)."""
    (tmp_path / "filter.txt").write_text("table_set_default blocked Allow 200\n")
    text = (DATA / "xdp_host.yaml").read_text().replace(
        "xdp: {program: xdp_host.p4, packet_rate: 1Mpps, latency: 2us, queue: 4p}",
        f"xdp: {{program: {STF / 'ebpf_filter.p4'}, entries: filter.txt}}")
    text = text.replace("failover.p4", str(DATA / "failover.p4")).replace("s1.txt", str(DATA / "s1.txt"))
    (tmp_path / "t.yaml").write_text(text)
    net = Network.from_spec(load_topology(tmp_path / "t.yaml"))
    h1, h2 = net.host("h1"), net.host("h2")
    got = _listen(h2, (6000,))
    net.sim.at(0, lambda: h1.send_udp(h2.ip, 40000, 6000, b"x"))
    net.run(until_ns=100_000)
    assert got[6000] == [] and h2.xdp_stats.drops == {"filter did not accept": 1}   # TTL 64 < 200
    h2.api.table_set_default("blocked", "Allow", [1])
    net.sim.at(net.sim.now, lambda: h1.send_udp(h2.ip, 40000, 6000, b"y"))
    net.run(until_ns=200_000)
    assert got[6000] == [(h1.ip, 40000, b"y")] and h2.xdp_stats.passed == 1


def test_xdp_field_defaults_and_shorthand(tmp_path: Path):
    spec = load_topology(DATA / "xdp_host.yaml")
    x = spec.hosts["h2"].xdp
    assert (x.program, x.packet_rate_pps, x.latency_ns, x.queue) == (DATA / "xdp_host.p4", 10**6, 2_000, (4, "packets"))
    assert spec.hosts["h1"].xdp is None
    (tmp_path / "t.yaml").write_text(textwrap.dedent(f"""\
        name: t
        topology:
          nodes:
            h1: {{kind: host, xdp: {DATA / 'xdp_host.p4'}}}
    """))
    x = load_topology(tmp_path / "t.yaml").hosts["h1"].xdp
    assert (x.packet_rate_pps, x.queue, x.entries) == (DEFAULT_XDP_PACKET_RATE, DEFAULT_XDP_QUEUE, None)


@pytest.mark.parametrize("xdp, message", [
    ("{program: x.p4, rings: 4}", "topology.nodes.h1.xdp.rings: unknown field 'rings'"),
    ("{packet_rate: 1Mpps}", "has xdp settings but no program"),
    ("{program: PROG, latency: fast}", "topology.nodes.h1.xdp.latency"),
    ("V1", "includes v1model.p4"),
    ("[a.p4]", "must be a .p4 file or a mapping"),
])
def test_xdp_field_errors_name_the_line_and_field(tmp_path: Path, xdp: str, message: str):
    xdp = xdp.replace("PROG", str(DATA / "xdp_host.p4")).replace("V1", str(DATA / "failover.p4"))
    (tmp_path / "t.yaml").write_text(f"name: t\ntopology:\n  nodes:\n    h0: {{kind: host}}\n"
                                     f"    h1:\n      kind: host\n      xdp: {xdp}\n")
    with pytest.raises(ConfigError) as info:
        load_topology(tmp_path / "t.yaml")
    assert message in str(info.value) and info.value.line in (6, 7)


def test_a_program_of_another_architecture_is_refused(tmp_path: Path):
    """The reader refuses a program whose text includes another architecture; one that does not
    say so itself (it includes a file that does) is refused once compiled, before anything runs."""
    (tmp_path / "t.yaml").write_text(f"name: t\ntopology:\n  nodes:\n"
                                     f"    h1: {{kind: host, xdp: {STF / 'ubpf_old_model.p4'}}}\n")
    with pytest.raises(ConfigError, match="includes ubpf_model.p4"):
        load_topology(tmp_path / "t.yaml")
    (tmp_path / "wrapper.p4").write_text(f'#include "{DATA / "failover.p4"}"\n')
    (tmp_path / "t.yaml").write_text("name: t\ntopology:\n  nodes:\n    h1: {kind: host, xdp: wrapper.p4}\n")
    with pytest.raises(ConfigError, match="h1.xdp.program: host 'h1' needs an XDP program .* is v1model"):
        Network.from_spec(load_topology(tmp_path / "t.yaml"))
