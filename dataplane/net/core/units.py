"""Quantities as network engineers write them: ``100Gbps``, ``1us``, ``64KB``, ``100p``, ``150Mpps``."""
from __future__ import annotations

import re

from dataplane.errors import DataplaneError


class UnitError(DataplaneError):
    """A quantity could not be read; the message says what was expected."""


_NUMBER = r"(?P<n>[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*"
_RATE = {"bps": 1, "kbps": 10**3, "mbps": 10**6, "gbps": 10**9, "tbps": 10**12}
_TIME = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9}
_SIZE = {"b": 1, "kb": 1000, "mb": 10**6, "kib": 1024, "mib": 1024**2, "bytes": 1, "byte": 1}
_PACKETS = {"p", "pkt", "pkts", "packet", "packets"}
_PACKET_RATE = {"pps": 1, "kpps": 10**3, "mpps": 10**6, "gpps": 10**9}


def _split(text: str | int | float, what: str, example: str) -> tuple[float, str]:
    if isinstance(text, (int, float)):
        return float(text), ""
    m = re.fullmatch(_NUMBER + r"(?P<u>[A-Za-zµ]*)", str(text).strip())
    if m is None:
        raise UnitError(f"cannot read {text!r} as {what} (e.g. {example})")
    return float(m.group("n")), m.group("u")


def parse_rate(text: str | int | float) -> int:
    """Bits per second from ``100Gbps``, ``25 Gbps``, ``1e9`` (a bare number is bits/s)."""
    n, unit = _split(text, "a bandwidth", "100Gbps")
    factor = _RATE.get(unit.lower()) if unit else 1
    if factor is None:
        raise UnitError(f"unknown bandwidth unit {unit!r} in {text!r} (use bps, Kbps, Mbps, Gbps, Tbps)")
    if n <= 0:
        raise UnitError(f"bandwidth must be positive, got {text!r}")
    return int(n * factor)


def parse_packet_rate(text: str | int | float) -> int:
    """Packets per second from ``150Mpps``, ``500 Kpps``, ``1e6`` (a bare number is packets/s)."""
    n, unit = _split(text, "a packet rate", "150Mpps")
    factor = _PACKET_RATE.get(unit.lower()) if unit else 1
    if factor is None:
        raise UnitError(f"unknown packet-rate unit {unit!r} in {text!r} (use pps, Kpps, Mpps, Gpps)")
    pps = int(n * factor)
    if pps <= 0:
        # Checked after scaling: 0.1pps rounds to no packets at all, which no pipeline means.
        raise UnitError(f"packet rate must be at least 1 packet/s, got {text!r}")
    return pps


def parse_time(text: str | int | float) -> int:
    """Nanoseconds from ``1us``, ``10ms``, ``500ns``, ``2s`` (a bare number is nanoseconds)."""
    n, unit = _split(text, "a time", "1us")
    factor = _TIME.get(unit.lower() if unit != "µs" else unit) if unit else 1
    if factor is None:
        raise UnitError(f"unknown time unit {unit!r} in {text!r} (use ns, us, ms, s)")
    if n < 0:
        raise UnitError(f"time must not be negative, got {text!r}")
    return int(round(n * factor))


def parse_queue(text: str | int) -> tuple[int, str]:
    """A queue capacity as (amount, ``"packets"`` or ``"bytes"``): ``100p``, ``64KB``, ``1000`` (packets)."""
    n, unit = _split(text, "a queue size", "100p or 64KB")
    u = unit.lower()
    if not unit or u in _PACKETS:
        kind, amount = "packets", n
    elif u in _SIZE:
        kind, amount = "bytes", n * _SIZE[u]
    else:
        raise UnitError(f"unknown queue unit {unit!r} in {text!r} (use p for packets, or B, KB, MB, KiB)")
    if amount <= 0 or amount != int(amount):
        raise UnitError(f"queue size must be a positive whole number, got {text!r}")
    return int(amount), kind


def parse_probability(value: float | str, what: str = "a probability") -> float:
    try:
        p = float(str(value).rstrip("%")) / (100 if str(value).endswith("%") else 1)
    except ValueError:
        raise UnitError(f"cannot read {value!r} as {what} (e.g. 0.01 or 1%)") from None
    if not 0 <= p <= 1:
        raise UnitError(f"{what} must be between 0 and 1, got {value!r}")
    return p
