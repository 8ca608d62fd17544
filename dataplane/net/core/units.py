"""Quantities as network engineers write them: ``100Gbps``, ``1us``, ``64KB``, ``100p``, ``150Mpps``.

Every quantity is read exactly (``2.5us`` is 2500 ns, not a float's nearest) and must be finite
and fit where it is kept: times below ``MAX_TIME_NS``, everything else in a signed 64-bit
integer (``MAX_QUANTITY``). A value past either is refused here, with the limit in the message,
rather than failing later as an overflow.
"""
from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction

from dataplane.errors import DataplaneError, shown


class UnitError(DataplaneError):
    """A quantity could not be read; the message says what was expected."""


# Counters, queue limits and rates live in 64-bit integers (numpy arrays, the metrics' JSON).
MAX_QUANTITY = 2**63 - 1
# A classic pcap record keeps a timestamp's whole seconds in 32 bits: every simulated time
# must be one that a capture can record, so the limit is just below 2^32 s (about 136 years).
MAX_TIME_NS = 2**32 * 10**9 - 1

_NUMBER = r"(?P<n>[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*"
_RATE = {"bps": 1, "kbps": 10**3, "mbps": 10**6, "gbps": 10**9, "tbps": 10**12}
_TIME = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9}
_SIZE = {"b": 1, "kb": 1000, "mb": 10**6, "kib": 1024, "mib": 1024**2, "bytes": 1, "byte": 1}
_PACKETS = {"p", "pkt", "pkts", "packet", "packets"}
_PACKET_RATE = {"pps": 1, "kpps": 10**3, "mpps": 10**6, "gpps": 10**9}
# Past 10^40 every limit above is exceeded and below 10^-40 every quantity rounds to zero:
# such a number is never expanded into an exact fraction (10^-400000000 would take minutes).
_HUGE, _TINY = 10**40, Fraction(1, 10**40)


def _q(text: object) -> str:
    """``text`` for a message: written as the user wrote it (``'10 parsecs'``), cut when long."""
    return shown(text if isinstance(text, (int, float)) else str(text))


def _exact(value: Decimal | int | float, text: object, what: str) -> Fraction:
    if isinstance(value, float) and not math.isfinite(value):
        raise UnitError(f"{what} must be a finite number, got {_q(text)}")
    if isinstance(value, Decimal):
        if value.is_zero():
            return Fraction(0)
        if value.adjusted() > 40:
            return Fraction(_HUGE)
        if value.adjusted() < -40:
            return _TINY
    return Fraction(value)


def _split(text: str | int | float, what: str, example: str) -> tuple[Fraction, str]:
    if isinstance(text, bool):
        raise UnitError(f"cannot read {text!r} as {what} (e.g. {example})")
    if isinstance(getattr(text, "digits", None), int):     # a reader's ``LongNumber``: too many digits to convert
        raise UnitError(f"{what}: {text!r} is too large")
    if isinstance(text, (int, float)):
        if isinstance(text, int) and abs(text) > _HUGE:
            return Fraction(_HUGE if text > 0 else -_HUGE), ""
        return _exact(text, text, what), ""
    m = re.fullmatch(_NUMBER + r"(?P<u>[A-Za-zµ]*)", str(text).strip())
    if m is None:
        raise UnitError(f"cannot read {_q(text)} as {what} (e.g. {example})")
    return _exact(_decimal(m.group("n")), text, what), m.group("u")


def _decimal(number: str) -> Decimal:
    """``Decimal(number)``, without converting thousands of digits: PyPy's pure-Python decimal
    goes through ``int``, which refuses strings over 4,300 digits. Past 40 digits either side of
    the point the value is out of every range here (``_exact`` caps it), so long strings are
    read by their magnitude, and more than 100 significant digits are not needed."""
    if len(number) <= 100:
        return Decimal(number)
    mantissa, _, exp_text = number.lower().partition("e")
    exp_digits = exp_text.lstrip("+-")
    if len(exp_digits) > 18:
        return Decimal("1e-41") if exp_text.startswith("-") else Decimal("1e41")
    exponent = int(exp_text) if exp_text else 0
    whole, _, fraction = mantissa.partition(".")
    whole = whole.lstrip("0")
    if whole:
        adjusted = len(whole) - 1 + exponent
    else:
        significant = fraction.lstrip("0")
        if not significant:
            return Decimal(0)
        adjusted = exponent - (len(fraction) - len(significant) + 1)
    if adjusted > 40:
        return Decimal("1e41")
    if adjusted < -40:
        return Decimal("1e-41")
    digits = (whole or "0") + ("." + fraction if fraction else "")
    return Decimal(digits[:100] + (f"e{exponent}" if exp_text else ""))


