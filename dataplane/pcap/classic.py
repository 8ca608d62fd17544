"""Classic pcap records, one at a time."""
from __future__ import annotations

import struct
from typing import Iterator

from dataplane.pcap.format import MAX_RECORD, RECORD_HEADER, empty, not_a_capture, truncated
from dataplane.pcap.stream import ChunkBuffer


def iter_records(src: ChunkBuffer, path: object, order: str, scale: int,
                 counter: list[int]) -> Iterator[tuple[int, bytes]]:
    """``(time_ns, captured bytes)`` of each record from ``src``'s position (just past the file header).

    ``scale`` is nanoseconds per unit of the fraction field (1000 for microsecond files);
    ``counter[0]`` counts the packets read (brought up to date at each chunk and at the end).
    A file with no records at all is an error.
    """
    unpack = struct.Struct(order + "IIII").unpack_from
    index = counter[0]
    while True:
        # the hot loop: every record wholly inside the loaded chunk, no attribute access
        buf, pos = src.buf, src.pos
        last = len(buf) - RECORD_HEADER
        while pos <= last:
            sec, frac, incl, _orig = unpack(buf, pos)
            start = pos + RECORD_HEADER
            end = start + incl
            if end > last + RECORD_HEADER:
                break
            index += 1
            yield sec * 1_000_000_000 + frac * scale, buf[start:end]
            pos = end
        src.pos = pos
        counter[0] = index
        # a record that crosses the chunk's end, or the end of the file
        have = src.ensure(RECORD_HEADER)
        if have == 0:
            if index == 0:
                raise empty(path)
            return
        if have < RECORD_HEADER:
            raise truncated(path, index + 1, have, RECORD_HEADER)
        incl = unpack(src.buf, src.pos)[2]
        if incl > MAX_RECORD:
            raise not_a_capture(path, f"packet {index + 1} claims {incl} bytes")
        have = src.ensure(RECORD_HEADER + incl)
        if have < RECORD_HEADER + incl:
            raise truncated(path, index + 1, have - RECORD_HEADER, incl)
