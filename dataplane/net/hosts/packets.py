"""Hand-written builders and parsers for the headers hosts speak: Ethernet, ARP, IPv4, UDP, ICMP echo.

Hosts build and parse every packet they send and receive, so this is on the per-packet path
of every simulation: it uses ``struct`` and ``int.to_bytes`` only (scapy costs ~200 us per
packet, ~100x more than this). Addresses are plain ints everywhere (MAC: 48 bits, IPv4: 32
bits) because ints hash, compare and pack fastest; ``mac_str``/``ip_str``/``parse_mac``/
``parse_ip`` convert for people.

Parsers never raise on packet bytes: truncated or malformed input gives ``None``, because
the fabric can corrupt bits (link corruption) and a host must survive whatever arrives.
"""
from __future__ import annotations

import struct

from dataplane.records import record

ETH_HEADER_LEN = 14
ETH_MIN_FRAME = 60            # minimum frame without FCS; NICs pad shorter frames to this
BROADCAST_MAC = 0xFFFF_FFFF_FFFF
BROADCAST_IP = 0xFFFF_FFFF

ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_ARP = 0x0806
ETHERTYPE_VLAN = 0x8100

PROTO_ICMP = 1
PROTO_TCP = 6
PROTO_UDP = 17

ARP_REQUEST = 1
ARP_REPLY = 2

ICMP_ECHO_REPLY = 0
ICMP_ECHO_REQUEST = 8

IPV4_HEADER_LEN = 20
UDP_HEADER_LEN = 8
ICMP_HEADER_LEN = 8

# ECN codepoints: the two low bits of the IPv4 ToS byte (RFC 3168).
ECN_NOT_ECT = 0
ECN_ECT1 = 1
ECN_ECT0 = 2
ECN_CE = 3

_IPV4 = struct.Struct("!BBHHHBBHII")
_UDP = struct.Struct("!HHHH")
_ICMP_ECHO = struct.Struct("!BBHHH")
_ARP = struct.Struct("!HHBBH6sI6sI")
_ARP_FIXED = b"\x00\x01\x08\x00\x06\x04"   # htype Ethernet, ptype IPv4, hlen 6, plen 4


# --------------------------------------------------------------------------- addresses

def mac_str(mac: int) -> str:
    """``0x0800000001_01`` -> ``"08:00:00:00:01:01"``."""
    return ":".join(f"{b:02x}" for b in (mac & BROADCAST_MAC).to_bytes(6, "big"))


def ip_str(ip: int) -> str:
    """``0x0A000101`` -> ``"10.0.1.1"``."""
    return ".".join(str(b) for b in (ip & BROADCAST_IP).to_bytes(4, "big"))


def parse_mac(text: str) -> int:
    """``"08:00:00:00:01:01"`` (or with ``-``) -> int; ValueError if it is not a MAC."""
    parts = text.strip().replace("-", ":").split(":")
    if len(parts) != 6 or not all(1 <= len(p) <= 2 for p in parts):
        raise ValueError(f"not a MAC address: {text!r} (expected six hex bytes like 08:00:00:00:01:01)")
    try:
        return int.from_bytes(bytes(int(p, 16) for p in parts), "big")
    except ValueError:
        raise ValueError(f"not a MAC address: {text!r} (expected six hex bytes like 08:00:00:00:01:01)") from None


def parse_ip(text: str) -> int:
    """``"10.0.1.1"`` -> int; ValueError if it is not a dotted-quad IPv4 address."""
    parts = text.strip().split(".")
    if len(parts) != 4 or not all(p.isdigit() and int(p) <= 255 for p in parts):
        raise ValueError(f"not an IPv4 address: {text!r} (expected a dotted quad like 10.0.1.1)")
    a, b, c, d = (int(p) for p in parts)
    return (a << 24) | (b << 16) | (c << 8) | d


def parse_cidr(text: str, default_prefix: int = 32) -> tuple[int, int]:
    """``"10.0.1.1/24"`` -> (ip, 24); a bare address gets ``default_prefix``."""
    addr, _, prefix = text.strip().partition("/")
    if not prefix:
        return parse_ip(addr), default_prefix
    if not prefix.isdigit() or int(prefix) > 32:
        raise ValueError(f"bad prefix length in {text!r} (expected 0..32)")
    return parse_ip(addr), int(prefix)


