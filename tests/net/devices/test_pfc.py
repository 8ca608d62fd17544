"""PFC (IEEE 802.1Qbb) in the traffic manager: pause frames, ingress accounting with XOFF/XON,
hosts and switches honouring pause, pause frames in pcaps."""
from __future__ import annotations

import pytest

from dataplane.control.config_errors import ConfigError
from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.capture.metrics import format_table, port_metrics, summary
from dataplane.net.capture.pcap import read_pcap
from dataplane.net.devices.pfc import (
    MAX_QUANTA,
    PAUSE_DST,
    PfcConfig,
    enable_pfc,
    headroom_bytes,
    is_mac_control,
    link_headroom,
    lossless_problems,
    parse_pause,
    pause_frame,
    pfc_frame,
    quanta_ns,
)
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_yaml_topology
from dataplane.resources import data_dir

from ..conftest import build_pair, router_hosts

XOFF, XON = 20_000, 10_000
BUFFER = 64_100          # bytes per egress port; the headroom rule needs 64,076 B (test_headroom_rule)
PER_SENDER = 1_000_000   # UDP payload bytes per sender
PAYLOAD = 1000           # bytes per datagram: 1042-byte frames


def incast_yaml(pfc: bool) -> str:
    """h1 and h2 (10 Gb/s) send to h3 behind a 5 Gb/s port of s1 (ipv4_router.p4), 64 KB buffers."""
    entries = data_dir("programs") / "ipv4_router.json"
    pfc_line = f"pfc: {{xoff: {XOFF}, xon: {XON}}}" if pfc else ""
    return f"""
name: pfc2to1
defaults: {{latency: 1us, queue: {BUFFER}B}}
topology:
  nodes:
    s1: {{kind: switch, program: ipv4_router, entries: {entries}, {pfc_line}}}
{router_hosts(1, 2, 3)}
  links:
    - {{endpoints: ["s1:p1", "h1"], bandwidth: 10Gbps}}
    - {{endpoints: ["s1:p2", "h2"], bandwidth: 10Gbps}}
    - {{endpoints: ["s1:p3", "h3"], bandwidth: 5Gbps}}
"""


def run_incast(pfc: bool, capture=None, enable=None):
    net = Network.from_spec(load_yaml_topology(incast_yaml(pfc)))
    if enable is not None:
        enable_pfc(net.switch("s1"), enable)
    if capture is not None:
        net.capture(capture)
    sink = UdpSink(net.host("h3"), 9000)
    flows = [UdpFlow(net.host(h), "10.0.3.3", 9_000_000_000, size_bytes=PAYLOAD, total_bytes=PER_SENDER,
                     dst_port=9000) for h in ("h1", "h2")]
    net.run(20_000_000)
    net.close()
    return net, sink, flows


@pytest.fixture(scope="module")
def pfc_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("pcap")
    return (*run_incast(True, d), d)


