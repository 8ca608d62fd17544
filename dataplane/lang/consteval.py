"""Compile-time arithmetic on P4 integer values: what constant folding and casts compute.

Values are Python ints; a fixed-width type is ``(width, signed)``, ``None`` for the
arbitrary-precision ``int``. The rules are the spec's (P4-REFERENCE.md §3.8).
"""
from __future__ import annotations

from dataplane.lang.literals import wrap


def fold_binary(op: str, a: int, b: int, width: int | None, signed: bool, right_width: int | None = None) -> int | bool:
    """Evaluate ``a op b`` where both operands already have the result type (shifts excepted)."""
    if op in ("==", "!="):
        return (a == b) if op == "==" else (a != b)
    if op in ("<", ">", "<=", ">="):
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b
    elif op == "/":
        r = a // b
    elif op == "%":
        r = a % b
    elif op == "&":
        r = a & b
    elif op == "|":
        r = a | b
    elif op == "^":
        r = a ^ b
    elif op == "<<":
        if width is not None and b >= width:
            return 0
        r = a << b
    elif op == ">>":
        if width is not None and b >= width:
            return -1 if (signed and a < 0) else 0
        r = a >> b
    elif op in ("|+|", "|-|"):
        r = a + b if op == "|+|" else a - b
        if width is None:
            return r
        lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
        return max(lo, min(hi, r))
    else:
        raise ValueError(op)
    return r if width is None else wrap(r, width, signed)


def concat(a: int, a_width: int, b: int, b_width: int, signed: bool) -> int:
    """``a ++ b``: ``a`` in the high bits; the result takes the left operand's signedness."""
    raw = ((a & ((1 << a_width) - 1)) << b_width) | (b & ((1 << b_width) - 1))
    return wrap(raw, a_width + b_width, signed)


def slice_bits(value: int, hi: int, lo: int) -> int:
    return (value >> lo) & ((1 << (hi - lo + 1)) - 1)


def cast_int(value: int, width: int | None, signed: bool) -> int:
    """Reinterpret ``value`` as ``bit<width>``/``int<width>`` (truncating or extending)."""
    return value if width is None else wrap(value, width, signed)
