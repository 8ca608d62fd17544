"""INT-MD over UDP (P4.org In-band Network Telemetry v2.1) and Telemetry Report v2.0, read from
bytes: what ``programs/int.p4`` writes, for the collector and for hosts that echo a stack.

INT over UDP puts, after the UDP header (whose destination port reads ``INT_UDP_PORT``):

    shim (4 bytes)     type:4 (1 = INT-MD) | NPT:2 | reserved:2 | length:8 (words after the shim)
                       | original UDP destination port:16 (NPT 1) or 0:8 + IP protocol:8 (NPT 2)
    INT-MD (12 bytes)  version:4 (2) | D | E | M | reserved:12 | Hop ML:5 | remaining hop count:8
                       | instruction bitmap:16 | domain specific id:16
                       | DS instruction:16 | DS flags:16
    the stack          one record of Hop ML words per hop, the newest (the last switch) first

A hop's record holds, in this order, the metadata of each instruction bit set (bit 0 is the
bitmap's most significant bit): ``INSTRUCTIONS`` lists them with their sizes. All ones in a
field means "not available". ``HopRecord`` names the fields as programs/int.p4 fills them
(times in ns of simulated time; ``egress_tx_bytes`` is the egress port's byte count modulo
2^32, not a rate).

A telemetry report (UDP to the collector's port) is an 8-byte group header (version:4, hw_id:6,
sequence:22, node id:32), then individual reports: a 4-byte header (RepType:4, InType:4, report
length:8 in words after this word, MD length:8, D, Q, F, I, reserved:4) and main contents
(RepMdBits:16, domain id:16, DSMdBits:16, DSMdStatus:16, then the metadata RepMdBits names),
then the inner packet (InType 4: from its IPv4 header; 3: from Ethernet).
"""
from __future__ import annotations

import struct
from typing import Optional

from dataplane.records import record

__all__ = ["INT_UDP_PORT", "REPORT_UDP_PORT", "INSTRUCTIONS", "IntFormatError", "IntHeader", "IntPacket",
           "HopRecord", "TelemetryReport", "instruction_bitmap", "hop_words", "parse_int", "parse_hops",
           "parse_report"]

INT_UDP_PORT = 5000          # programs/int.p4's INT_UDP_PORT (the spec leaves it to the deployment)
REPORT_UDP_PORT = 32766      # where reports go unless configured otherwise
INT_TYPE_MD = 1
INT_VERSION = 2
NPT_UDP_PAYLOAD = 1
NPT_L4_HEADER = 2
SHIM_BYTES = 4
MD_HEADER_BYTES = 12

#: instruction bit -> (name, words); bit 0 is the bitmap's most significant bit
INSTRUCTIONS: dict[int, tuple[str, int]] = {
    0: ("node_id", 1),
    1: ("level1_port_ids", 1),
    2: ("hop_latency", 1),
    3: ("queue", 1),
    4: ("ingress_timestamp", 2),
    5: ("egress_timestamp", 2),
    6: ("level2_port_ids", 2),
    7: ("egress_tx", 1),
    8: ("buffer", 1),
    15: ("checksum_complement", 1),
}
_BY_NAME = {name: bit for bit, (name, _) in INSTRUCTIONS.items()}
RESERVED_BITS = 0x007E        # bits 9-14


class IntFormatError(ValueError):
    """Bytes that are not what the INT or telemetry report format says."""


def instruction_bitmap(*names: str) -> int:
    """The 16-bit instruction bitmap asking for ``names`` (keys of ``INSTRUCTIONS``' names)."""
    value = 0
    for name in names:
        if name not in _BY_NAME:
            raise ValueError(f"unknown INT instruction {name!r} (known: {', '.join(_BY_NAME)})")
        value |= 0x8000 >> _BY_NAME[name]
    return value


