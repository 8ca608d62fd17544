"""Hand-written header builders/parsers agree with scapy, checksum right, never raise on junk."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.l2 import ARP, Dot1Q, Ether

from dataplane.net.hosts import packets as pk

MAC_A, MAC_B = pk.parse_mac("08:00:00:00:01:11"), pk.parse_mac("08:00:00:00:02:22")
IP_A, IP_B = pk.parse_ip("10.0.1.1"), pk.parse_ip("10.0.2.2")


def test_address_conversions():
    assert pk.mac_str(MAC_A) == "08:00:00:00:01:11"
    assert pk.parse_mac("08-00-00-00-01-11") == MAC_A == 0x080000000111
    assert pk.ip_str(IP_A) == "10.0.1.1" and IP_A == 0x0A000101
    assert pk.parse_cidr("10.0.1.1/24") == (IP_A, 24)
    assert pk.parse_cidr("10.0.1.1") == (IP_A, 32)
    for bad in ("10.0.1", "10.0.1.256", "a.b.c.d", ""):
        with pytest.raises(ValueError):
            pk.parse_ip(bad)
    for bad in ("08:00:00:00:01", "zz:00:00:00:00:00", "080000000111"):
        with pytest.raises(ValueError):
            pk.parse_mac(bad)
    with pytest.raises(ValueError):
        pk.parse_cidr("10.0.0.1/33")


def test_checksum_rfc1071_example():
    # RFC 1071 section 3: words 0001 f203 f4f5 f6f7 sum to ddf2 (end-around carry); checksum 220d.
    assert pk.checksum(bytes.fromhex("0001f203f4f5f6f7")) == 0x220D
    assert pk.checksum(b"\x00\x00") == 0xFFFF
    assert pk.checksum(b"\xff\xff") == 0          # sums to 0xFFFF, a valid non-zero buffer
    assert pk.checksum(b"\x01") == pk.checksum(b"\x01\x00")  # odd length pads with zero


def test_udp_frame_matches_scapy():
    payload = b"hello fabric"
    frame = pk.udp_frame(MAC_A, MAC_B, IP_A, IP_B, 1234, 5001, payload, tos=0x02, ttl=17, ident=77, udp_csum=True)
    p = Ether(frame)
    assert (p.src, p.dst, p.type) == ("08:00:00:00:01:11", "08:00:00:00:02:22", 0x0800)
    assert (p[IP].src, p[IP].dst, p[IP].tos, p[IP].ttl, p[IP].id, p[IP].proto) == ("10.0.1.1", "10.0.2.2", 2, 17, 77, 17)
    assert p[IP].len == 20 + 8 + len(payload)
    assert (p[UDP].sport, p[UDP].dport, p[UDP].len, p[UDP].load) == (1234, 5001, 8 + len(payload), payload)
    # scapy recomputes both checksums when they are deleted; they must be what we wrote.
    ip_sum, udp_sum = p[IP].chksum, p[UDP].chksum
    del p[IP].chksum, p[UDP].chksum
    q = Ether(bytes(p))
    assert (q[IP].chksum, q[UDP].chksum) == (ip_sum, udp_sum)
    assert len(frame) == 60 and pk.udp_frame_len(len(payload)) == 60   # padded to the Ethernet minimum


def test_icmp_echo_matches_scapy():
    frame = pk.ethernet(MAC_B, MAC_A, pk.ETHERTYPE_IPV4,
                        pk.ipv4(IP_A, IP_B, pk.PROTO_ICMP, pk.icmp_echo_request(0x1234, 7, b"x" * 56)))
    p = Ether(frame)
    assert (p[ICMP].type, p[ICMP].id, p[ICMP].seq, bytes(p[ICMP].payload)) == (8, 0x1234, 7, b"x" * 56)
    sums = p[IP].chksum, p[ICMP].chksum
    del p[IP].chksum, p[ICMP].chksum
    q = Ether(bytes(p))
    assert (q[IP].chksum, q[ICMP].chksum) == sums
    reply = pk.icmp_echo_reply(1, 2, b"ab")
    assert ICMP(reply).type == 0 and pk.parse_icmp(reply).checksum_ok


def test_arp_matches_scapy():
    req = Ether(pk.arp_request(MAC_A, IP_A, IP_B))
    assert req.dst == "ff:ff:ff:ff:ff:ff" and req.type == 0x0806 and len(bytes(req)) == 60
    assert (req[ARP].op, req[ARP].hwsrc, req[ARP].psrc, req[ARP].pdst) == (1, "08:00:00:00:01:11", "10.0.1.1", "10.0.2.2")
    rep = Ether(pk.arp_reply(MAC_B, IP_B, MAC_A, IP_A))
    assert (rep.dst, rep[ARP].op, rep[ARP].hwsrc, rep[ARP].hwdst, rep[ARP].psrc) == (
        "08:00:00:00:01:11", 2, "08:00:00:00:02:22", "08:00:00:00:01:11", "10.0.2.2")


def test_parsers_read_scapy_packets():
    s = Ether(src="08:00:00:00:01:11", dst="08:00:00:00:02:22") / IP(src="10.0.1.1", dst="10.0.2.2", tos=0x03,
                                                                       ttl=5, id=9) / UDP(sport=7, dport=9) / b"data"
    p = pk.parse_packet(bytes(s) + b"\x00" * 10)          # trailing padding must be ignored
    assert (p.eth.src, p.eth.dst) == (MAC_A, MAC_B)
    assert (p.ip.src, p.ip.dst, p.ip.ecn, p.ip.dscp, p.ip.ttl, p.ip.ident, p.ip.checksum_ok) == (IP_A, IP_B, 3, 0, 5, 9, True)
    assert (p.udp.src_port, p.udp.dst_port, p.udp.payload) == (7, 9, b"data")
    assert pk.checksum(pk._pseudo_header(IP_A, IP_B, 17, p.udp.length) + p.ip.payload) == 0  # scapy's UDP checksum verifies
    a = pk.parse_packet(bytes(Ether() / ARP(op=2, hwsrc="08:00:00:00:02:22", psrc="10.0.2.2", pdst="10.0.1.1")))
    assert (a.arp.op, a.arp.sender_mac, a.arp.sender_ip, a.arp.target_ip) == (2, MAC_B, IP_B, IP_A)
    i = pk.parse_packet(bytes(Ether() / IP(src="10.0.1.1", dst="10.0.2.2") / ICMP(type=0, id=5, seq=6) / b"pp"))
    assert (i.icmp.type, i.icmp.ident, i.icmp.seq, i.icmp.payload, i.icmp.checksum_ok) == (0, 5, 6, b"pp", True)
    v = pk.parse_ethernet(bytes(Ether() / Dot1Q(vlan=42) / IP()))
    assert v.vlan == 42 and v.ethertype == 0x0800


def test_bad_checksum_is_reported():
    frame = bytearray(pk.udp_frame(MAC_A, MAC_B, IP_A, IP_B, 1, 2, b"z"))
    frame[14 + 8] ^= 0x01                                   # flip a TTL bit
    assert pk.parse_packet(bytes(frame)).ip.checksum_ok is False


def test_truncated_input_gives_none():
    frame = pk.udp_frame(MAC_A, MAC_B, IP_A, IP_B, 1, 2, b"payload!", pad=False)
    body = frame[14:]
    for n in range(len(body)):
        assert pk.parse_ipv4(body[:n]) is None
    assert pk.parse_ethernet(frame[:13]) is None
    assert pk.parse_udp(body[20:27]) is None
    assert pk.parse_udp(b"\x00\x01\x00\x02\x00\x04\x00\x00") is None   # length shorter than the header
    assert pk.parse_arp(pk.arp_request(MAC_A, IP_A, IP_B)[14:41]) is None
    assert pk.parse_icmp(b"\x08\x00\x00") is None
    assert pk.parse_ipv4(b"\x65" + body[1:]) is None               # version 6
    assert pk.parse_ipv4(b"\x44" + body[1:]) is None               # IHL 4


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120))
def test_parsers_never_raise(data):
    """Any bytes parse without an exception, to None or to layers that are the bytes' own:
    Ethernet needs 14 bytes and carries the rest as payload, UDP's payload ends where its length
    field says, ICMP's is everything after its 8-byte header, IPv4 is version 4 within the data."""
    for frame in (data, bytes(12) + b"\x08\x00\x45" + data, bytes(12) + b"\x08\x06" + data):
        pkt = pk.parse_packet(frame)
        assert (pkt is None) == (len(frame) < 14 or (frame[12:14] == b"\x81\x00" and len(frame) < 18))
        if pkt is not None:
            assert frame.endswith(pkt.eth.payload) and pkt.eth.src == int.from_bytes(frame[6:12], "big")
    eth = pk.parse_ethernet(data)
    assert eth is None or data.endswith(eth.payload)
    udp = pk.parse_udp(data)
    if udp is None:
        assert len(data) < 8 or not 8 <= int.from_bytes(data[4:6], "big") <= len(data)
    else:
        assert udp.payload == data[8:udp.length] and udp.length == int.from_bytes(data[4:6], "big")
    icmp = pk.parse_icmp(data)
    assert (icmp is None) == (len(data) < 8) and (icmp is None or icmp.payload == data[8:])
    ip = pk.parse_ipv4(data)
    assert ip is None or (data[0] >> 4 == 4 and 20 <= 4 * (data[0] & 0xF) <= ip.total_length <= len(data))
    arp = pk.parse_arp(data)
    assert arp is None or len(data) >= 28


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(0, 300), st.integers(0, 65515),
       st.integers(0, 300), st.integers(0, 2**17), st.integers(0, 300), st.booleans())
