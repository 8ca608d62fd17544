"""pcapng blocks, one at a time: SHB, IDB, EPB, SPB and the obsolete PB; other blocks skipped."""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Iterator

from dataplane.pcap.format import (
    MAX_RECORD,
    PCAPNG_BOM,
    PCAPNG_EPB,
    PCAPNG_IDB,
    PCAPNG_PB,
    PCAPNG_SHB,
    PCAPNG_SPB,
    empty,
    not_a_capture,
    truncated,
    unsupported_linktype,
)
from dataplane.pcap.stream import ChunkBuffer

_OPT_END, _OPT_TSRESOL, _OPT_TSOFFSET = 0, 9, 14
_PACKET_BLOCKS = (PCAPNG_EPB, PCAPNG_SPB, PCAPNG_PB)


@dataclass
class Interface:
    """One IDB: its link type, snap length and how its timestamps convert to nanoseconds."""

    linktype: int
    snaplen: int
    units_per_s: int = 1_000_000      # if_tsresol; the default is microseconds
    offset_s: int = 0                 # if_tsoffset

    def to_ns(self, ts: int) -> int:
        if self.units_per_s == 1_000_000:
            ns = ts * 1000
        elif self.units_per_s == 1_000_000_000:
            ns = ts
        else:
            ns = ts * 1_000_000_000 // self.units_per_s
        return ns + self.offset_s * 1_000_000_000


def _interface(body: bytes, order: str) -> Interface:
    linktype, _reserved, snaplen = struct.unpack_from(order + "HHI", body, 0)
    iface = Interface(linktype, snaplen)
    pos = 8
    while pos + 4 <= len(body):
        code, length = struct.unpack_from(order + "HH", body, pos)
        value = body[pos + 4:pos + 4 + length]
        if code == _OPT_END:
            break
        if code == _OPT_TSRESOL and length >= 1:
            v = value[0]
            iface.units_per_s = 2 ** (v & 0x7F) if v & 0x80 else 10 ** v
        elif code == _OPT_TSOFFSET and length == 8:
            iface.offset_s = struct.unpack(order + "q", value)[0]
        pos += 4 + (length + 3) // 4 * 4
    return iface


def iter_blocks(src: ChunkBuffer, path: object, interfaces: list[Interface],
                counter: list[int], linktypes: frozenset[int] | None = None) -> Iterator[tuple[int, bytes]]:
    """``(time_ns, captured bytes)`` of each packet block from the start of a pcapng file.

    ``interfaces`` is filled as IDBs are read (a new section starts it afresh); ``counter[0]``
    counts packets for messages; a file without packets is an error, and so is an interface
    whose link type is not in ``linktypes`` (None: any). Simple Packet Blocks carry no timestamp: they get 0.
    """
    order = "<"
    index = counter[0]
    while True:
        have = src.ensure(12)
        if have == 0:
            if index == 0:
                raise empty(path)
            return
        if have < 12:
            raise not_a_capture(path, f"a block is cut short at byte {src.offset + src.pos}")
        buf, pos = src.buf, src.pos
        btype = struct.unpack_from(order + "I", buf, pos)[0]
        if btype == PCAPNG_SHB:
            bom = buf[pos + 8:pos + 12]
            if bom == PCAPNG_BOM.to_bytes(4, "little"):
                order = "<"
            elif bom == PCAPNG_BOM.to_bytes(4, "big"):
                order = ">"
            else:
                raise not_a_capture(path, "pcapng section header with an unknown byte-order magic")
            interfaces.clear()
        total = struct.unpack_from(order + "I", buf, pos + 4)[0]
        if total < 12 or total > MAX_RECORD:
            raise not_a_capture(path, f"pcapng block of {total} bytes at byte {src.offset + pos}")
        btype = struct.unpack_from(order + "I", buf, pos)[0]
        if have < total:
            have = src.ensure(total)
            if have < total:
                if btype in _PACKET_BLOCKS:
                    raise truncated(path, index + 1, have, total)
                raise not_a_capture(path, f"a block is cut short at byte {src.offset + src.pos}")
            buf, pos = src.buf, src.pos
        body = buf[pos + 8:pos + total - 4]
        src.pos = pos + total
        if btype == PCAPNG_EPB or btype == PCAPNG_PB:
            if btype == PCAPNG_EPB:
                iface_id, hi, lo, caplen, _orig = struct.unpack_from(order + "IIIII", body, 0)
            else:
                iface_id, _drops, hi, lo, caplen, _orig = struct.unpack_from(order + "HHIIII", body, 0)
            if caplen > len(body) - 20:
                raise truncated(path, index + 1, len(body) - 20, caplen)
            if iface_id >= len(interfaces):
                raise not_a_capture(path, f"packet {index + 1} names interface {iface_id}, which no IDB describes")
            index += 1
            counter[0] = index
            yield interfaces[iface_id].to_ns((hi << 32) | lo), body[20:20 + caplen]
        elif btype == PCAPNG_SPB:
            if not interfaces:
                raise not_a_capture(path, f"packet {index + 1} comes before any interface description")
            orig = struct.unpack_from(order + "I", body, 0)[0]
            snap = interfaces[0].snaplen or orig
            caplen = min(orig, snap, len(body) - 4)
            index += 1
            counter[0] = index
            yield 0, body[4:4 + caplen]
        elif btype == PCAPNG_IDB:
            iface = _interface(body, order)
            if linktypes is not None and iface.linktype not in linktypes:
                raise unsupported_linktype(path, iface.linktype, linktypes, f"interface {len(interfaces)}: ")
            interfaces.append(iface)