def hop_words(bitmap: int) -> int:
    """Per-hop metadata length (Hop ML) in 4-byte words for ``bitmap`` (reserved bits not counted)."""
    return sum(words for bit, (_, words) in INSTRUCTIONS.items() if bitmap & (0x8000 >> bit))


@record(slots=True)
class HopRecord:
    """One hop's metadata; None for what the instructions did not ask for or the hop left all ones."""

    node_id: Optional[int] = None
    ingress_port: Optional[int] = None
    egress_port: Optional[int] = None
    hop_latency_ns: Optional[int] = None
    queue_id: Optional[int] = None
    queue_bytes: Optional[int] = None
    ingress_ts_ns: Optional[int] = None
    egress_ts_ns: Optional[int] = None
    level2_ingress_port: Optional[int] = None
    level2_egress_port: Optional[int] = None
    egress_tx_bytes: Optional[int] = None
    buffer_id: Optional[int] = None
    buffer_bytes: Optional[int] = None

    def as_dict(self) -> dict[str, Optional[int]]:
        return {name: getattr(self, name) for name in HOP_FIELDS}


HOP_FIELDS = ("node_id", "ingress_port", "egress_port", "hop_latency_ns", "queue_id", "queue_bytes", "ingress_ts_ns",
              "egress_ts_ns", "level2_ingress_port", "level2_egress_port", "egress_tx_bytes", "buffer_id",
              "buffer_bytes")


@record(slots=True)
class IntHeader:
    """The INT-MD metadata header."""

    version: int
    discard: bool
    hop_count_exceeded: bool     # E
    mtu_exceeded: bool           # M
    hop_ml: int
    remaining_hop_count: int
    instructions: int
    domain_id: int
    ds_instruction: int
    ds_flags: int


@record(slots=True)
class IntPacket:
    """A UDP payload carrying INT-MD: the shim, the header, the hops (newest first), and what follows."""

    npt: int
    original_port: Optional[int]      # NPT 1: the UDP destination port the source replaced
    original_protocol: Optional[int]  # NPT 2: the IP protocol of the L4 header after the stack
    header: IntHeader
    hops: list
    stack: bytes                      # the stack as it travelled (to echo it, e.g. in an ACK)
    payload: bytes

    @property
    def int_bytes(self) -> int:
        """Bytes INT takes in the datagram: shim, header and stack."""
        return SHIM_BYTES + MD_HEADER_BYTES + len(self.stack)


def _opt(value: int, width_bits: int) -> Optional[int]:
    return None if value == (1 << width_bits) - 1 else value


def parse_hops(stack: bytes, instructions: int, hop_ml: int) -> list[HopRecord]:
    """The hop records of ``stack`` (newest first), each ``hop_ml`` words of the metadata that
    ``instructions`` names. IntFormatError when the stack is not whole records, or the bitmap
    has reserved bits or is not ``hop_ml`` words long (the records could not be read)."""
    if hop_ml <= 0:
        if stack:
            raise IntFormatError(f"a stack of {len(stack)} bytes with a Hop ML of 0")
        return []
    if instructions & RESERVED_BITS:
        raise IntFormatError(f"instruction bitmap {instructions:#06x} has reserved bits (9-14) set")
    if hop_words(instructions) != hop_ml:
        raise IntFormatError(f"instruction bitmap {instructions:#06x} asks for {hop_words(instructions)} words a hop, "
                             f"the header says {hop_ml}")
    size = hop_ml * 4
    if len(stack) % size:
        raise IntFormatError(f"a stack of {len(stack)} bytes is not whole hops of {size} bytes")
    hops = []
    for start in range(0, len(stack), size):
        hops.append(_hop(stack[start:start + size], instructions))
    return hops