def test_pfc_is_lossless_and_pauses_the_senders(pfc_run):
    net, sink, flows, _ = pfc_run
    s1 = net.switch("s1")
    assert all(p.stats.drops == 0 for p in s1.ports.values())
    assert sink.stats["bytes"] == 2 * PER_SENDER
    for h in ("h1", "h2"):
        host = net.host(h)
        assert host.stats.dropped == 0
        st = host.port.stats
        # Pause frames went upstream and were counted at both ends.
        assert st.pause_rx > 0 and st.pause_rx == s1.ports[int(h[1])].stats.pause_tx
        assert host.port.paused_time_ns > 100_000          # the host spent a good while paused
        assert not host.port.paused                          # ... and was let go (XON)
    assert s1.pfc.xoff_sent > 0 and s1.pfc.xon_sent == s1.pfc.xoff_sent and not s1.pfc.paused
    assert sum(s1.pfc.bytes.values()) == 0                  # every accounted byte was released
    assert s1.ports[3].stats.pause_tx == 0 and net.host("h3").port.stats.pause_rx == 0
    # Pause frames are consumed by the port: the pipeline saw only the data, hosts no extra frames.
    assert s1.packets_in == sum(f.stats["sent"] for f in flows)
    assert net.host("h1").stats.rx_frames == 0
    m = port_metrics(net)
    assert m["h1:eth0"]["pause_rx"] == m["s1:p1"]["pause_tx"] > 0 and m["h1:eth0"]["paused_ns"] > 100_000
    assert "PFC: " in format_table(summary(net, {}))
    # The bottleneck stayed busy: done in about the time 2 MB takes at 5 Gb/s (frames 1042 B).
    ideal = 2 * (PER_SENDER // PAYLOAD) * 1042 * 8 / 5
    assert sink.stats["last_ns"] < ideal * 1.03


def test_headroom_rule_bounds_the_ingress_accounting(pfc_run):
    net, *_ = pfc_run
    s1 = net.switch("s1")
    link = s1.ports[1].link
    room = link_headroom(link)
    wire = link.wire_bytes(1514) - 1514            # FCS, preamble/SFD and gap on an Ethernet link
    assert wire == 24
    assert room == headroom_bytes(10_000_000_000, 1000, 1514, overhead=wire)
    # 2 x 1 us x 10 Gb/s + 2 frames + the pause frame (each with its wire overhead)
    # + 802.3's 10G interface and response delays
    assert room == 2 * 1000 * 10 // 8 + 2 * (1514 + wire) + 60 + wire + (8192 + 30720) // 8
    for p in (1, 2):
        assert XOFF <= s1.pfc.peak[p] <= XOFF + 1514 + room
    assert s1.ports[3].stats.max_qdepth * 1042 <= BUFFER
    assert lossless_problems(net) == []


def test_pause_frames_are_in_the_pcap(pfc_run):
    net, _, _, d = pfc_run
    frames = [(t, f) for t, f in read_pcap(d / "s1-p1.pcap") if is_mac_control(f)]
    assert len(frames) == net.switch("s1").ports[1].stats.pause_tx
    t0, first = frames[0]
    assert first[0:6] == PAUSE_DST.to_bytes(6, "big") and first[12:14] == b"\x88\x08"
    assert first[14:16] == b"\x01\x01" and first[16:18] == b"\x00\x08"    # PFC opcode; class 3 enabled
    assert int.from_bytes(first[18 + 2 * 3:20 + 2 * 3], "big") == MAX_QUANTA and len(first) == 60
    assert parse_pause(frames[-1][1]) == 0                                  # it ended with XON
    # scapy (like Wireshark) decodes it as an 802.1Qbb class-based flow control frame.
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl
    from scapy.layers.l2 import Ether

    pfc = Ether(first)[MACControlClassBasedFlowControl]
    assert pfc.c3_enabled == 1 and pfc.c3_pause_time == MAX_QUANTA and pfc.c0_enabled == 0
    # The host's own capture holds data only (it sent no control frames).
    assert not any(is_mac_control(f) for _, f in read_pcap(d / "h1-eth0.pcap"))


def test_without_pfc_the_same_setup_drops():
    net, sink, _ = run_incast(False)
    s1 = net.switch("s1")
    assert s1.ports[3].stats.drops > 0
    assert sink.stats["bytes"] < 2 * PER_SENDER
    assert s1.pfc is None and all(p.stats.pause_tx == 0 for p in s1.ports.values())
    assert lossless_problems(net) == []                     # nothing to check without PFC


def test_enable_pfc_on_a_built_network():
    net, sink, _ = run_incast(False, enable={"xoff": XOFF, "xon": XON})
    assert sink.stats["bytes"] == 2 * PER_SENDER and net.switch("s1").pfc.xoff_sent > 0
    assert enable_pfc(net.switch("s1"), False) is None and net.switch("s1").pfc is None


def test_buffer_below_the_headroom_rule_is_reported():
    spec = load_yaml_topology(incast_yaml(True).replace(f"queue: {BUFFER}B", "queue: 40KB"))
    problems = lossless_problems(Network.from_spec(spec))
    assert len(problems) == 3 and "s1:p3" in problems[2]


# ---- frames ----------------------------------------------------------------------------------------------

def test_frames_and_quanta():
    f = pfc_frame(0x0200_0000_0001, 1000, classes=0b1000_1000)
    assert len(f) == 60 and parse_pause(f) == 1000 and is_mac_control(f)
    assert parse_pause(pfc_frame(1, [0, 5, 0, 9, 0, 0, 0, 0], classes=0b10)) == 5   # enabled classes only
    assert parse_pause(pfc_frame(1, 0)) == 0
    assert parse_pause(pause_frame(1, 77)) == 77                                   # 802.3x
    assert parse_pause(bytes(60)) is None
    assert quanta_ns(MAX_QUANTA, 100_000_000_000) == 335_540                        # 0.336 ms at 100G
    assert quanta_ns(MAX_QUANTA, 10_000_000_000) == 3_355_392                       # 3.36 ms at 10G
    with pytest.raises(ValueError):
        pfc_frame(1, 70_000)


def test_config_values():
    assert PfcConfig.from_value(None) is None and PfcConfig.from_value(False) is None
    assert PfcConfig.from_value(True) == PfcConfig()
    c = PfcConfig.from_value({"xoff": "64KB", "xon": "32KiB", "priority": 5})
    assert (c.xoff, c.xon, c.priority) == (64_000, 32_768, 5)
    assert PfcConfig.from_value({"xoff": 10_000}).xon == 5_000
    for bad in ({"xoff": 1000, "xon": 2000}, {"xoff": "10p"}, {"xof": 1}, {"xoff": 1, "priority": 8}, "yes"):
        with pytest.raises(ValueError):
            PfcConfig.from_value(bad)
    with pytest.raises(ValueError, match=r"pfc must be a mapping such as \{xoff: 64KB, xon: 32KB\} or true, got 'yes'"):
        PfcConfig.from_value("yes")
    # The watchdog inside it reads the same way: off, defaults, or a mapping.
    assert PfcConfig.from_value({"watchdog": False}).watchdog is None
    assert PfcConfig.from_value({"watchdog": True}).watchdog.detection_ns == 200_000_000
    with pytest.raises(ValueError, match=r"pfc watchdog must be a mapping such as .*, got 5"):
        PfcConfig.from_value({"watchdog": 5})


def test_yaml_pfc_field_and_default():
    text = incast_yaml(False).replace("defaults: {", "defaults: {pfc: {xoff: 50KB, xon: 20KB}, ")
    spec = load_yaml_topology(text)
    assert spec.switches["s1"].params["pfc"]["xoff"] == 50_000
    spec = load_yaml_topology(incast_yaml(True))
    assert spec.switches["s1"].params["pfc"]["xon"] == XON
    spec = load_yaml_topology(incast_yaml(False).replace("entries:", "params: {pfc: {xoff: 8KB}}, entries:"))
    assert spec.switches["s1"].params["pfc"]["xoff"] == 8_000
    with pytest.raises(ConfigError, match=r"topology.nodes.s1.pfc: .*xon <= xoff"):
        load_yaml_topology(incast_yaml(True).replace(f"xon: {XON}", "xon: 1MB"))


# ---- ports honour pause ------------------------------------------------------------------------------------

def test_a_paused_port_holds_its_queue_and_quanta_zero_resumes():
    sim, h1, h2, _ = build_pair(static_arp=True, latency_ns=0)
    got = []
    h2.bind_udp(7, lambda *a: got.append(sim.now))
    assert h2.send_raw(pfc_frame(h2.mac, MAX_QUANTA))     # h2's NIC pauses h1 (3.36 ms at 10G)
    sim.run(1_000)
    assert h1.port.paused and h1.port.stats.pause_rx == 1 and h2.port.stats.pause_tx == 1
    assert h1.stats.rx_frames == 0                          # consumed by the port, not the stack
    for _ in range(3):
        h1.send_udp(h2.ip, 7, 7, b"x" * 100)
    sim.run(500_000)
    assert got == [] and h1.port.depth == 3
    h2.send_raw(pfc_frame(h2.mac, 0))                       # XON
    sim.run(1_000_000)
    assert len(got) == 3 and got[0] < 501_000
    assert 499_000 <= h1.port.paused_time_ns <= 501_000


def test_a_pause_expires_by_itself_and_does_not_cut_a_frame():
    sim, h1, h2, _ = build_pair(static_arp=True, latency_ns=0)
    got = []
    h2.bind_udp(7, lambda *a: got.append(sim.now))
    h1.send_udp(h2.ip, 7, 7, b"x" * 1000)                  # 1042 B, + FCS, preamble/SFD, gap: 852.8 ns at 10 Gb/s
    sim.run(100)
    h2.send_raw(pause_frame(h2.mac, 100))                   # 802.3x, 100 quanta = 5.12 us; 84 B on the wire
    h1.send_udp(h2.ip, 7, 7, b"y" * 1000)
    sim.run(1_000_000)
    assert len(got) == 2
    assert got[0] == (1042 + 4 + 8 + 12) * 8 // 10          # the frame in service was not cut
    assert got[1] >= 100 + (64 + 8 + 12) * 8 // 10 + 5_120 and h1.port.paused_time_ns == 5_120


def test_a_switch_port_honours_pause_and_the_pipeline_never_sees_it():
    net = Network.from_spec(load_yaml_topology(incast_yaml(False)))
    h3, s1 = net.host("h3"), net.switch("s1")
    h3.send_raw(pfc_frame(h3.mac, 1000))                   # 1000 quanta at 5 Gb/s = 102.4 us
    sink = UdpSink(h3, 9000)
    UdpFlow(net.host("h1"), "10.0.3.3", 1_000_000_000, size_bytes=PAYLOAD, total_bytes=10 * PAYLOAD, dst_port=9000)
    net.run(1_000_000)
    assert s1.ports[3].stats.pause_rx == 1 and s1.ports[3].paused_time_ns == 102_400
    assert s1.packets_in == 10 and sink.stats["received"] == 10
    assert sink.flows[next(iter(sink.flows))].first_ns >= 102_400
