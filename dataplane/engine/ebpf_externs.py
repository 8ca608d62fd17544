"""The eBPF family's extern objects and helper functions (``ebpf_model.p4``, ``xdp_model.p4``,
``ubpf_model.p4``).

``CounterArray`` and the table implementations ``array_table`` / ``hash_table`` are registered
under their P4 names; uBPF's ``Register`` is PNA's (``pna_externs``: ``T read(index)``). The
checksum and hash helpers are plain functions the architectures bind to the programs' extern
functions. Calling convention as in ``externs.py``: the packet context first.
"""
from __future__ import annotations

from dataplane.engine import externs as X
from dataplane.engine.runtime import pack_fields

_U32 = 0xFFFF_FFFF


@X.register_extern("CounterArray")
class CounterArray:
    """An eBPF map of 32-bit counters indexed by a 32-bit index.

    Dense (an array map): indexes ``0 .. max_index - 1`` exist, others are ignored, as a
    failed map update is. Sparse (a hash map): at most ``max_index`` distinct indexes, any
    value; an index that would be one too many is not counted. Counters wrap at 2^32.

    The control plane sees it as an indexed counter whose cells count in ``packets`` (the one
    value the map holds; ``bytes`` reads 0): ``Switch.counter_read(name, index)``.
    """

    cp_kind = "counter"

    def __init__(self, name: str, max_index: int, sparse: bool = False):
        self.name, self.size, self.sparse = name, max_index, bool(sparse)
        self.values: dict[int, int] = {}

    def add(self, ctx, index: int, value: int) -> None:
        values = self.values
        if index in values:
            values[index] = (values[index] + value) & _U32
        elif (len(values) < self.size) if self.sparse else (0 <= index < self.size):
            values[index] = value & _U32

    def increment(self, ctx, index: int) -> None:
        self.add(ctx, index, 1)

    # The control plane reads cells like a v1model counter's.
    @property
    def packets(self) -> list[int]:
        return list(self.values.values())

    @property
    def bytes(self) -> list[int]:
        return [0] * len(self.values)

    def cp_read(self, index: int) -> tuple[int, int]:
        self._check(index)
        return self.values.get(index, 0), 0

    def cp_write(self, index: int, packets: int, nbytes: int = 0) -> None:
        self._check(index)
        self.values[index] = packets & _U32

    def _check(self, index: int) -> None:
        if not 0 <= index <= _U32 or (not self.sparse and index >= self.size):
            raise X.ExternError(f"CounterArray '{self.name}': index {index} is out of range (size {self.size})")

    def reset(self) -> None:
        self.values = {}


class _TableImplementation:
    """A table's eBPF map kind; its ``size`` is the most entries the table holds."""

    def __init__(self, name: str, size: int):
        self.name, self.size = name, size

    def reset(self) -> None:
        pass


@X.register_extern("array_table")
class ArrayTable(_TableImplementation):
    """``implementation = array_table(size)``: an eBPF array map (an LPM table is a trie)."""


@X.register_extern("hash_table")
class HashTable(_TableImplementation):
    """``implementation = hash_table(size)``: an eBPF hash map."""


# ---- checksums (RFC 1071, RFC 1624) ------------------------------------------------------------------

def _fold16(s: int) -> int:
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def csum_replace2(csum: int, old: int, new: int) -> int:
    """RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), for a 16-bit field changed from ``old`` to ``new``."""
    return ~_fold16((~csum & 0xFFFF) + (~old & 0xFFFF) + (new & 0xFFFF)) & 0xFFFF


def csum_replace4(csum: int, old: int, new: int) -> int:
    """``csum_replace2`` for a 32-bit field (its two 16-bit halves)."""
    s = (~csum & 0xFFFF) + (~(old >> 16) & 0xFFFF) + (~old & 0xFFFF) + ((new >> 16) & 0xFFFF) + (new & 0xFFFF)
    return ~_fold16(s) & 0xFFFF


def ipv4_checksum(ctx, version: int, ihl: int, diffserv: int, total_len: int, identification: int, flags: int,
                  frag_offset: int, ttl: int, protocol: int, src: int, dst: int) -> int:
    """``ebpf_ipv4_checksum``: the header checksum of an IPv4 header without options that has
    these fields (checksum 0). ``ctx`` (the packet context) is unused; the generated code passes it."""
    s = ((version << 12) | (ihl << 8) | diffserv) + total_len + identification + ((flags << 13) | frag_offset) + \
        ((ttl << 8) | protocol) + (src >> 16) + (src & 0xFFFF) + (dst >> 16) + (dst & 0xFFFF)
    s = (s & 0xFFFF) + (s >> 16)   # nine 16-bit words: two folds always suffice
    s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


# ---- Bob Jenkins' lookup3 (hashlittle), uBPF's HashAlgorithm.lookup3 -------------------------------------

def _rot(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _U32


def lookup3(data: bytes, initval: int = 0) -> int:
    """``hashlittle(data, len(data), initval)`` from lookup3.c (little-endian 32-bit words)."""
    n = len(data)
    a = b = c = (0xDEADBEEF + n + initval) & _U32
    i = 0
    while n - i > 12:
        a = (a + int.from_bytes(data[i:i + 4], "little")) & _U32
        b = (b + int.from_bytes(data[i + 4:i + 8], "little")) & _U32
        c = (c + int.from_bytes(data[i + 8:i + 12], "little")) & _U32
        a = (a - c) & _U32; a ^= _rot(c, 4); c = (c + b) & _U32          # noqa: E702  (mix(a, b, c))
        b = (b - a) & _U32; b ^= _rot(a, 6); a = (a + c) & _U32          # noqa: E702
        c = (c - b) & _U32; c ^= _rot(b, 8); b = (b + a) & _U32          # noqa: E702
        a = (a - c) & _U32; a ^= _rot(c, 16); c = (c + b) & _U32         # noqa: E702
        b = (b - a) & _U32; b ^= _rot(a, 19); a = (a + c) & _U32         # noqa: E702
        c = (c - b) & _U32; c ^= _rot(b, 4); b = (b + a) & _U32          # noqa: E702
        i += 12
    tail = data[i:]
    if not tail:
        return c
    tail = tail + bytes(12 - len(tail))
    a = (a + int.from_bytes(tail[0:4], "little")) & _U32
    b = (b + int.from_bytes(tail[4:8], "little")) & _U32
    c = (c + int.from_bytes(tail[8:12], "little")) & _U32
    c ^= b; c = (c - _rot(b, 14)) & _U32       # noqa: E702  (final(a, b, c))
    a ^= c; a = (a - _rot(c, 11)) & _U32       # noqa: E702
    b ^= a; b = (b - _rot(a, 25)) & _U32       # noqa: E702
    c ^= b; c = (c - _rot(b, 16)) & _U32       # noqa: E702
    a ^= c; a = (a - _rot(c, 4)) & _U32        # noqa: E702
    b ^= a; b = (b - _rot(a, 14)) & _U32       # noqa: E702
    c ^= b; c = (c - _rot(b, 24)) & _U32       # noqa: E702
    return c


def packed(data) -> bytes:
    """A field list as the generated code passes it (bytes, or (valid, value, width) triples) as bytes."""
    return data if data.__class__ is bytes else pack_fields(data)