def test_ipv4_header_checksum_is_the_rfc1071_one(src, dst, proto, length, ttl, ident, tos, df):
    hdr = pk.ipv4_header(src, dst, proto, length, ttl, ident, tos, df)
    zeroed = pk._IPV4.pack(0x45, tos & 0xFF, 20 + length, ident & 0xFFFF, 0x4000 if df else 0, ttl & 0xFF,
                           proto & 0xFF, 0, src, dst)
    assert hdr == zeroed[:10] + pk.checksum(zeroed).to_bytes(2, "big") + zeroed[12:]
    assert pk.checksum(hdr) == 0


@settings(max_examples=400, deadline=None)
@given(st.binary(min_size=20, max_size=20), st.integers(0, 0xFFFF), st.binary(max_size=8))
def test_parse_ipv4_checksum_ok_is_a_zero_checksum(header, csum, rest):
    data = b"\x45" + header[1:10] + csum.to_bytes(2, "big") + header[12:] + rest
    ip = pk.parse_ipv4(data)
    if ip is not None:
        assert ip.checksum_ok == (pk.checksum(data[:20]) == 0)
    fixed = pk.ipv4_header(0x0A000001, 0x0A000002, 17, len(rest), 64, csum, header[1]) + rest
    assert pk.parse_ipv4(fixed).checksum_ok
