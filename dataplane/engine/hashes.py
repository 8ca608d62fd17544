"""BMv2's hash and checksum algorithms, as pure functions on ``bytes``.

Every algorithm takes the byte string BMv2 builds from a field list (see
:func:`pack_fields`) and returns an unsigned int, exactly what BMv2's
``src/bm_sim/calculations.cpp`` computes:

* ``crc16``: CRC-16/ARC (poly 0x8005, reflected in and out, init 0, xor-out 0;
  check value of ``b"123456789"`` is 0xBB3D).
* ``crc32``: the standard CRC-32 (poly 0x04C11DB7, reflected, init and xor-out
  0xFFFFFFFF; check value 0xCBF43926).
* ``crc16_custom`` / ``crc32_custom``: a :class:`CustomCrc`; until the control plane
  configures them BMv2 uses the same parameters as ``crc16`` / ``crc32``.
* ``csum16``: the Internet ones'-complement checksum (RFC 1071) of big-endian 16-bit
  words, an odd trailing byte padded with a zero byte at the end; all-zero (or
  empty) input gives 0xFFFF.
* ``xor16``: XOR of big-endian 16-bit words, an odd trailing byte padded at the end.
* ``identity``: the first (at most) 8 bytes as a big-endian integer.
* ``random``: not a function of the data; :func:`random_hash` draws 64 bits from a
  ``random.Random`` the caller owns, so runs are reproducible.

The v1model ``hash()`` extern then computes ``base + H % max`` and truncates it to
the result width (:func:`hash_result`). Nothing here keeps state: a configured custom
CRC is a new immutable :class:`CustomCrc` held by whoever configured it.
"""
from __future__ import annotations

import binascii
import random
import zlib
from typing import Callable, Iterable

__all__ = [
    "HASH_ALGORITHMS", "CustomCrc", "CRC16_DEFAULT", "CRC32_DEFAULT",
    "crc16", "crc32", "crc16_custom", "crc32_custom", "csum16", "xor16", "identity",
    "random_hash", "hash_function", "pack_fields", "hash_fields", "hash_result", "v1model_hash",
]

_M64 = (1 << 64) - 1
_REV8 = tuple(int(f"{i:08b}"[::-1], 2) for i in range(256))


def _reflect(value: int, nbits: int) -> int:
    """``value``'s low ``nbits`` bits in reverse order (a byte at a time, through a table)."""
    nbytes = (nbits + 7) >> 3
    value &= (1 << nbits) - 1
    out = 0
    for _ in range(nbytes):
        out = (out << 8) | _REV8[value & 0xFF]
        value >>= 8
    return out >> ((nbytes << 3) - nbits)


def reflected_table(width: int, poly: int) -> tuple[int, ...]:
    """Table for the bit-reversed (LSB-first) algorithm of a CRC with MSB-first ``poly``."""
    rpoly = _reflect(poly, width)
    table = []
    for i in range(256):
        r = i
        for _ in range(8):
            r = (r >> 1) ^ rpoly if r & 1 else r >> 1
        table.append(r)
    return tuple(table)


def _direct_table(width: int, poly: int) -> tuple[int, ...]:
    """Table for the MSB-first algorithm (the one BMv2's ``crc_custom`` uses)."""
    mask = (1 << width) - 1
    top = 1 << (width - 1)
    table = []
    for i in range(256):
        r = i << (width - 8)
        for _ in range(8):
            r = ((r << 1) ^ poly) & mask if r & top else (r << 1) & mask
        table.append(r)
    return tuple(table)


_CRC16_TABLE = reflected_table(16, 0x8005)


