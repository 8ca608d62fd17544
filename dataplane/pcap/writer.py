"""Classic pcap files written one packet at a time or from a batch's arrays in bulk."""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from dataplane.pcap.format import LINKTYPE_ETHERNET, MAGIC_NS, MAGIC_US, PcapError

_PARTS = 2048          # header and bytes of 1,024 packets
RECORD_HEAD = struct.Struct("<IIII")   # a record's header: seconds, fraction, captured and wire length


class PcapWriter:
    """Appends packets to a new classic pcap (little-endian, version 2.4).

    Timestamps are nanoseconds; with ``nanosecond=False`` the file has the microsecond magic
    and they are truncated to microseconds. Nothing of the wall clock goes in, so the same
    packets give the same bytes. Packets longer than ``snaplen`` are cut to it, their wire
    length kept.
    """

    def __init__(self, path: str | Path, *, linktype: int = LINKTYPE_ETHERNET, snaplen: int = 65535,
                 nanosecond: bool = True):
        self.path = Path(path)
        try:
            self._f = open(self.path, "wb")
        except OSError as err:
            raise PcapError(f"{self.path}: cannot write ({err.strerror})") from None
        self.snaplen = snaplen
        self.nanosecond = nanosecond
        self._div = 1 if nanosecond else 1000
        self._f.write(struct.pack("<IHHiIII", MAGIC_NS if nanosecond else MAGIC_US, 2, 4, 0, 0, snaplen, linktype))
        self._pack = RECORD_HEAD.pack
        # Records gather in a list and go to the file joined, a thousand at a time: one
        # ``write`` call per packet costs twice as much on CPython and three times on PyPy.
        self._parts: list[bytes] = []
        self.count = 0

    def write(self, data: bytes, time_ns: int = 0) -> None:
        """Append one packet captured at ``time_ns``."""
        if type(data) is not bytes:
            data = bytes(data)      # held until the next join: a caller's buffer may change
        n = len(data)
        if n > self.snaplen:
            data = data[:self.snaplen]
        sec, frac = divmod(time_ns, 1_000_000_000)
        parts = self._parts
        parts.append(self._pack(sec, frac // self._div, len(data), n))
        parts.append(data)
        self.count += 1
        if len(parts) >= _PARTS:
            self._f.write(b"".join(parts))
            parts.clear()

    def write_batch(self, data: np.ndarray, lengths: np.ndarray, timestamps: np.ndarray | None = None) -> None:
        """Append ``len(lengths)`` packets at once: row ``i`` of ``data`` (uint8, 2-D) holds packet ``i``
        in its first ``lengths[i]`` bytes; ``timestamps`` are int64 nanoseconds (0 if omitted).

        The records are laid out in one uint8 buffer with numpy and written with one call.
        """
        n = len(lengths)
        if n == 0:
            return
        self._drain()
        lengths = np.asarray(lengths, dtype=np.int64)
        data = np.asarray(data, dtype=np.uint8)
        if data.ndim != 2 or data.shape[0] != n or (n and int(lengths.max()) > data.shape[1]):
            raise ValueError("write_batch: data must be 2-D with one row per length, each row at least as wide")
        self._f.write(lay_out(data, lengths, timestamps, snaplen=self.snaplen, nanosecond=self.nanosecond))
        self.count += n

    def write_records(self, block: np.ndarray) -> None:
        """Append whole records made by ``record_block`` (rows of it, in any order), as they are."""
        if len(block):
            self._drain()
            self._f.write(np.ascontiguousarray(block))
            self.count += len(block)

    def write_packed(self, records: bytes | bytearray | memoryview, count: int) -> None:
        """Append ``count`` records already laid out as ``write`` lays them out, as they are."""
        if count:
            self._drain()
            self._f.write(records)
            self.count += count

    def reserve(self, nbytes: int, count: int) -> int:
        """Leave room for ``count`` records, ``nbytes`` bytes, that another process writes into
        the file (``os.pwrite``: run-packet's workers); the offset where they go. The file is
        whole once they are written."""
        self._drain()
        at = self._f.tell()
        self._f.seek(nbytes, 1)
        self.count += count
        return at

    def _drain(self) -> None:
        if self._parts:
            self._f.write(b"".join(self._parts))
            self._parts.clear()

    def flush(self) -> None:
        """Push what is buffered to the file, so a reader sees every packet written so far."""
        self._drain()
        self._f.flush()

    def close(self) -> None:
        if not self._f.closed:
            self._drain()
            self._f.close()

    def __enter__(self) -> "PcapWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _heads(caplen: np.ndarray, lengths: np.ndarray, timestamps, div: int) -> np.ndarray:
    """Record headers, (n, 4) little-endian uint32: seconds, fraction, captured and wire length."""
    heads = np.empty((len(lengths), 4), dtype="<u4")
    if timestamps is None:
        heads[:, :2] = 0
    else:
        sec, frac = np.divmod(np.asarray(timestamps, dtype=np.int64), 1_000_000_000)
        heads[:, 0] = sec
        heads[:, 1] = frac // div if div != 1 else frac
    heads[:, 2] = caplen
    heads[:, 3] = lengths
    return heads


def record_block(data: np.ndarray, lengths: np.ndarray, timestamps: np.ndarray | None, *,
                 snaplen: int = 65535, nanosecond: bool = True) -> np.ndarray | None:
    """The records of packets that all have one captured length, as a (n, 16 + length) uint8
    array a ``PcapWriter`` with the same ``snaplen`` and ``nanosecond`` appends with
    ``write_records`` (any subset of rows, e.g. one port's); None if their lengths differ
    (``write_batch`` lays those out)."""
    n = len(lengths)
    lengths = np.asarray(lengths, dtype=np.int64)
    caplen = np.minimum(lengths, snaplen)
    if n == 0 or not (caplen == caplen[0]).all():
        return None
    size = int(caplen[0])
    if data.ndim != 2 or data.shape[0] != n or data.shape[1] < size:
        raise ValueError("record_block: data must be 2-D with one row per length, each row at least as wide")
    out = np.empty((n, 16 + size), dtype=np.uint8)
    out[:, :16] = _heads(caplen, lengths, timestamps, 1 if nanosecond else 1000).view(np.uint8)
    out[:, 16:] = data[:, :size]
    return out


def lay_out(data: np.ndarray, lengths: np.ndarray, timestamps: np.ndarray | None, *,
            snaplen: int = 65535, nanosecond: bool = True) -> np.ndarray:
    """The records of ``len(lengths)`` packets (row ``i`` of ``data`` holds packet ``i`` in its
    first ``lengths[i]`` bytes) as ``PcapWriter.write_batch`` writes them: a uint8 array,
    laid out with numpy (2-D when the captured lengths are all one, else flat)."""
    n = len(lengths)
    caplen = np.minimum(lengths, snaplen)
    heads = _heads(caplen, lengths, timestamps, 1 if nanosecond else 1000).view(np.uint8)    # (n, 16)
    first = int(caplen[0])
    if (caplen == first).all():
        # every record the same size: a (n, 16 + L) block, no index arithmetic
        out = np.empty((n, 16 + first), dtype=np.uint8)
        out[:, :16] = heads
        out[:, 16:] = data[:, :first]
    else:
        sizes = caplen + 16
        starts = np.zeros(n, dtype=np.int64)
        np.cumsum(sizes[:-1], out=starts[1:])
        total = int(starts[-1] + sizes[-1])
        # boolean scatters: several times faster than a 2-D index array on the same cells
        is_head = np.zeros(total, dtype=bool)
        is_head[(starts[:, None] + np.arange(16)).ravel()] = True
        out = np.empty(total, dtype=np.uint8)
        out[is_head] = heads.ravel()
        width = int(caplen.max())
        out[~is_head] = data[:, :width][np.arange(width) < caplen[:, None]]
    return out
