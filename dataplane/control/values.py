"""Textual values of control-plane files: numbers, IPv4, MAC and IPv6 addresses, all as ints.

Shared by the runtime-JSON and CLI parsers (and usable by the switch). The value is
width-independent here: ``"10.0.0.1"`` is 0x0A000001 whatever field it is written for, and
the switch checks that it fits. (BMv2's CLI tries the address forms only for 32-, 48- and
128-bit fields; a too-wide int is the same error in the end.) A number wider than any field
(``MAX_BITS``, p4c's widest type) is refused here, before it is converted: a file holding a
400,000-digit number gets an error naming the number of digits, not minutes of arithmetic.
"""
from __future__ import annotations

import re

from dataplane.errors import DataplaneError
from dataplane.lang.limits import MAX_WIDTH

__all__ = ["ValueSyntaxError", "parse_number", "parse_value", "is_number", "MAX_BITS", "MAX_DIGITS",
           "LongNumber", "json_int"]

# No field is wider than the front end's widest type, and 2^2048 has 617 decimal digits.
MAX_BITS = MAX_WIDTH
MAX_DIGITS = len(str(2**MAX_BITS - 1))


class ValueSyntaxError(DataplaneError, ValueError):
    """A string is not a number or address; callers add the file and line."""

    code = "value"


# int(x, 0) syntax: decimal without leading zeros, 0x/0o/0b, "_" between digits.
_NUMBER = re.compile(r"^-?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|[0-9][0-9_]*)$")
_IPV4 = re.compile(r"^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$")
# Six groups like the tutorials' convert.py, but 1-2 digits each as BMv2's int(b, 16) accepts.
_MAC = re.compile(r"^[0-9a-fA-F]{1,2}(?::[0-9a-fA-F]{1,2}){5}$")


class LongNumber:
    """An integer in a JSON or YAML file with more than ``MAX_DIGITS`` digits, kept as its digit
    count (``json_int``): a reader that meets one where it wants a value reports it, located."""

    __slots__ = ("digits",)

    def __init__(self, digits: int):
        self.digits = digits

    def __repr__(self) -> str:
        return f"a number of {self.digits} digits"

    def message(self) -> str:
        return f"a number of {self.digits} digits is too large for any field (fields are at most {MAX_BITS} bits)"


def json_int(text: str) -> int | LongNumber:
    """``int(text)`` for an integer literal of a JSON file (``json``'s ``parse_int``), or a
    ``LongNumber`` past ``MAX_DIGITS`` digits (Python refuses more than 4,300 with a bare ValueError)."""
    digits = len(text) - text.startswith("-")
    return LongNumber(digits) if digits > MAX_DIGITS else int(text)


def _check_size(text: str) -> None:
    """Refuse a number too wide for any field before converting it (see the module docstring)."""
    body = text.lstrip("-").replace("_", "")
    if body[:2].lower() in ("0x", "0o", "0b"):
        bits = {"x": 4, "o": 3, "b": 1}[body[1].lower()] * len(body[2:].lstrip("0"))
        if bits > 2 * MAX_BITS:      # (linear to convert, but a million digits still take a while)
            raise ValueSyntaxError(f"'{_cut(text)}' ({len(body) - 2} digits) is too large for any field "
                                   f"(fields are at most {MAX_BITS} bits)")
    elif len(body) > MAX_DIGITS:
        raise ValueSyntaxError(f"'{_cut(text)}' ({len(body)} digits) is too large for any field "
                               f"(fields are at most {MAX_BITS} bits)")


def _cut(text: str) -> str:
    return text if len(text) <= 24 else text[:20] + "..."


def _checked(value: int, text: str) -> int:
    if value.bit_length() > MAX_BITS:
        raise ValueSyntaxError(f"'{_cut(text)}' is too large for any field: a {value.bit_length()}-bit number "
                               f"(fields are at most {MAX_BITS} bits)")
    return value


def is_number(text: str) -> bool:
    """True if ``text`` has the shape of a plain integer (what ``parse_number`` accepts)."""
    return bool(_NUMBER.match(text))


def parse_number(text: str) -> int:
    """Parse a plain integer: decimal, ``0x`` hex, ``0o`` octal or ``0b`` binary, optional ``-``.

    This is Python's ``int(text, 0)``, which BMv2's CLI uses, so ``010`` is rejected rather
    than guessed to be octal or decimal.
    """
    text = text.strip()
    if not _NUMBER.match(text):
        raise ValueSyntaxError(f"'{_cut(text)}' is not a number")
    _check_size(text)
    try:
        value = int(text, 0)
    except ValueError:
        # Only a decimal with leading zeros or a misplaced "_" passes the regex and fails here.
        hint = " (a decimal must not start with 0; use 0o for octal)" if re.match(r"^-?0[0-9]", text) else ""
        raise ValueSyntaxError(f"'{_cut(text)}' is not a number{hint}") from None
    return _checked(value, text)


def parse_value(text: str) -> int:
    """Parse a number (see ``parse_number``), dotted IPv4, MAC ``aa:bb:cc:dd:ee:ff`` or IPv6 text."""
    text = text.strip()
    if not text:
        raise ValueSyntaxError("empty value")
    if _NUMBER.match(text):
        if text.isdigit() and (text[0] != "0" or len(text) == 1) and len(text) <= 19:   # the usual port or length
            return int(text)
        return parse_number(text)
    # (folded by hand: a table of 1,000 routes parses 3,000 of these on every run)
    if _IPV4.match(text):
        a, b, c, d = map(int, text.split("."))
        if a > 255 or b > 255 or c > 255 or d > 255:
            raise ValueSyntaxError(f"'{text}' is not an IPv4 address (octet above 255)")
        return (a << 24) | (b << 16) | (c << 8) | d
    if _MAC.match(text):
        value = 0
        for p in text.split(":"):
            value = (value << 8) | int(p, 16)
        return value
    if ":" in text:
        try:
            import ipaddress  # here: IPv6 is rare in entries, and the module costs every start

            return int(ipaddress.IPv6Address(text))
        except ValueError:
            raise ValueSyntaxError(f"'{_cut(text)}' is not a MAC or IPv6 address") from None
    raise ValueSyntaxError(f"'{_cut(text)}' is not a number, IPv4, MAC or IPv6 address")
