"""Classic pcap records, one at a time."""
from __future__ import annotations

import struct
from typing import Iterator

from dataplane.pcap.format import MAX_RECORD, RECORD_HEADER, not_a_capture, truncated
from dataplane.pcap.stream import ChunkBuffer


def iter_records(src: ChunkBuffer, path: object, order: str, scale: int,
                 counter: list[int]) -> Iterator[tuple[int, bytes]]:
    """``(time_ns, captured bytes)`` of each record from ``src``'s position (just past the file header).

    ``scale`` is nanoseconds per unit of the fraction field (1000 for microsecond files);
    ``counter[0]`` counts the packets read, for the caller's messages.
    """
    unpack = struct.Struct(order + "IIII").unpack_from
    index = counter[0]
    while True:
        buf, pos = src.buf, src.pos
        if len(buf) - pos < RECORD_HEADER:
            have = src.ensure(RECORD_HEADER)
            if have == 0:
                counter[0] = index
                return
            if have < RECORD_HEADER:
                raise truncated(path, index + 1, have, RECORD_HEADER)
            buf, pos = src.buf, src.pos
        sec, frac, incl, _orig = unpack(buf, pos)
        end = pos + RECORD_HEADER + incl
        if end > len(buf):
            if incl > MAX_RECORD:
                raise not_a_capture(path, f"packet {index + 1} claims {incl} bytes")
            have = src.ensure(RECORD_HEADER + incl)
            if have < RECORD_HEADER + incl:
                raise truncated(path, index + 1, have - RECORD_HEADER, incl)
            buf, pos = src.buf, src.pos
            end = pos + RECORD_HEADER + incl
        index += 1
        counter[0] = index
        src.pos = end
        yield sec * 1_000_000_000 + frac * scale, buf[pos + RECORD_HEADER:end]