class CustomCrc:
    """A CRC with Rocksoft-model parameters, computed with a precomputed 256-entry table.

    ``init`` is the initial register of the MSB-first algorithm, as in BMv2's
    ``crc_custom`` (and the usual CRC catalogues); ``reflect_in`` reverses each input
    byte, ``reflect_out`` the final register before ``xor_out``. Instances are
    immutable and callable: ``CustomCrc(16, 0x8005, 0, 0, True, True)(b"...")``.
    """

    __slots__ = ("width", "poly", "init", "xor_out", "reflect_in", "reflect_out", "_fn")

    def __init__(self, width: int, poly: int, init: int = 0, xor_out: int = 0,
                 reflect_in: bool = False, reflect_out: bool = False):
        if width < 8:
            raise ValueError(f"CRC width must be at least 8 bits, not {width}")
        mask = (1 << width) - 1
        for name, v in (("poly", poly), ("init", init), ("xor_out", xor_out)):
            if not 0 <= v <= mask:
                raise ValueError(f"CRC {name} 0x{v:x} does not fit in {width} bits")
        object.__setattr__(self, "width", width)
        object.__setattr__(self, "poly", poly)
        object.__setattr__(self, "init", init)
        object.__setattr__(self, "xor_out", xor_out)
        object.__setattr__(self, "reflect_in", bool(reflect_in))
        object.__setattr__(self, "reflect_out", bool(reflect_out))
        object.__setattr__(self, "_fn", self._build())

    def __setattr__(self, name, value):
        raise AttributeError("CustomCrc is immutable; build a new one to reconfigure")

    def __call__(self, data: bytes) -> int:
        return self._fn(data)

    def __repr__(self) -> str:
        return (f"CustomCrc(width={self.width}, poly=0x{self.poly:x}, init=0x{self.init:x}, "
                f"xor_out=0x{self.xor_out:x}, reflect_in={self.reflect_in}, reflect_out={self.reflect_out})")

    def __eq__(self, other) -> bool:
        return isinstance(other, CustomCrc) and self.params == other.params

    def __hash__(self) -> int:
        return hash(self.params)

    @property
    def params(self) -> tuple[int, int, int, int, bool, bool]:
        return (self.width, self.poly, self.init, self.xor_out, self.reflect_in, self.reflect_out)

    def _build(self) -> Callable[[bytes], int]:
        w, poly, init, xor_out = self.width, self.poly, self.init, self.xor_out
        mask = (1 << w) - 1
        # Fast paths through C implementations of the same CRCs.
        if self.params == (32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True):
            return zlib.crc32
        if (w, poly, self.reflect_in, self.reflect_out) == (16, 0x1021, False, False):
            crc_hqx = binascii.crc_hqx
            return lambda data: crc_hqx(data, init) ^ xor_out
        if self.reflect_in:
            # Work on the bit-reversed register: one shift right per byte.
            table = reflected_table(w, poly)
            rinit = _reflect(init, w)
            if self.reflect_out:
                def crc_reflected(data: bytes) -> int:
                    crc = rinit
                    for b in data:
                        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
                    return crc ^ xor_out
                return crc_reflected

            def crc_reflected_in(data: bytes) -> int:
                crc = rinit
                for b in data:
                    crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
                return _reflect(crc, w) ^ xor_out
            return crc_reflected_in
        table = _direct_table(w, poly)
        shift = w - 8
        reflect_out = self.reflect_out

        def crc_direct(data: bytes) -> int:
            crc = init
            for b in data:
                crc = table[((crc >> shift) ^ b) & 0xFF] ^ ((crc << 8) & mask)
            return (_reflect(crc, w) if reflect_out else crc) ^ xor_out
        return crc_direct


#: BMv2's initial ``crc16_custom`` configuration: {0x8005, 0x0000, 0x0000, true, true}.
CRC16_DEFAULT = CustomCrc(16, 0x8005, 0x0000, 0x0000, True, True)
#: BMv2's initial ``crc32_custom`` configuration: {0x04c11db7, 0xffffffff, 0xffffffff, true, true}.
CRC32_DEFAULT = CustomCrc(32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True)


def crc16(data: bytes) -> int:
    """BMv2 ``crc16``: CRC-16/ARC (poly 0x8005 reflected, init 0, xor-out 0), check value 0xBB3D."""
    table = _CRC16_TABLE
    crc = 0
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def crc32(data: bytes) -> int:
    """BMv2 ``crc32``: standard CRC-32, check value 0xCBF43926."""
    return zlib.crc32(data)


crc16_custom = crc16
crc32_custom = crc32


def csum16(data: bytes) -> int:
    """BMv2 ``csum16``: RFC 1071 checksum, odd length padded with a zero byte at the end.

    The ones'-complement sum of 16-bit words equals the whole big-endian number
    modulo 0xFFFF (2**16 is 1 modulo 0xFFFF), with 0xFFFF standing for a nonzero
    multiple, so the sum is one big-integer remainder instead of a Python loop.
    """
    if len(data) & 1:
        data = bytes(data) + b"\x00"
    n = int.from_bytes(data, "big")
    if not n:
        return 0xFFFF
    s = n % 0xFFFF
    return 0 if s == 0 else s ^ 0xFFFF


