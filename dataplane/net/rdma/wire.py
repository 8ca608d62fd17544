"""RoCEv2 reliable-connection packets: the opcodes, the BTH with its AckReq bit, the AETH.

Layouts (InfiniBand Architecture Specification, vol. 1, ch. 9; RoCEv2 annex A17): every packet
is a UDP datagram to port 4791 holding a 12-byte BTH (opcode, flags, P_Key, 8 reserved bits and
the 24-bit destination QP, the AckReq bit, 7 reserved bits and the 24-bit PSN), then for an
ACK/NAK a 4-byte AETH (8-bit syndrome, 24-bit MSN), then the payload, then a 4-byte ICRC
(zeros here: nothing checks it). Syndromes: 0b000 in the top three bits is an ACK (the low
five bits a credit count; 0x1F, "invalid", means no end-to-end credits), 0b011 a NAK whose low
five bits say why (0: PSN sequence error).

Selective acknowledgement (the ``sack`` receiver, ``dataplane.net.rdma.sack``): RoCE has none,
so this follows the idea of IRN (Mittal et al., SIGCOMM'18) and of Ultra Ethernet's transport,
whose acknowledgements carry a bitmap of what arrived past the cumulative point. Its ACK is an
ordinary ACK (BTH + AETH, PSN = the last PSN received in order) with an extension between the
AETH and the ICRC: a 16-bit word, its top bit D and its 15 low bits a length L, then L bytes of
bitmap; bit i (byte i // 8, bit i % 8, least significant first) says PSN (ACK PSN + 1 + i)
arrived. Bit 0 is the first missing PSN, so it is always 0; L is as short as the highest bit set
allows. D says a packet arrived twice since the last ACK (a duplicate, TCP's D-SACK), which
tells the sender it resent something that was only late. A plain ACK is one with no extension
(a go-back-N requester reads only the AETH, so it understands both).
"""
from __future__ import annotations

import struct

from dataplane.net.apps.dcqcn_wire import BTH, ICRC, OP_CNP, QP_MASK, cnp_payload
from dataplane.net.hosts import packets as pk

__all__ = ["OP_SEND_FIRST", "OP_SEND_MIDDLE", "OP_SEND_LAST", "OP_SEND_ONLY", "OP_ACK", "OP_CNP", "AETH",
           "SYNDROME_ACK", "SYNDROME_NAK_SEQ", "ACK_REQ", "PSN_MASK", "HEADER_BYTES", "ACK_PAYLOAD_BYTES",
           "data_header", "ack_payload", "sack_payload", "sack_bitmap", "cnp_payload", "frame_bytes", "psn_delta"]

OP_SEND_FIRST = 0x00
OP_SEND_MIDDLE = 0x01
OP_SEND_LAST = 0x02
OP_SEND_ONLY = 0x04
OP_ACK = 0x11                  # RC Acknowledge: BTH + AETH
AETH = struct.Struct("!I")     # syndrome(8) MSN(24)
SYNDROME_ACK = 0x1F            # ACK, no end-to-end credit count
SYNDROME_NAK_SEQ = 0x60        # NAK, PSN sequence error
ACK_REQ = 1 << 31              # the BTH's AckReq bit, above the PSN
PSN_MASK = QP_MASK             # PSNs are 24 bits
PSN_HALF = 1 << 23
_PKEY = 0xFFFF

#: What a data packet adds to its payload inside the UDP datagram (BTH and ICRC).
HEADER_BYTES = BTH.size + len(ICRC)
ACK_PAYLOAD_BYTES = BTH.size + AETH.size + len(ICRC)
SACK_LENGTH = struct.Struct("!H")     # D(1) L(15)
SACK_DUPLICATE = 0x8000
SACK_MAX_BYTES = 0x7FFF
_ROCE_FRAME = pk.ETH_HEADER_LEN + pk.IPV4_HEADER_LEN + pk.UDP_HEADER_LEN + HEADER_BYTES


def data_header(opcode: int, dest_qp: int, psn: int, ack_req: bool) -> bytes:
    """The BTH of a SEND packet."""
    return BTH.pack(opcode, 0, _PKEY, dest_qp & QP_MASK, (ACK_REQ if ack_req else 0) | (psn & PSN_MASK))


def ack_payload(dest_qp: int, psn: int, syndrome: int) -> bytes:
    """The UDP payload of an ACK (``syndrome`` ``SYNDROME_ACK``: every PSN up to ``psn`` arrived)
    or a NAK (``SYNDROME_NAK_SEQ``: ``psn`` is the one expected)."""
    return BTH.pack(OP_ACK, 0, _PKEY, dest_qp & QP_MASK, psn & PSN_MASK) + AETH.pack(syndrome << 24) + ICRC


def sack_payload(dest_qp: int, psn: int, bitmap: int, duplicate: bool = False) -> bytes:
    """An ACK of every PSN up to ``psn`` whose extension says which PSNs after it arrived too
    (bit i of ``bitmap``, an int, is PSN psn + 1 + i) and whether a duplicate arrived (module
    docstring)."""
    nbytes = (bitmap.bit_length() + 7) // 8
    if nbytes > SACK_MAX_BYTES:
        raise ValueError(f"a SACK bitmap holds at most {SACK_MAX_BYTES * 8} PSNs")
    return (BTH.pack(OP_ACK, 0, _PKEY, dest_qp & QP_MASK, psn & PSN_MASK) + AETH.pack(SYNDROME_ACK << 24)
            + SACK_LENGTH.pack(nbytes | (SACK_DUPLICATE if duplicate else 0)) + bitmap.to_bytes(nbytes, "little")
            + ICRC)


def sack_bitmap(payload: bytes) -> tuple[int, bool]:
    """(bitmap, duplicate flag) of an ACK's SACK extension ((0, False) for a plain ACK or one cut short)."""
    at = BTH.size + AETH.size
    if len(payload) < at + SACK_LENGTH.size + len(ICRC):
        return 0, False
    (word,) = SACK_LENGTH.unpack_from(payload, at)
    nbytes = word & SACK_MAX_BYTES
    start = at + SACK_LENGTH.size
    if len(payload) < start + nbytes + len(ICRC):
        return 0, False
    return int.from_bytes(payload[start:start + nbytes], "little"), bool(word & SACK_DUPLICATE)


def frame_bytes(payload_bytes: int) -> int:
    """Captured bytes of a data frame carrying ``payload_bytes`` of message (Ethernet to ICRC,
    padded to Ethernet's minimum)."""
    return max(pk.ETH_MIN_FRAME, _ROCE_FRAME + payload_bytes)


def psn_delta(wire_psn: int, base: int) -> int:
    """How far the 24-bit ``wire_psn`` is ahead of the full PSN ``base`` (negative: behind),
    by serial-number arithmetic: within half the PSN space either way."""
    d = (wire_psn - base) & PSN_MASK
    return d - (1 << 24) if d >= PSN_HALF else d

