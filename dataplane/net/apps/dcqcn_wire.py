"""RoCEv2 on the wire for the DCQCN hosts: the BTH, data and CNP layouts, and the per-host
endpoint that owns UDP port 4791 and hands packets to senders and receivers by QP.

Wire format, RoCEv2-shaped so Wireshark decodes it (UDP destination port 4791):
data ``BTH(opcode 0x04 RC SEND-only, pkey 0xFFFF, dest QP, PSN)`` then ``seq:u64
send_time_ns:u64``, zero padding to ``payload_bytes``, and a 4-byte ICRC (zeros, not
computed); CNP ``BTH(opcode 0x81, dest QP = the sender's QP)`` then 16 reserved bytes and
the ICRC, sent Not-ECT with DSCP 48. Data packets are ECT(0). Simplification: a sender's QP
number is also its UDP source port (the flow's ECMP entropy), so the receiver addresses a
CNP to the UDP source port of the marked packet; a receiver's QP number is fixed per receiver
(default 1).
"""
from __future__ import annotations

import struct
import weakref
from typing import Callable, Protocol

from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.host import Host

__all__ = ["ROCE_PORT", "OP_SEND_ONLY", "OP_CNP", "CNP_TOS", "BTH", "APP_HEADER", "ICRC", "QP_MASK",
           "RoceEndpoint", "data_frame_len", "cnp_payload", "parse_bth"]

ROCE_PORT = 4791
OP_SEND_ONLY = 0x04          # RC SEND Only
OP_CNP = 0x81                # RoCEv2 congestion notification packet
CNP_TOS = 48 << 2            # DSCP 48, Not-ECT
BTH = struct.Struct("!BBHII")  # opcode, flags (SE/M/pad/TVer), P_Key, rsvd:8 dest QP:24, A:1 rsvd:7 PSN:24
APP_HEADER = struct.Struct("!QQ")  # our payload header: sequence, send time (ns)
ICRC = bytes(4)
QP_MASK = 0xFFFFFF
_unpack_bth = BTH.unpack_from
ROCE_OVERHEAD = pk.ETH_HEADER_LEN + pk.IPV4_HEADER_LEN + pk.UDP_HEADER_LEN + BTH.size + len(ICRC)


class CnpHandler(Protocol):
    """What the endpoint hands a CNP to (a reaction point: ``DcqcnSender``)."""
    def on_cnp(self, time_ns: int) -> None: ...


class DataHandler(Protocol):
    """What the endpoint hands data to (a notification point: ``DcqcnReceiver``)."""
    def on_data(self, src_ip: int, src_port: int, psn: int, payload: bytes, tos: int, time_ns: int) -> None: ...


def data_frame_len(payload_bytes: int) -> int:
    """Bytes on the wire of one data packet carrying ``payload_bytes`` after the BTH."""
    return max(pk.ETH_MIN_FRAME, ROCE_OVERHEAD + payload_bytes)


def cnp_payload(dest_qp: int) -> bytes:
    """The UDP payload of a CNP to ``dest_qp``: BTH, 16 reserved bytes, ICRC."""
    return BTH.pack(OP_CNP, 0, 0xFFFF, dest_qp & QP_MASK, 0) + bytes(16) + ICRC


def parse_bth(payload: bytes) -> tuple[int, int, int] | None:
    """(opcode, dest QP, PSN) of a RoCEv2 UDP payload, or None if too short."""
    if len(payload) < BTH.size:
        return None
    op, _, _, qp, psn = BTH.unpack_from(payload)
    return op, qp & QP_MASK, psn & QP_MASK


class RoceEndpoint:
    """The RoCE side of one host: owns UDP port 4791, hands CNPs to senders and data to
    receivers by destination QP. Get it with ``RoceEndpoint.of(host)``."""

    _endpoints: "weakref.WeakKeyDictionary[Host, RoceEndpoint]" = weakref.WeakKeyDictionary()

    @classmethod
    def of(cls, host: Host) -> "RoceEndpoint":
        ep = cls._endpoints.get(host)
        if ep is None:
            ep = cls._endpoints[host] = cls(host)
        return ep

    def __init__(self, host: Host):
        self.host = host
        self.senders: dict[int, CnpHandler] = {}
        self.receivers: dict[int, DataHandler] = {}
        # Asked for a QP that is not registered, before the packet is counted unknown: a queue pair
        # made on its first packet (``dataplane.net.rdma``'s connections, numbered by rule).
        self.factory: Callable[[int], DataHandler | None] | None = None
        self.stats = {"cnps_received": 0, "data_received": 0, "unknown_qp": 0, "malformed": 0}
        host.bind_udp(ROCE_PORT, self._on_packet)

    def _on_packet(self, src_ip: int, src_port: int, payload: bytes, tos: int, time_ns: int) -> None:
        if len(payload) < BTH.size:            # parse_bth, inline: once per RoCE packet
            self.stats["malformed"] += 1
            return
        op, _, _, qp, psn = _unpack_bth(payload)
        qp &= QP_MASK
        psn &= QP_MASK
        if op == OP_CNP:
            s = self.senders.get(qp)
            if s is None:
                self.stats["unknown_qp"] += 1
                return
            self.stats["cnps_received"] += 1
            s.on_cnp(time_ns)
            return
        r = self.receivers.get(qp)
        if r is None and self.factory is not None:
            r = self.factory(qp)
        if r is None:
            self.stats["unknown_qp"] += 1
            return
        self.stats["data_received"] += 1
        r.on_data(src_ip, src_port, psn, payload, tos, time_ns)