def xor16(data: bytes) -> int:
    """BMv2 ``xor16``: XOR of big-endian 16-bit words, an odd tail byte padded at the end."""
    if len(data) & 1:
        data = bytes(data) + b"\x00"
    words = len(data) >> 1
    n = int.from_bytes(data, "big")
    # Fold halves together: each low word lands on a word of the high part.
    while words > 1:
        half = words >> 1
        bits = half << 4
        n = (n >> bits) ^ (n & ((1 << bits) - 1))
        words -= half
    return n


def identity(data: bytes) -> int:
    """BMv2 ``identity``: the first (up to) 8 bytes as a big-endian integer."""
    return int.from_bytes(data[:8], "big")


def random_hash(data: bytes, rng: random.Random) -> int:
    """v1model ``HashAlgorithm.random``: 64 random bits from the caller's seeded ``rng``."""
    return rng.getrandbits(64)


#: Deterministic algorithms by v1model ``HashAlgorithm`` member name. ``random`` is
#: not here because it needs an RNG; use :func:`hash_function` to resolve any name.
HASH_ALGORITHMS: dict[str, Callable[[bytes], int]] = {
    "crc16": crc16,
    "crc32": zlib.crc32,  # == crc32, without the wrapper call
    "crc16_custom": crc16_custom,
    "crc32_custom": zlib.crc32,
    "csum16": csum16,
    "xor16": xor16,
    "identity": identity,
}


def hash_function(algorithm: str, *, rng: random.Random | None = None,
                  custom: CustomCrc | None = None) -> Callable[[bytes], int]:
    """The ``bytes -> int`` function for a v1model algorithm name.

    ``random`` needs ``rng`` (the returned function draws from it); ``custom`` replaces
    the default parameters of ``crc16_custom`` / ``crc32_custom``.
    """
    if algorithm == "random":
        if rng is None:
            raise ValueError("HashAlgorithm.random needs a random.Random (rng=...)")
        return lambda data: rng.getrandbits(64)
    if custom is not None:
        if algorithm not in ("crc16_custom", "crc32_custom"):
            raise ValueError(f"only crc16_custom/crc32_custom take CRC parameters, not {algorithm}")
        want = 16 if algorithm == "crc16_custom" else 32
        if custom.width != want:
            raise ValueError(f"{algorithm} needs a {want}-bit CRC, got {custom.width} bits")
        return custom._fn
    try:
        return HASH_ALGORITHMS[algorithm]
    except KeyError:
        raise ValueError(f"unknown hash algorithm {algorithm!r}") from None


def pack_fields(fields: Iterable[tuple[int, int]]) -> bytes:
    """The byte string BMv2 hashes for a field list of ``(value, width_bits)``.

    Fields are concatenated MSB-first with no alignment between them; the total is
    zero-padded at the END to a whole byte (BMv2 ``BufBuilder::Deparse`` in
    ``calculations.cpp`` grows the buffer to ``(nbits + 7) / 8`` bytes and writes each
    field at the current bit offset). Values are truncated to their width.
    """
    acc = 0
    nbits = 0
    for value, width in fields:
        acc = (acc << width) | (value & ((1 << width) - 1))
        nbits += width
    pad = -nbits & 7
    return (acc << pad).to_bytes((nbits + pad) >> 3, "big")


def hash_fields(algorithm: str, fields: Iterable[tuple[int, int]], *,
                rng: random.Random | None = None, custom: CustomCrc | None = None) -> int:
    """Hash a ``(value, width_bits)`` field list the way BMv2 does: pack, then hash."""
    return hash_function(algorithm, rng=rng, custom=custom)(pack_fields(fields))


def hash_result(h: int, base: int, max_value: int, width: int) -> int:
    """The v1model ``hash()`` result: ``base + h % max`` truncated to ``width`` bits.

    ``max`` 0 counts as 1 (the result is ``base``). BMv2 does this in uint64
    arithmetic (``modify_field_with_hash_based_offset``), so operands and the sum wrap
    at 64 bits before the truncation to the destination width.
    """
    max_value &= _M64
    if max_value == 0:
        max_value = 1
    return (((base & _M64) + (h & _M64) % max_value) & _M64) & ((1 << width) - 1)


def v1model_hash(algorithm: str, base: int, fields: Iterable[tuple[int, int]], max_value: int,
                 width: int, *, rng: random.Random | None = None, custom: CustomCrc | None = None) -> int:
    """``hash(result, algo, base, data, max)`` of v1model, for a result of ``width`` bits."""
    h = hash_fields(algorithm, fields, rng=rng, custom=custom)
    return hash_result(h, base, max_value, width)
