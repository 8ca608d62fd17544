"""IPv4 and MAC addresses as topology files write them: parsed to ints, formatted back to text.

Every parser raises ``ValueError`` whose message says what is wrong and shows a correct example;
the topology readers turn it into a ``ConfigError`` that names the file, line and field.
"""
from __future__ import annotations

import ipaddress
import re
from typing import Any

__all__ = ["parse_mac", "format_mac", "parse_ipv4", "format_ipv4", "parse_interface", "check_host_mac"]

_MAC_RE = re.compile(r"^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(?:\1[0-9a-fA-F]{2}){4}$")


def parse_mac(text: Any) -> int:
    """``aa:bb:cc:dd:ee:ff`` (or with ``-``) as an int; raises ValueError with the reason."""
    if not isinstance(text, str) or not _MAC_RE.match(text.strip()):
        raise ValueError(f"bad MAC address {text!r} (write six hex bytes, e.g. \"08:00:00:00:01:11\")")
    return int(re.sub(r"[:-]", "", text.strip()), 16)


def format_mac(value: int) -> str:
    return ":".join(f"{b:02x}" for b in value.to_bytes(6, "big"))


def parse_ipv4(text: Any) -> int:
    """A dotted-quad IPv4 address as an int; raises ValueError with the reason."""
    try:
        return int(ipaddress.IPv4Address(str(text).strip()))
    except (ipaddress.AddressValueError, ValueError):
        raise ValueError(f"bad IPv4 address {text!r} (e.g. 10.0.1.1)") from None


def format_ipv4(value: int) -> str:
    return str(ipaddress.IPv4Address(value))


def parse_interface(text: Any) -> tuple[int, int]:
    """``a.b.c.d/len`` (or ``a.b.c.d``, /24) as (address, prefix length)."""
    s = str(text).strip()
    if not isinstance(text, str) or s.count("/") > 1:
        raise ValueError(f"bad IPv4 address {text!r} (write a.b.c.d/len, e.g. 10.0.1.1/24)")
    addr, _, plen = s.partition("/")
    ip = parse_ipv4(addr) if addr else None
    if ip is None:
        raise ValueError(f"bad IPv4 address {text!r} (write a.b.c.d/len, e.g. 10.0.1.1/24)")
    if not plen:
        return ip, 24
    if not plen.isdigit() or not 0 <= int(plen) <= 32:
        raise ValueError(f"bad prefix length in {text!r} (0..32)")
    return ip, int(plen)


def check_host_mac(mac: int, text: Any) -> int:
    if mac >> 40 & 1:
        raise ValueError(f"MAC address {text!r} is a group (multicast/broadcast) address; a host needs a unicast MAC")
    return mac
