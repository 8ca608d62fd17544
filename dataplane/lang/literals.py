"""P4_16 integer literals: ``42``, ``0x2A``, ``0b101``, ``0o17``, ``0d9``, ``8w255``, ``8s-3``, with ``_`` separators."""
from __future__ import annotations

import math
import re

from dataplane.lang.limits import MAX_CONSTANT_BITS, MAX_WIDTH, too_big_constant, too_wide

_LITERAL = re.compile(r"^(?:(?P<width>[0-9]+)(?P<kind>[ws]))?(?P<neg>-)?(?P<body>0[xXbBoOdD][0-9a-fA-F_]+|[0-9][0-9_]*)$")
_BASES = {"x": 16, "b": 2, "o": 8, "d": 10}
# Digits past which a literal cannot fit MAX_CONSTANT_BITS, whatever they are (a d-digit number
# has at least (d - 1) * log2(base) bits): longer ones are refused without converting them.
_MAX_DIGITS = {base: int(MAX_CONSTANT_BITS / math.log2(base)) + 2 for base in (2, 8, 10, 16)}


class LiteralTooLarge(ValueError):
    """A literal whose value or width is past what the front end computes with (``lang.limits``)."""


def parse_integer(text: str) -> tuple[int, int | None, bool, int]:
    """Return ``(value, width, signed, base)``; width is None for an untyped literal.

    Width-prefixed values are reduced to their type: ``8w256`` is 0 and ``4s9`` is -7,
    as p4c does (with a warning there). A leading 0 does not mean octal. A width over
    ``MAX_WIDTH`` is returned as written, unreduced; the type checker reports it.
    """
    m = _LITERAL.match(text)
    if m is None:
        raise ValueError(f"malformed integer literal {text!r}")
    body = m.group("body").replace("_", "")
    base = 10
    if len(body) > 2 and body[0] == "0" and body[1].lower() in _BASES:
        base = _BASES[body[1].lower()]
        digits = body[2:]
    else:
        digits = body
    # Before converting: Python would take its time over a literal of a million digits (or refuse
    # one of more than 4300 decimal digits), for a value no type holds.
    significant = len(digits.lstrip("0"))
    if significant > _MAX_DIGITS[base]:
        raise LiteralTooLarge(f"this integer literal has {significant} digits: compile-time integers are limited "
                              f"to {MAX_CONSTANT_BITS} bits")
    value = int(digits, base)
    if value.bit_length() > MAX_CONSTANT_BITS:
        raise LiteralTooLarge(too_big_constant("this integer literal", value.bit_length()))
    if m.group("neg"):
        value = -value
    if m.group("width") is None:
        return value, None, False, base
    if len(m.group("width").lstrip("0")) > len(str(MAX_WIDTH)):
        raise LiteralTooLarge(too_wide(f"the width {m.group('width')[:12]}... of this literal"))
    width = int(m.group("width"))
    signed = m.group("kind") == "s"
    if width > MAX_WIDTH:
        return value, width, signed, base
    return wrap(value, width, signed), width, signed, base


def wrap(value: int, width: int, signed: bool) -> int:
    """``value`` reduced modulo 2**width, as two's complement when ``signed``."""
    if width <= 0:
        return 0
    value &= (1 << width) - 1
    if signed and value >> (width - 1):
        value -= 1 << width
    return value
