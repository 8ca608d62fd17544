"""P4Runtime bytestrings (spec section 8.4): big-endian, canonical form without leading zero bytes.

Reads answer in canonical form; writes accept any zero-padded form, and a value wider than
its field is OUT_OF_RANGE (what BMv2's PI server answers, and what p4runtime-shell expects).
"""
from __future__ import annotations

from dataplane.control.p4runtime.status import invalid, out_of_range


def decode(data: bytes, width: int, what: str) -> int:
    """The unsigned value of ``data`` for a ``width``-bit field; OUT_OF_RANGE when it does not fit."""
    if not data:
        raise invalid(f"{what}: empty bytestring")
    value = int.from_bytes(data, "big")
    if width and value >> width:
        raise out_of_range(f"{what}: value 0x{data.hex()} does not fit in {width} bits")
    return value


def encode(value: int, width: int | None = None) -> bytes:
    """The canonical bytestring of ``value`` (``b'\\x00'`` for zero)."""
    value = int(value)
    if value < 0 and width:
        value &= (1 << width) - 1
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def padded(value: int, width: int) -> bytes:
    """``value`` in exactly ``ceil(width / 8)`` bytes (packet metadata is laid out this way)."""
    return int(value).to_bytes((width + 7) // 8, "big")
