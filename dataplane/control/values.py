"""Textual values of control-plane files: numbers, IPv4, MAC and IPv6 addresses, all as ints.

Shared by the runtime-JSON and CLI parsers (and usable by the switch). The value is
width-independent here: ``"10.0.0.1"`` is 0x0A000001 whatever field it is written for, and
the switch checks that it fits. (BMv2's CLI tries the address forms only for 32-, 48- and
128-bit fields; a too-wide int is the same error in the end.)
"""
from __future__ import annotations

import re

from dataplane.errors import DataplaneError

__all__ = ["ValueSyntaxError", "parse_number", "parse_value", "is_number"]


class ValueSyntaxError(DataplaneError, ValueError):
    """A string is not a number or address; callers add the file and line."""

    code = "value"


# int(x, 0) syntax: decimal without leading zeros, 0x/0o/0b, "_" between digits.
_NUMBER = re.compile(r"^-?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|[0-9][0-9_]*)$")
_IPV4 = re.compile(r"^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$")
# Six groups like the tutorials' convert.py, but 1-2 digits each as BMv2's int(b, 16) accepts.
_MAC = re.compile(r"^[0-9a-fA-F]{1,2}(?::[0-9a-fA-F]{1,2}){5}$")


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
        raise ValueSyntaxError(f"'{text}' is not a number")
    try:
        return int(text, 0)
    except ValueError:
        # Only a decimal with leading zeros or a misplaced "_" passes the regex and fails here.
        hint = " (a decimal must not start with 0; use 0o for octal)" if re.match(r"^-?0[0-9]", text) else ""
        raise ValueSyntaxError(f"'{text}' is not a number{hint}") from None


def parse_value(text: str) -> int:
    """Parse a number (see ``parse_number``), dotted IPv4, MAC ``aa:bb:cc:dd:ee:ff`` or IPv6 text."""
    text = text.strip()
    if not text:
        raise ValueSyntaxError("empty value")
    if _NUMBER.match(text):
        if text.isdigit() and (text[0] != "0" or len(text) == 1):   # plain decimal: the usual port or length
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
            raise ValueSyntaxError(f"'{text}' is not a MAC or IPv6 address") from None
    raise ValueSyntaxError(f"'{text}' is not a number, IPv4, MAC or IPv6 address")