def _hop(data: bytes, instructions: int) -> HopRecord:
    rec = HopRecord()
    pos = 0
    for bit in sorted(INSTRUCTIONS):
        if not instructions & (0x8000 >> bit):
            continue
        name, words = INSTRUCTIONS[bit]
        if words == 1:
            (v,) = struct.unpack_from("!I", data, pos)
        else:
            (v,) = struct.unpack_from("!Q", data, pos)
        pos += words * 4
        if name == "node_id":
            rec.node_id = _opt(v, 32)
        elif name == "level1_port_ids":
            if v != 0xFFFFFFFF:
                rec.ingress_port, rec.egress_port = v >> 16, v & 0xFFFF
        elif name == "hop_latency":
            rec.hop_latency_ns = _opt(v, 32)
        elif name == "queue":
            if v != 0xFFFFFFFF:
                rec.queue_id, rec.queue_bytes = v >> 24, v & 0xFFFFFF
        elif name == "ingress_timestamp":
            rec.ingress_ts_ns = _opt(v, 64)
        elif name == "egress_timestamp":
            rec.egress_ts_ns = _opt(v, 64)
        elif name == "level2_port_ids":
            if v != (1 << 64) - 1:
                rec.level2_ingress_port, rec.level2_egress_port = v >> 32, v & 0xFFFFFFFF
        elif name == "egress_tx":
            rec.egress_tx_bytes = _opt(v, 32)
        elif name == "buffer":
            if v != 0xFFFFFFFF:
                rec.buffer_id, rec.buffer_bytes = v >> 24, v & 0xFFFFFF
    return rec


def parse_int(udp_payload: bytes) -> IntPacket:
    """The INT-MD of a UDP payload that starts with the shim (the datagram went to INT_UDP_PORT)."""
    if len(udp_payload) < SHIM_BYTES + MD_HEADER_BYTES:
        raise IntFormatError(f"{len(udp_payload)} bytes: too short for the INT shim and INT-MD header (16)")
    first, length, npt_field = struct.unpack_from("!BBH", udp_payload, 0)
    kind, npt = first >> 4, (first >> 2) & 3
    if kind != INT_TYPE_MD:
        raise IntFormatError(f"INT shim type {kind}: only INT-MD (1) is read here")
    if length < 3:
        raise IntFormatError(f"INT shim length {length} is shorter than the INT-MD header (3 words)")
    end = SHIM_BYTES + length * 4
    if end > len(udp_payload):
        raise IntFormatError(f"the INT shim says {length * 4} bytes follow it, the datagram has "
                             f"{len(udp_payload) - SHIM_BYTES}")
    w0, bitmap, domain, ds_ins, ds_flags = struct.unpack_from("!IHHHH", udp_payload, SHIM_BYTES)
    header = IntHeader(version=w0 >> 28, discard=bool(w0 >> 27 & 1), hop_count_exceeded=bool(w0 >> 26 & 1),
                       mtu_exceeded=bool(w0 >> 25 & 1), hop_ml=w0 >> 8 & 0x1F, remaining_hop_count=w0 & 0xFF,
                       instructions=bitmap, domain_id=domain, ds_instruction=ds_ins, ds_flags=ds_flags)
    if header.version != INT_VERSION:
        raise IntFormatError(f"INT-MD version {header.version}: version 2 is read here")
    stack = bytes(udp_payload[SHIM_BYTES + MD_HEADER_BYTES:end])
    hops = parse_hops(stack, bitmap, header.hop_ml)
    return IntPacket(npt=npt, original_port=npt_field if npt == NPT_UDP_PAYLOAD else None,
                     original_protocol=npt_field & 0xFF if npt == NPT_L4_HEADER else None,
                     header=header, hops=hops, stack=stack, payload=bytes(udp_payload[end:]))


@record(slots=True)
class TelemetryReport:
    """One telemetry report with one INT individual report whose inner packet is IPv4/UDP with INT-MD."""

    seq: int
    node_id: int
    hw_id: int
    dropped: bool
    congested: bool
    tracked_flow: bool
    intermediate: bool
    src_ip: int                    # of the inner (monitored) packet
    dst_ip: int
    protocol: int
    src_port: int
    dst_port: int                  # the original one, from the shim
    int_packet: IntPacket
    truncated: bool                # the inner packet ends before its INT stack does