def _too_large(what: str, text: object, limit: str) -> UnitError:
    return UnitError(f"{what} {_q(text)} is too large: {limit}")


def parse_rate(text: str | int | float) -> int:
    """Bits per second from ``100Gbps``, ``25 Gbps``, ``1e9`` (a bare number is bits/s)."""
    n, unit = _split(text, "a bandwidth", "100Gbps")
    factor = _RATE.get(unit.lower()) if unit else 1
    if factor is None:
        raise UnitError(f"unknown bandwidth unit {unit!r} in {_q(text)} (use bps, Kbps, Mbps, Gbps, Tbps)")
    if n <= 0:
        raise UnitError(f"bandwidth must be positive, got {_q(text)}")
    bps = int(n * factor)
    if bps < 1:
        raise UnitError(f"bandwidth must be at least 1 bps, got {_q(text)}")
    if bps > MAX_QUANTITY:
        raise _too_large("bandwidth", text, f"at most {MAX_QUANTITY} bps (a 64-bit number)")
    return bps


def parse_packet_rate(text: str | int | float) -> int:
    """Packets per second from ``150Mpps``, ``500 Kpps``, ``1e6`` (a bare number is packets/s)."""
    n, unit = _split(text, "a packet rate", "150Mpps")
    factor = _PACKET_RATE.get(unit.lower()) if unit else 1
    if factor is None:
        raise UnitError(f"unknown packet-rate unit {unit!r} in {_q(text)} (use pps, Kpps, Mpps, Gpps)")
    pps = int(n * factor)
    if pps <= 0:
        # Checked after scaling: 0.1pps rounds to no packets at all, which no pipeline means.
        raise UnitError(f"packet rate must be at least 1 packet/s, got {_q(text)}")
    if pps > MAX_QUANTITY:
        raise _too_large("packet rate", text, f"at most {MAX_QUANTITY} packets/s (a 64-bit number)")
    return pps


def parse_time(text: str | int | float) -> int:
    """Nanoseconds from ``1us``, ``10ms``, ``500ns``, ``2s`` (a bare number is nanoseconds), at
    most ``MAX_TIME_NS``."""
    n, unit = _split(text, "a time", "1us")
    factor = _TIME.get(unit.lower() if unit != "µs" else unit) if unit else 1
    if factor is None:
        raise UnitError(f"unknown time unit {unit!r} in {_q(text)} (use ns, us, ms, s)")
    if n < 0:
        raise UnitError(f"time must not be negative, got {_q(text)}")
    ns = round(n * factor)
    if ns > MAX_TIME_NS:
        raise _too_large("time", text, "simulated times stay below 4294967296 s (2^32 s, about 136 years: "
                                       "a pcap records a time's seconds in 32 bits)")
    return ns


def parse_queue(text: str | int) -> tuple[int, str]:
    """A queue capacity as (amount, ``"packets"`` or ``"bytes"``): ``100p``, ``64KB``, ``1000`` (packets)."""
    n, unit = _split(text, "a queue size", "100p or 64KB")
    u = unit.lower()
    if not unit or u in _PACKETS:
        kind, amount = "packets", n
    elif u in _SIZE:
        kind, amount = "bytes", n * _SIZE[u]
    else:
        raise UnitError(f"unknown queue unit {unit!r} in {_q(text)} (use p for packets, or B, KB, MB, KiB)")
    if amount <= 0 or amount.denominator != 1:
        raise UnitError(f"queue size must be a positive whole number, got {_q(text)}")
    if amount > MAX_QUANTITY:
        raise _too_large("queue size", text, f"at most {MAX_QUANTITY} {kind} (a 64-bit number)")
    return int(amount), kind


def parse_probability(value: float | str, what: str = "a probability") -> float:
    try:
        p = float(str(value).rstrip("%")) / (100 if str(value).endswith("%") else 1)
    except ValueError:
        raise UnitError(f"cannot read {_q(value)} as {what} (e.g. 0.01 or 1%)") from None
    if not 0 <= p <= 1:
        raise UnitError(f"{what} must be between 0 and 1, got {_q(value)}")
    return p
