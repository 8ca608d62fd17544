"""Open a capture of either format and read its packets one at a time."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from dataplane.pcap.classic import iter_records
from dataplane.pcap.format import (
    ETHERNET_ONLY,
    PCAPNG_SHB,
    PcapError,
    classic_header,
    not_a_capture,
    unsupported_linktype,
)
from dataplane.pcap.pcapng import Interface, iter_blocks
from dataplane.pcap.stream import ChunkBuffer


class CaptureReader:
    """A classic pcap or pcapng file, iterated as ``(time_ns, bytes)`` in constant memory.

    ``format`` is ``"pcap"`` or ``"pcapng"``; for classic files ``linktype``, ``snaplen``,
    ``byte_order`` (``"<"``/``">"``) and ``ns_per_unit`` (1 or 1000) come from the file header;
    for pcapng, ``interfaces`` fills as the file is read and ``linktype`` is the first one's.
    ``count`` is the number of packets read (up to date at the end, and at each 1 MiB chunk). A file that holds no packets is an error
    when iteration ends, so callers need not count. A link type outside ``linktypes`` (default:
    Ethernet only; None takes any) is an error that names it: at the file header of a classic
    pcap, at the interface description of a pcapng.
    """

    def __init__(self, path: str | Path, linktypes: frozenset[int] | None = ETHERNET_ONLY):
        self.path = Path(path)
        try:
            self._f = open(self.path, "rb")
        except OSError as err:
            raise PcapError(f"{self.path}: cannot read ({err.strerror})") from None
        head = self._f.read(24)
        self.interfaces: list[Interface] = []
        self._counter = [0]
        self.linktype_classic = None
        self.linktypes = linktypes
        self.snaplen = 0
        found = classic_header(head)
        if found is not None:
            if len(head) < 24:
                self.close()
                raise not_a_capture(self.path, "the file header is cut short")
            self.format = "pcap"
            self.byte_order, self.ns_per_unit = found
            endian = "little" if self.byte_order == "<" else "big"
            self.snaplen = int.from_bytes(head[16:20], endian)
            self.linktype_classic = int.from_bytes(head[20:24], endian)
            if linktypes is not None and self.linktype_classic not in linktypes:
                self.close()
                raise unsupported_linktype(self.path, self.linktype_classic, linktypes)
            self._src = ChunkBuffer(self._f)
            self.header_size = 24
        elif len(head) >= 4 and int.from_bytes(head[:4], "little") == PCAPNG_SHB:
            self.format = "pcapng"
            self._src = ChunkBuffer(self._f, head)
            self.header_size = 0
        else:
            self.close()
            raise not_a_capture(self.path, "no pcap or pcapng magic number" if head else "the file is empty")

    @property
    def linktype(self) -> int | None:
        if self.linktype_classic is not None:
            return self.linktype_classic
        return self.interfaces[0].linktype if self.interfaces else None

    @property
    def count(self) -> int:
        return self._counter[0]

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        if self.format == "pcap":
            return iter_records(self._src, self.path, self.byte_order, self.ns_per_unit, self._counter)
        return iter_blocks(self._src, self.path, self.interfaces, self._counter, self.linktypes)

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> "CaptureReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_capture(path: str | Path, linktypes: frozenset[int] | None = ETHERNET_ONLY) -> CaptureReader:
    """Open a classic pcap or pcapng file (a :class:`PcapError` if it is neither, or holds
    another link type than ``linktypes``)."""
    return CaptureReader(path, linktypes)


def iter_packets(path: str | Path, linktypes: frozenset[int] | None = ETHERNET_ONLY) -> Iterator[tuple[int, bytes]]:
    """``(time_ns, bytes)`` of every packet, streamed; truncated, empty or foreign files, and
    link types outside ``linktypes``, raise :class:`PcapError`."""
    with CaptureReader(path, linktypes) as reader:
        yield from reader