def parse_report(udp_payload: bytes) -> TelemetryReport:
    """A report as programs/int.p4's sink sends it: group header, one individual report of RepType
    1 (INT) with InType 4 (IPv4) or 3 (Ethernet), the inner packet IPv4/UDP with INT-MD."""
    if len(udp_payload) < 8 + 4 + 8:
        raise IntFormatError(f"{len(udp_payload)} bytes: too short for a telemetry report (20)")
    g0, node_id = struct.unpack_from("!II", udp_payload, 0)
    version = g0 >> 28
    if version != 2:
        raise IntFormatError(f"telemetry report version {version}: version 2 is read here")
    i0, _md_bits, _domain, _ds_bits, _ds_status = struct.unpack_from("!IHHHH", udp_payload, 8)
    rep_type, in_type = i0 >> 28, i0 >> 24 & 0xF
    rep_len, md_len, flags = i0 >> 16 & 0xFF, i0 >> 8 & 0xFF, i0 & 0xFF
    if rep_type != 1:
        raise IntFormatError(f"individual report type {rep_type}: only INT (1) is read here")
    start = 8 + 4 + 8 + md_len * 4
    end = 8 + 4 + rep_len * 4
    if end > len(udp_payload) or start > end:
        raise IntFormatError(f"the individual report says {rep_len * 4} bytes follow its first word "
                             f"({md_len * 4} of metadata); the datagram has {len(udp_payload) - 12}")
    inner = bytes(udp_payload[start:end])
    if in_type == 3:        # Ethernet first
        if len(inner) < 14 or inner[12:14] != b"\x08\x00":
            raise IntFormatError("the inner Ethernet frame does not carry IPv4")
        inner = inner[14:]
    elif in_type != 4:
        raise IntFormatError(f"inner type {in_type}: only IPv4 (4) and Ethernet (3) are read here")
    if len(inner) < 20 + 8 or inner[0] >> 4 != 4:
        raise IntFormatError("the inner packet is not IPv4 with a UDP header")
    ihl = (inner[0] & 0xF) * 4
    protocol = inner[9]
    src_ip, dst_ip = struct.unpack_from("!II", inner, 12)
    if protocol != 17 or len(inner) < ihl + 8:
        raise IntFormatError(f"the inner packet's protocol is {protocol}, not UDP")
    sport, dport, ulen, _ = struct.unpack_from("!HHHH", inner, ihl)
    if dport != INT_UDP_PORT:
        raise IntFormatError(f"the inner datagram goes to UDP port {dport}, not INT's {INT_UDP_PORT}")
    body = inner[ihl + 8:]
    truncated = False
    if len(body) >= SHIM_BYTES and SHIM_BYTES + body[1] * 4 > len(body):
        truncated = True     # an 8-bit report length cut the stack: keep the whole hops that came
        keep = SHIM_BYTES + MD_HEADER_BYTES
        if len(body) >= keep:
            hop_ml = struct.unpack_from("!I", body, SHIM_BYTES)[0] >> 8 & 0x1F
            size = max(hop_ml * 4, 1)
            keep += (len(body) - keep) // size * size
        body = body[:1] + bytes([(keep - SHIM_BYTES) // 4]) + body[2:keep]
    pkt = parse_int(body)
    return TelemetryReport(seq=g0 & 0x3FFFFF, node_id=node_id, hw_id=g0 >> 22 & 0x3F, dropped=bool(flags & 0x80),
                           congested=bool(flags & 0x40), tracked_flow=bool(flags & 0x20),
                           intermediate=bool(flags & 0x10), src_ip=src_ip, dst_ip=dst_ip, protocol=protocol,
                           src_port=sport, dst_port=pkt.original_port if pkt.original_port is not None else dport,
                           int_packet=pkt, truncated=truncated)
