"""The host stack on two hosts back to back: ARP, ping timing by hand, UDP, raw frames, drops."""
from __future__ import annotations

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.net.apps.basic import Ping
from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.host import Host
from dataplane.net.topology.spec import HostSpec

MAC1, MAC2 = 0x0800_0000_0101, 0x0800_0000_0202
IP1, IP2 = pk.parse_ip("10.0.0.1"), pk.parse_ip("10.0.0.2")
RATE, LAT = 10_000_000_000, 1_000


def ser(nbytes: int, rate: int = RATE) -> int:
    """Serialization delay as the link computes it (integer ns, rounded down) for a captured frame
    of ``nbytes`` on Ethernet: FCS (4) with the frame padded to 64, preamble + SFD (8), gap (12)."""
    return (max(nbytes + 4, 64) + 8 + 12) * 8 * 1_000_000_000 // rate


def collect(host: Host, port: int) -> list:
    got = []
    host.bind_udp(port, lambda *a: got.append(a))
    return got


def test_arp_resolution_then_udp(pair):
    sim, h1, h2, _ = pair()
    got = collect(h2, 7000)
    assert h1.send_udp("10.0.0.2", 1111, 7000, b"hi", tos=0x02)
    sim.run()
    # ARP request (60 B padded) there, reply back, then the UDP frame (14+20+8+2 -> padded 60 B).
    t = 2 * (ser(60) + LAT) + ser(60) + LAT
    assert got == [(IP1, 1111, b"hi", 0x02, t)]
    assert h1.arp_table[IP2] == MAC2 and h2.arp_table[IP1] == MAC1   # h2 learned from the request
    assert (h1.stats.arp_requests_sent, h2.stats.arp_replies_sent, h1.stats.arp_resolved) == (1, 1, 1)
    assert (h1.stats.sent, h2.stats.received, h2.stats["udp_delivered"]) == (1, 1, 1)
    assert h1.stats.dropped == h2.stats.dropped == 0


