"""Type checker: ``minSizeInBits()``, ``minSizeInBytes()``, ``maxSizeInBits()``, ``maxSizeInBytes()``.

p4c types these four methods on any expression but an extern instance, and on a type's name
(``encap_data_t.minSizeInBytes()``, as DASH's pipeline computes its header sizes), and folds
the call to an ``int`` constant (``TypeInference::postorder(MethodCallExpression)`` with
``TypeMap::widthBits``): a varbit counts 0 bits for the minimum and its bound for the maximum,
a header union its widest member, a stack its size times its element; bytes round up.
"""
from __future__ import annotations

from dataplane.ir import types as T

SIZE_METHODS = ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes")


def size_in_bits(t: T.Type, maximum: bool) -> int | None:
    """The width p4c's ``widthBits`` gives ``t`` (None for a type without one)."""
    t = T.strip_newtype(t)
    if isinstance(t, T.Bits):
        return t.width
    if isinstance(t, T.Bool):
        return 1
    if isinstance(t, T.VarBits):
        return t.max_width if maximum else 0
    if isinstance(t, T.Enum):
        return t.underlying.width if t.underlying is not None else None
    if isinstance(t, T.StructLike):
        sizes = [size_in_bits(f.type, maximum) for f in t.fields]
        if any(s is None for s in sizes):
            return None
        known = [s for s in sizes if s is not None]
        return max(known, default=0) if t.kind == "header_union" else sum(known)
    if isinstance(t, T.Tuple):
        parts = [size_in_bits(x, maximum) for x in t.elements]
        return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)
    if isinstance(t, T.Stack):
        elem = size_in_bits(t.element, maximum)
        return None if elem is None else elem * t.size
    return None


def size_method_value(name: str, t: T.Type) -> int | None:
    """What ``x.NAME()`` folds to for an ``x`` of type ``t`` (None if ``t`` has no width)."""
    bits = size_in_bits(t, name.startswith("max"))
    if bits is None:
        return None
    return (bits + 7) // 8 if name.endswith("Bytes") else bits