def ecn_of(tos: int) -> int:
    return tos & 3


# --------------------------------------------------------------------------- checksum

def checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071) of ``data``.

    Uses 2**16 == 1 (mod 0xFFFF): the one's-complement sum of 16-bit words equals the whole
    buffer read as one big integer modulo 0xFFFF, which CPython computes in C, far faster
    than a Python loop over words. Verifying a buffer that includes its checksum gives 0.
    """
    if len(data) & 1:
        data += b"\x00"
    s = int.from_bytes(data, "big") % 0xFFFF
    if s == 0:
        # A non-zero buffer whose sum is a multiple of 0xFFFF sums to 0xFFFF in one's
        # complement (never to 0), so its checksum is 0; an all-zero buffer sums to 0.
        return 0 if any(data) else 0xFFFF
    return 0xFFFF - s


def _pseudo_header(src_ip: int, dst_ip: int, protocol: int, length: int) -> bytes:
    return struct.pack("!IIBBH", src_ip, dst_ip, 0, protocol, length)


def udp_checksum(src_ip: int, dst_ip: int, udp_segment: bytes) -> int:
    """UDP checksum over the IPv4 pseudo-header and the segment (its checksum field zero);
    0 is sent as 0xFFFF because 0 on the wire means "no checksum"."""
    c = checksum(_pseudo_header(src_ip, dst_ip, PROTO_UDP, len(udp_segment)) + udp_segment)
    return c or 0xFFFF


# --------------------------------------------------------------------------- builders

def ethernet(dst: int, src: int, ethertype: int, payload: bytes = b"", pad: bool = False) -> bytes:
    """An Ethernet II frame (no FCS); ``pad`` fills it to the 60-byte minimum like a NIC does."""
    frame = dst.to_bytes(6, "big") + src.to_bytes(6, "big") + ethertype.to_bytes(2, "big") + payload
    if pad and len(frame) < ETH_MIN_FRAME:
        frame += bytes(ETH_MIN_FRAME - len(frame))
    return frame


def arp(op: int, sender_mac: int, sender_ip: int, target_mac: int, target_ip: int) -> bytes:
    """The 28-byte ARP body for IPv4 over Ethernet."""
    return _ARP.pack(1, ETHERTYPE_IPV4, 6, 4, op, sender_mac.to_bytes(6, "big"), sender_ip,
                     target_mac.to_bytes(6, "big"), target_ip)


def arp_request(src_mac: int, src_ip: int, target_ip: int, pad: bool = True) -> bytes:
    """A broadcast who-has frame (target MAC zero, as RFC 826 senders set it)."""
    return ethernet(BROADCAST_MAC, src_mac, ETHERTYPE_ARP, arp(ARP_REQUEST, src_mac, src_ip, 0, target_ip), pad)


def arp_reply(src_mac: int, src_ip: int, dst_mac: int, dst_ip: int, pad: bool = True) -> bytes:
    """A unicast is-at frame answering ``dst_ip``/``dst_mac``."""
    return ethernet(dst_mac, src_mac, ETHERTYPE_ARP, arp(ARP_REPLY, src_mac, src_ip, dst_mac, dst_ip), pad)


def ipv4_header(src: int, dst: int, protocol: int, payload_len: int, ttl: int = 64, ident: int = 0,
                tos: int = 0, df: bool = False) -> bytes:
    """A 20-byte IPv4 header (no options) with its checksum filled in."""
    tos &= 0xFF
    ttl &= 0xFF
    protocol &= 0xFF
    ident &= 0xFFFF
    total = IPV4_HEADER_LEN + payload_len
    frag = 0x4000 if df else 0
    # checksum() of the packed header without packing it twice: as 2**16 == 1 (mod 0xFFFF), the
    # header read as one integer is the sum of its fields, each weighted by 1 or 2**8 (a field's
    # position within its 16-bit word); the version byte makes the header non-zero, so a sum
    # that is a multiple of 0xFFFF gives 0. Out-of-range values still fail in pack, as they did.
    s = (0x4500 + tos + total + ident + frag + (ttl << 8) + protocol + src + dst) % 0xFFFF
    return _IPV4.pack(0x45, tos, total, ident, frag, ttl, protocol, 0xFFFF - s if s else 0, src, dst)


def ipv4(src: int, dst: int, protocol: int, payload: bytes, ttl: int = 64, ident: int = 0, tos: int = 0,
         df: bool = False) -> bytes:
    """An IPv4 packet: header (checksummed) + payload."""
    return ipv4_header(src, dst, protocol, len(payload), ttl, ident, tos, df) + payload


def udp(src_port: int, dst_port: int, payload: bytes, src_ip: int | None = None, dst_ip: int | None = None) -> bytes:
    """A UDP segment; with both IPs given the checksum is computed, otherwise it is 0 (allowed
    over IPv4 and cheaper, which matters for long flows)."""
    length = UDP_HEADER_LEN + len(payload)
    seg = _UDP.pack(src_port, dst_port, length, 0) + payload
    if src_ip is None or dst_ip is None:
        return seg
    return seg[:6] + udp_checksum(src_ip, dst_ip, seg).to_bytes(2, "big") + seg[8:]


def icmp_echo(icmp_type: int, ident: int, seq: int, payload: bytes = b"") -> bytes:
    """An ICMP echo request (type 8) or reply (type 0) with its checksum."""
    msg = _ICMP_ECHO.pack(icmp_type, 0, 0, ident & 0xFFFF, seq & 0xFFFF) + payload
    return msg[:2] + checksum(msg).to_bytes(2, "big") + msg[4:]


def icmp_echo_request(ident: int, seq: int, payload: bytes = b"") -> bytes:
    return icmp_echo(ICMP_ECHO_REQUEST, ident, seq, payload)


def icmp_echo_reply(ident: int, seq: int, payload: bytes = b"") -> bytes:
    return icmp_echo(ICMP_ECHO_REPLY, ident, seq, payload)


def udp_frame(src_mac: int, dst_mac: int, src_ip: int, dst_ip: int, src_port: int, dst_port: int,
              payload: bytes, tos: int = 0, ttl: int = 64, ident: int = 0, udp_csum: bool = False,
              pad: bool = True) -> bytes:
    """A whole Ethernet/IPv4/UDP frame (convenience for tests and apps that send raw frames)."""
    seg = udp(src_port, dst_port, payload, src_ip, dst_ip) if udp_csum else udp(src_port, dst_port, payload)
    return ethernet(dst_mac, src_mac, ETHERTYPE_IPV4, ipv4(src_ip, dst_ip, PROTO_UDP, seg, ttl, ident, tos), pad)


def udp_frame_len(payload_len: int) -> int:
    """Bytes on the wire (no FCS, padded) for a UDP payload of ``payload_len`` bytes."""
    return max(ETH_MIN_FRAME, ETH_HEADER_LEN + IPV4_HEADER_LEN + UDP_HEADER_LEN + payload_len)


# --------------------------------------------------------------------------- parsed forms

@record(slots=True)
class Ethernet:
    dst: int
    src: int
    ethertype: int
    payload: bytes
    vlan: int | None = None      # the VLAN id if one 802.1Q tag was present


@record(slots=True)
class Arp:
    op: int
    sender_mac: int
    sender_ip: int
    target_mac: int
    target_ip: int


@record(slots=True)
class IPv4:
    tos: int
    total_length: int
    ident: int
    flags: int                   # 3 bits: reserved, DF, MF
    frag_offset: int             # in 8-byte units
    ttl: int
    protocol: int
    checksum: int
    src: int
    dst: int
    header_len: int
    payload: bytes               # trimmed to total_length (Ethernet padding removed)
    checksum_ok: bool

    @property
    def ecn(self) -> int:
        return self.tos & 3

    @property
    def dscp(self) -> int:
        return self.tos >> 2


@record(slots=True)
class Udp:
    src_port: int
    dst_port: int
    length: int
    checksum: int
    payload: bytes


@record(slots=True)
class Icmp:
    type: int
    code: int
    checksum: int
    ident: int                   # echo id (the first half of the rest-of-header for other types)
    seq: int
    payload: bytes
    checksum_ok: bool


@record(slots=True)
class Packet:
    """All layers found in one frame; absent layers are None."""
    eth: Ethernet
    arp: Arp | None = None
    ip: IPv4 | None = None
    udp: Udp | None = None
    icmp: Icmp | None = None


# --------------------------------------------------------------------------- parsers

def parse_ethernet(data: bytes) -> Ethernet | None:
    """Ethernet II, skipping one 802.1Q tag if present; None if shorter than a header."""
    if len(data) < ETH_HEADER_LEN:
        return None
    ethertype = (data[12] << 8) | data[13]
    if ethertype == ETHERTYPE_VLAN:
        if len(data) < ETH_HEADER_LEN + 4:
            return None
        vlan = ((data[14] << 8) | data[15]) & 0x0FFF
        return Ethernet(int.from_bytes(data[0:6], "big"), int.from_bytes(data[6:12], "big"),
                        (data[16] << 8) | data[17], data[18:], vlan)
    return Ethernet(int.from_bytes(data[0:6], "big"), int.from_bytes(data[6:12], "big"), ethertype, data[14:])


def parse_arp(body: bytes) -> Arp | None:
    """IPv4-over-Ethernet ARP only; other hardware/protocol types give None."""
    if len(body) < 28 or body[:6] != _ARP_FIXED:
        return None
    _, _, _, _, op, sha, spa, tha, tpa = _ARP.unpack_from(body)
    return Arp(op, int.from_bytes(sha, "big"), spa, int.from_bytes(tha, "big"), tpa)


def parse_ipv4(data: bytes) -> IPv4 | None:
    """An IPv4 packet; None if not version 4, the header length is bad, or bytes are missing.
    A wrong header checksum is reported (``checksum_ok``), not hidden, so callers can count it."""
    if len(data) < IPV4_HEADER_LEN:
        return None
    vihl, tos, total, ident, frag, ttl, proto, csum, src, dst = _IPV4.unpack_from(data)
    ihl = (vihl & 0x0F) * 4
    if vihl >> 4 != 4 or ihl < IPV4_HEADER_LEN or total < ihl or len(data) < total:
        return None
    if ihl == IPV4_HEADER_LEN:
        # checksum(data[:20]) == 0 from the unpacked fields, as in ipv4_header (version 4: non-zero).
        ok = ((vihl << 8) + tos + total + ident + frag + (ttl << 8) + proto + csum + src + dst) % 0xFFFF == 0
    else:
        ok = checksum(data[:ihl]) == 0
    return IPv4(tos, total, ident, frag >> 13, frag & 0x1FFF, ttl, proto, csum, src, dst, ihl, data[ihl:total], ok)


def parse_udp(data: bytes) -> Udp | None:
    """A UDP segment, payload trimmed to the UDP length; None if truncated or the length lies."""
    if len(data) < UDP_HEADER_LEN:
        return None
    sport, dport, length, csum = _UDP.unpack_from(data)
    if length < UDP_HEADER_LEN or length > len(data):
        return None
    return Udp(sport, dport, length, csum, data[UDP_HEADER_LEN:length])


def parse_icmp(data: bytes) -> Icmp | None:
    """An ICMP message (id/seq meaningful for echo); None if shorter than its 8-byte header."""
    if len(data) < ICMP_HEADER_LEN:
        return None
    t, code, csum, ident, seq = _ICMP_ECHO.unpack_from(data)
    return Icmp(t, code, csum, ident, seq, data[ICMP_HEADER_LEN:], checksum(data) == 0)


def parse_packet(data: bytes) -> Packet | None:
    """Every layer this module knows, for tests and apps; None if not even Ethernet.
    An inner layer that fails to parse is left None rather than failing the whole frame."""
    eth = parse_ethernet(data)
    if eth is None:
        return None
    pkt = Packet(eth)
    if eth.ethertype == ETHERTYPE_ARP:
        pkt.arp = parse_arp(eth.payload)
    elif eth.ethertype == ETHERTYPE_IPV4:
        ip = pkt.ip = parse_ipv4(eth.payload)
        if ip is not None and ip.frag_offset == 0:
            if ip.protocol == PROTO_UDP:
                pkt.udp = parse_udp(ip.payload)
            elif ip.protocol == PROTO_ICMP:
                pkt.icmp = parse_icmp(ip.payload)
    return pkt
