"""A byte buffer over a file that refills in large chunks, for record-by-record parsing.

Parsing a capture record by record with one ``read`` per header and one per packet costs two
system-level calls a packet; reading a megabyte at a time and slicing is several times faster
and still holds only one chunk in memory.
"""
from __future__ import annotations

from typing import BinaryIO

CHUNK = 1 << 20


class ChunkBuffer:
    """``buf[pos:]`` is the unread part of the file that has been loaded so far."""

    __slots__ = ("f", "buf", "pos", "eof", "offset")

    def __init__(self, f: BinaryIO, initial: bytes = b""):
        self.f = f
        self.buf = initial
        self.pos = 0
        self.eof = False
        self.offset = 0        # file offset of buf[0]

    def ensure(self, need: int) -> int:
        """Load until ``need`` bytes from ``pos`` on are in ``buf`` (or the file ends); return how many are."""
        have = len(self.buf) - self.pos
        if have >= need or self.eof:
            return have
        parts = [self.buf[self.pos:]]
        self.offset += self.pos
        want = max(CHUNK, need - have)
        while have < need:
            more = self.f.read(want)
            if not more:
                self.eof = True
                break
            parts.append(more)
            have += len(more)
            want = max(CHUNK, need - have)
        self.buf = b"".join(parts)
        self.pos = 0
        return have