def test_static_arp_sends_no_arp(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    got = collect(h2, 9)
    h1.send_udp(IP2, 1, 9, bytes(100))
    sim.run()
    assert got[0][4] == ser(14 + 20 + 8 + 100) + LAT
    assert h1.stats.arp_requests_sent == 0 and h2.stats.rx_frames == 1


def test_ping_rtt_is_exact(pair):
    sim, h1, h2, _ = pair()
    ping = Ping(h1, IP2, count=3, interval_ns=100_000, size=56)
    sim.run()
    echo = 14 + 20 + 8 + 56                                 # 98-byte frames each way
    steady = 2 * (ser(echo) + LAT)
    # 98 + 4 + 8 + 12 = 122 bytes of line time: 976 bits at 10 Gb/s = 97.6 ns, rounded down
    assert steady == 2 * ((echo + 4 + 8 + 12) * 8 // 10 + 1000)
    assert ping.rtts == [2 * (ser(60) + LAT) + steady, steady, steady]   # the first one waits for ARP
    assert ping.stats == {"sent": 3, "received": 3, "lost": 0, "duplicates": 0}
    assert h2.stats.echo_replies_sent == 3 and ping.done
    assert ping.summary()["rtt_min_ns"] == steady


def test_ping_over_slow_link_static_arp(pair):
    sim, h1, h2, _ = pair(rate_bps=1_000_000, latency_ns=5_000, static_arp=True)
    ping = Ping(h1, IP2, count=2, size=1000, interval_ns=50_000_000)
    sim.run()
    frame = 14 + 20 + 8 + 1000
    wire = frame + 4 + 8 + 12                                     # FCS, preamble + SFD, gap
    assert ping.rtts == [2 * (wire * 8 * 1000 + 5_000)] * 2      # 1 Mb/s: 8 us per byte


def test_arp_gives_up_and_counts_drops(pair):
    sim, h1, h2, _ = pair()
    for _ in range(5):
        h1.send_udp("10.0.0.99", 1, 2, b"x")                # on-link, nobody has it
    sim.run()
    assert h1.stats.arp_requests_sent == Host.arp_retries == 3
    assert h1.stats.dropped_no_arp == 5 and h1.stats.sent == 0
    assert sim.now == 3 * Host.arp_timeout_ns
    assert h2.stats.dropped_not_for_us == 3 and h2.stats.arp_replies_sent == 0
    # A later send tries again from scratch.
    h1.send_udp("10.0.0.99", 1, 2, b"x")
    sim.run()
    assert h1.stats.arp_requests_sent == 6


def test_arp_queue_overflow_drops_oldest(pair):
    sim, h1, h2, _ = pair()
    got = collect(h2, 5)
    h1.arp_queue_len = 3
    for i in range(5):
        h1.send_udp(IP2, 1, 5, bytes([i]))
    sim.run()
    assert [g[2] for g in got] == [b"\x02", b"\x03", b"\x04"]
    assert h1.stats.dropped_no_arp == 2


def test_next_hop_is_gateway_when_off_link(pair):
    sim, h1, h2, _ = pair()
    assert not h1.send_udp("192.168.1.1", 1, 2, b"x")      # no gateway: no route
    assert h1.stats.dropped_no_route == 1
    h1.gateway = IP2
    frames = []
    h2.on_receive(lambda data, t: frames.append(pk.parse_packet(data)))
    h1.send_udp("192.168.1.1", 1, 2, b"x")
    sim.run()
    ip_frames = [f for f in frames if f.ip is not None]
    assert ip_frames[0].eth.dst == MAC2 and ip_frames[0].ip.dst == pk.parse_ip("192.168.1.1")
    assert frames[0].arp.target_ip == IP2                   # resolved the gateway, not the destination
    assert h2.stats.dropped_not_for_us == 1                 # h2 is not a router


def test_udp_delivery_and_unbound_port(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    got = collect(h2, 4000)
    h1.send_udp(IP2, 555, 4000, b"payload", tos=0x03)
    h1.send_udp(IP2, 555, 4001, b"nobody")
    sim.run()
    assert [(g[0], g[1], g[2], g[3]) for g in got] == [(IP1, 555, b"payload", 0x03)]
    assert h2.stats.dropped_no_listener == 1


def test_send_raw_scapy_and_raw_receive(pair):
    sim, h1, h2, _ = pair()
    got = collect(h2, 53)
    seen = []
    h2.on_receive(lambda data, t: seen.append((data, t)))
    pkt = Ether(src=pk.mac_str(MAC1), dst=pk.mac_str(MAC2)) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=9, dport=53) / b"q"
    assert h1.send_raw(pkt)                                  # a scapy packet, converted with bytes()
    assert h1.send_raw(bytes(pkt))
    sim.run()
    assert [g[2] for g in got] == [b"q", b"q"]               # scapy's UDP checksum is verified too
    assert seen[0][0] == bytes(pkt) and seen[0][1] == ser(len(bytes(pkt))) + LAT
    assert h1.stats.sent == 0 and h1.stats.tx_frames == 2    # raw frames are not IP sends


def test_raw_handler_can_consume(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    got = collect(h2, 5)
    h2.on_receive(lambda data, t: data[12:14] == b"\x88\xb5")   # claim a local experimental ethertype
    h1.send_raw(pk.ethernet(MAC2, MAC1, 0x88B5, b"custom", pad=True))
    h1.send_raw(pk.ethernet(MAC2, MAC1, 0x88B6, b"other", pad=True))
    h1.send_udp(IP2, 1, 5, b"udp")
    sim.run()
    assert [g[2] for g in got] == [b"udp"]
    assert h2.stats.dropped_unsupported == 1                 # only the unclaimed ethertype


def test_bad_checksums_are_dropped(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    got = collect(h2, 5)
    good = bytearray(pk.udp_frame(MAC1, MAC2, IP1, IP2, 1, 5, b"abcd", udp_csum=True))
    bad_ip = bytearray(good)
    bad_ip[14 + 8] ^= 1                                      # TTL bit: header checksum fails
    bad_udp = bytearray(good)
    bad_udp[14 + 28] ^= 1                                    # payload bit: UDP checksum fails
    for f in (good, bad_ip, bad_udp):
        h1.send_raw(f)
    h1.send_raw(b"\x00" * 10)                                # runt
    h1.send_raw(pk.ethernet(MAC2, MAC1, pk.ETHERTYPE_IPV4, b"\x45\x00"))   # truncated IPv4
    sim.run()
    assert [g[2] for g in got] == [b"abcd"]
    assert h2.stats.dropped_bad_checksum == 2 and h2.stats.dropped_malformed == 2


def test_udp_checksum_on_send(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    h1.udp_checksum = True
    frames = []
    h2.on_receive(lambda data, t: frames.append(data))
    got = collect(h2, 5)
    h1.send_udp(IP2, 1, 5, b"abc")
    sim.run()
    assert got and Ether(frames[0])[UDP].chksum != 0
    p = Ether(frames[0])
    del p[UDP].chksum
    assert Ether(bytes(p))[UDP].chksum == Ether(frames[0])[UDP].chksum


def test_transmit_backlog_holds_bursts(pair):
    sim, h1, h2, _ = pair(static_arp=True, capacity=8)
    got = collect(h2, 5)
    for i in range(300):
        h1.send_udp(IP2, 1, 5, i.to_bytes(2, "big"))
    sim.run()
    assert [int.from_bytes(g[2], "big") for g in got] == list(range(300))   # all, in order
    assert h1.ports[0].stats.drops == 0 and h1.stats.dropped == 0
    h1.txqueuelen = 10
    for _ in range(30):
        h1.send_udp(IP2, 1, 5, b"x")
    sim.run()
    assert h1.stats.dropped_txqueue == 30 - 1 - 8 - 10       # 1 on the wire, 8 in the port queue, 10 held


def test_timers_and_cancel(pair):
    sim, h1, _, _ = pair()
    fired = []
    h1.timer(500, fired.append, "a")
    t = h1.timer(700, fired.append, "b")
    h1.timer(600, t.cancel)
    sim.run()
    assert fired == ["a"]


def test_host_down_drops_everything(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    got = collect(h2, 5)
    h2.up = False
    h1.send_udp(IP2, 1, 5, b"x")
    sim.run()
    assert got == [] and h2.stats.dropped_down == 1
    h1.up = False
    assert not h1.send_udp(IP2, 1, 5, b"x") and h1.stats.dropped_down == 1


def test_loopback_and_broadcast(pair):
    sim, h1, h2, _ = pair()
    mine = collect(h1, 5)
    theirs = collect(h2, 5)
    h1.send_udp(IP1, 1, 5, b"self")
    h1.send_udp("255.255.255.255", 1, 5, b"all")
    h1.send_udp("10.0.0.255", 1, 5, b"subnet")
    sim.run()
    assert [g[2] for g in mine] == [b"self"]
    assert [g[2] for g in theirs] == [b"all", b"subnet"]
    assert h1.stats.arp_requests_sent == 0                   # broadcasts need no resolution


def test_echo_to_unknown_ident_and_ports(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    h1.send_echo_request(IP2, 999, 1, b"x")                  # nobody on h1 waits for ident 999
    sim.run()
    assert h2.stats.echo_replies_sent == 1 and h1.stats.dropped_no_listener == 1
    assert h1.ephemeral_port() == 49152 and h1.ephemeral_port() == 49153
    h1.bind_udp(49154, lambda *a: None)
    assert h1.ephemeral_port() == 49155
    try:
        h1.bind_udp(49154, lambda *a: None)
    except ValueError as e:
        assert "already bound" in str(e)
    else:
        raise AssertionError("double bind accepted")


def test_host_from_spec_fields():
    from dataplane.net.core.sim import Simulator
    h = Host(Simulator(), HostSpec("hx", MAC1, IP1, 16, gateway=IP2, static_arp={IP2: MAC2}))
    assert h.kind == "host" and h.ports == {} and h.port is None
    assert h.netmask == 0xFFFF0000 and h.arp_table == {IP2: MAC2}
    assert "10.0.0.1/16" in repr(h)


def test_the_plain_udp_shortcut_counts_and_delivers_like_the_general_path(pair):
    """receive() reads plain UDP straight from the frame; every frame, good or mangled, must
    be counted and delivered exactly as the general path (_receive_ip, _receive_udp) does."""
    import random

    _, _, fast, _ = pair()
    _, _, slow, _ = pair()
    slow._fast_udp = False
    got = {id(fast): [], id(slow): []}
    for h in (fast, slow):
        h.bind_udp(7000, lambda *a, _g=got[id(h)]: _g.append(a))  # noqa: B008 (binds each host's list)
    rng = random.Random(3)
    base = [pk.udp_frame(MAC1, MAC2, IP1, IP2, 1111, port, bytes(rng.randrange(64)) + b"x", tos=tos, ident=i,
                         udp_csum=csum)
            for i, (port, tos, csum) in enumerate([(7000, 0, False), (7000, 3, False), (7001, 0, False),
                                                    (7000, 0, True), (7000, 0x2F, False)])]
    base.append(pk.udp_frame(MAC1, MAC2, IP1, pk.BROADCAST_IP, 1, 7000, b"bcast"))
    base.append(pk.udp_frame(MAC1, MAC2, IP1, pk.parse_ip("10.0.0.255"), 1, 7000, b"subnet bcast"))
    base.append(pk.udp_frame(MAC1, MAC2, IP1, pk.parse_ip("10.0.0.9"), 1, 7000, b"not mine"))
    frames = list(base)
    for f in base:
        frames.append(f[:rng.randrange(14, len(f))])                          # truncated
        for _ in range(40):                                                   # a header byte or two changed
            b = bytearray(f)
            for _ in range(rng.randrange(1, 3)):
                b[rng.randrange(14, 42)] = rng.getrandbits(8)
            frames.append(bytes(b))
        b = bytearray(f)                                                      # fragments, with a good checksum
        b[20] |= rng.choice([0x20, 0x01, 0x40])
        b[24:26] = b"\0\0"
        b[24:26] = pk.checksum(bytes(b[14:34])).to_bytes(2, "big")
        frames.append(bytes(b))
    for f in frames:
        fast.receive(fast.port, f)
        slow.receive(slow.port, f)
    assert fast.stats.as_dict() == slow.stats.as_dict()
    assert got[id(fast)] == got[id(slow)]
    assert fast.stats.udp_delivered > 10 and fast.stats.dropped_bad_checksum > 10 and fast.stats.dropped_unsupported


def test_a_subclass_changing_the_udp_path_keeps_it():
    class Custom(Host):
        def _receive_udp(self, ip):
            self.seen = ip.src

    from dataplane.net.core.sim import Simulator

    assert not Custom(Simulator(), HostSpec("h", MAC1, IP1, 24))._fast_udp
    assert Host(Simulator(), HostSpec("h", MAC1, IP1, 24))._fast_udp


def test_a_tail_sent_apart_makes_the_frame_scapy_builds_for_the_whole_payload(pair):
    """``send_udp(..., tail=t)`` sends the datagram of ``payload + t``: the frame scapy builds
    for that payload (IPv4 identification and checksum, UDP length and checksum, padding of a
    short frame), with the UDP checksum off and on; a memoryview payload with no tail still goes."""
    sim, h1, h2, _ = pair(static_arp=True)
    frames = []
    h2.on_receive(lambda data, t: frames.append(data))
    sends = [(b"\x01\x02", b"\x00" * 1400, False, 0), (b"hd", b"t", False, 0x48), (b"head", b"\xff" * 40, True, 2)]
    for head, tail, csum, tos in sends:
        h1.udp_checksum = csum
        assert h1.send_udp(IP2, 4791, 4791, head, tos, tail)
    h1.udp_checksum = False
    assert h1.send_udp(IP2, 7, 8, memoryview(b"view"))
    sim.run()
    assert len(frames) == 4
    for i, (head, tail, csum, tos) in enumerate(sends):
        expected = Ether(src="08:00:00:00:01:01", dst="08:00:00:00:02:02") / \
            IP(src="10.0.0.1", dst="10.0.0.2", id=i + 1, tos=tos, ttl=64) / UDP(sport=4791, dport=4791) / (head + tail)
        if not csum:
            expected[UDP].chksum = 0
        want = bytes(expected)
        assert frames[i] == want + bytes(max(0, 60 - len(want)))
    assert frames[3][42:46] == b"view"
