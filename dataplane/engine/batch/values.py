"""Columns of P4 values: which types a column can hold, and the leaves of structured types.

A ``bit<W>`` or ``int<W>`` (W <= 64; signed values as their two's-complement bits, which
operators that care about the sign reinterpret), a serializable enum, an ``error`` or a non-serializable enum (as
the per-packet engine numbers them) is a ``uint64`` column; a ``bool`` is a ``bool``
column. A header is its fields plus a ``$valid`` column; a struct is its fields' columns.
Columns are named by dotted paths from a root (``hdr.ipv4.ttl``).
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.refuse import refuse
from dataplane.ir import types as T

U64 = np.uint64
MAX_WIDTH = 64


def mask(width: int) -> int:
    return (1 << width) - 1


def scalar_width(t: T.Type, node) -> int | None:
    """Bits of a scalar column of type ``t`` (None for bool); refuses what no column holds."""
    t = T.strip_newtype(t)
    if isinstance(t, T.Bool):
        return None
    if isinstance(t, T.Bits):
        if t.width > MAX_WIDTH:
            refuse(node, f"bit<{t.width}> value wider than {MAX_WIDTH} bits")
        return t.width
    if isinstance(t, T.Enum):
        if t.underlying is not None:
            return scalar_width(t.underlying, node)
        return 32
    if isinstance(t, T.ErrorType):
        return 32
    refuse(node, f"value of type {type(t).__name__} {getattr(t, 'name', '')}".rstrip())


def is_signed(t: T.Type) -> bool:
    t = T.strip_newtype(t)
    return isinstance(t, T.Bits) and t.signed


def as_signed(x, width: int):
    """Two's-complement bits of ``width`` (uint64) as int64 values, sign extended."""
    sh = np.uint64(64 - width)
    return (np.asarray(x, dtype=U64) << sh).view(np.int64) >> np.int64(64 - width) if width < 64 \
        else np.asarray(x, dtype=U64).view(np.int64)


def leaves(t: T.Type, prefix: str, node) -> list[tuple[str, T.Type]]:
    """The scalar columns of a value of type ``t`` rooted at ``prefix``, ``$valid`` first for a header."""
    t = T.strip_newtype(t)
    if isinstance(t, (T.HeaderUnion, T.Stack)):
        refuse(node, f"{'header union' if isinstance(t, T.HeaderUnion) else 'header stack'} "
                     f"{getattr(t, 'name', '')} (not vectorised yet)".replace("  ", " "))
    if isinstance(t, T.StructLike):
        out: list[tuple[str, T.Type]] = []
        if isinstance(t, T.Header):
            out.append((prefix + ".$valid", T.Bool()))
        for f in t.fields:
            out += leaves(f.type, f"{prefix}.{f.name}", node)
        return out
    scalar_width(t, node)
    return [(prefix, t)]


def zeros(t: T.Type, n: int) -> np.ndarray:
    return np.zeros(n, dtype=bool) if isinstance(T.strip_newtype(t), T.Bool) else np.zeros(n, dtype=U64)
