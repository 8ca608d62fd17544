"""A batch's columns by path, with header fields read from the packet bytes only when used,
and what the deparser needs to write packets in place.

When every packet of a batch extracts a header at one offset (a router's Ethernet and IPv4
headers, in a capture of one kind of packet), ``extract`` does not cut its fields into
columns: it notes where each field lies (``lazy``) and ``Columns`` reads a field from the
bytes the first time something asks for it (most fields are never read).

``written`` names the paths assigned since they were extracted. Together with ``origin``
(where each header was extracted, per packet) it lets the deparser keep a packet whose
headers are emitted where they were parsed and write only the fields that were assigned
(``deparser``): every other field's column still holds the bytes it came from.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.bits import bytes_to_words, field_from_words
from dataplane.engine.batch.values import U64, mask

_ALIGNED = {1: np.dtype("u1"), 2: np.dtype(">u2"), 4: np.dtype(">u4"), 8: np.dtype(">u8")}


class Columns(dict):
    """Column of each path (``hdr.ipv4.ttl``); a path in ``lazy`` is read from ``data`` (the
    batch's packet bytes) at its first use; ``written`` collects the paths assigned
    (``__setitem__``) since their last extraction. Extraction, zeroing and re-indexing store
    with ``dict.__setitem__``. (The bytes, not the ``BatchState``: a reference back to it would
    make a cycle, and each chunk's columns would wait for the garbage collector.)"""

    __slots__ = ("lazy", "written", "data")

    def __init__(self, data: np.ndarray):
        super().__init__()
        self.lazy: dict[str, tuple[int, int]] = {}     # path -> (bit offset in the row, width)
        self.written: set[str] = set()
        self.data = data

    def __missing__(self, path: str) -> np.ndarray:
        spec = self.lazy.pop(path, None)
        if spec is None:
            raise KeyError(path)
        value = read_field(self.data, *spec)
        dict.__setitem__(self, path, value)
        return value

    def __setitem__(self, path: str, value) -> None:
        self.written.add(path)
        self.lazy.pop(path, None)
        dict.__setitem__(self, path, value)

    def set_extracted(self, path: str, value) -> None:
        """Store a value read from the bytes (it is what the packet holds, not an assignment)."""
        self.lazy.pop(path, None)
        dict.__setitem__(self, path, value)

    def defer(self, path: str, bit_offset: int, width: int) -> None:
        """``path`` is the ``width`` bits at ``bit_offset`` of every row, read when first used."""
        dict.pop(self, path, None)
        self.lazy[path] = (bit_offset, width)
        self.written.discard(path)


def _pieces(span: int) -> list[tuple[int, int]]:
    """(byte offset, size) of 8-, 4-, 2- and 1-byte reads covering ``span`` bytes, in order."""
    out, at = [], 0
    for size in (8, 4, 2, 1):
        while span - at >= size:
            out.append((at, size))
            at += size
    return out


def read_bytes(data: np.ndarray, start: int, span: int) -> np.ndarray:
    """Bytes ``start`` .. ``start + span - 1`` (at most 8) of every row as a big-endian number,
    read through strided views of ``data`` (no copy of the rows)."""
    acc = None
    for at, size in _pieces(span):
        col = data[:, start + at] if size == 1 else data[:, start + at:start + at + size].view(_ALIGNED[size])[:, 0]
        v = col.astype(U64)
        sh = 8 * (span - at - size)
        if sh:
            v <<= U64(sh)
        acc = v if acc is None else acc | v
    return acc


def read_field(data: np.ndarray, bit_offset: int, width: int) -> np.ndarray:
    """The ``width``-bit field at ``bit_offset`` of every row of ``data`` as uint64."""
    b0, b1 = bit_offset // 8, (bit_offset + width + 7) // 8
    span = b1 - b0
    if span <= 8:
        v = read_bytes(data, b0, span)
        shift = 8 * b1 - bit_offset - width
        if shift:
            v >>= U64(shift)
        return v & U64(mask(width)) if 8 * span > width else v
    raw = np.zeros((len(data), 16), dtype=np.uint8)
    raw[:, :span] = data[:, b0:b1]
    return field_from_words(bytes_to_words(raw, span), bit_offset - 8 * b0, width)


def write_field(out: np.ndarray, rows, bit_offset: int, width: int, value: np.ndarray) -> bool:
    """Write ``value`` (uint64, one per row of ``out``) as the ``width`` bits at ``bit_offset`` of
    rows ``rows`` (a slice or indices) of ``out``, leaving the bits around it. False (nothing
    written) for a field spread over more than 8 bytes."""
    b0, b1 = bit_offset // 8, (bit_offset + width + 7) // 8
    span = b1 - b0
    if span > 8:
        return False
    v = np.broadcast_to(np.asarray(value, dtype=U64), (len(out),))[rows]
    shift = 8 * b1 - bit_offset - width
    if shift or 8 * span > width:        # bits of other fields share these bytes: keep them
        keep = U64(~(mask(width) << shift) & mask(64))
        old = read_bytes(out[rows] if not isinstance(rows, slice) else out[rows], b0, span)
        v = (old & keep) | ((v & U64(mask(width))) << U64(shift))
    if isinstance(rows, slice):
        for at, size in _pieces(span):
            sh = U64(8 * (span - at - size))
            part = v >> sh if sh else v
            if size == 1:
                out[rows, b0 + at] = part
            else:
                out[rows, b0 + at:b0 + at + size].view(_ALIGNED[size])[:, 0] = part
        return True
    out[rows, b0:b1] = v.astype(_ALIGNED[8]).view(np.uint8).reshape(len(v), 8)[:, 8 - span:]
    return True
