"""Streaming pcap writer with nanosecond timestamps (Wireshark and tshark read it).

Written by hand rather than through scapy so that captures are byte-identical between
runs (no wall-clock in headers) and cost one ``write`` per packet.
"""
from __future__ import annotations

import struct
from pathlib import Path

_MAGIC_NS = 0xA1B23C4D  # pcap with nanosecond-resolution timestamps
LINKTYPE_ETHERNET = 1


class PcapWriter:
    """Appends packets to one pcap file; timestamps are simulated nanoseconds."""

    def __init__(self, path: str | Path, snaplen: int = 65535):
        self.path = Path(path)
        self._f = open(self.path, "wb")
        self._f.write(struct.pack("<IHHiIII", _MAGIC_NS, 2, 4, 0, 0, snaplen, LINKTYPE_ETHERNET))
        self.snaplen = snaplen
        self.count = 0

    def write(self, time_ns: int, data: bytes) -> None:
        cap = data[: self.snaplen]
        self._f.write(struct.pack("<IIII", time_ns // 1_000_000_000, time_ns % 1_000_000_000, len(cap), len(data)))
        self._f.write(cap)
        self.count += 1

    def close(self) -> None:
        if not self._f.closed:
            self._f.close()


def read_pcap(path: str | Path) -> list[tuple[int, bytes]]:
    """(time_ns, bytes) of every packet in a pcap written by :class:`PcapWriter` (or any ns/us pcap)."""
    raw = Path(path).read_bytes()
    magic = struct.unpack_from("<I", raw)[0]
    scale = 1 if magic == _MAGIC_NS else 1000
    out, off = [], 24
    while off + 16 <= len(raw):
        sec, frac, incl, _orig = struct.unpack_from("<IIII", raw, off)
        off += 16
        out.append((sec * 1_000_000_000 + frac * scale, raw[off:off + incl]))
        off += incl
    return out
