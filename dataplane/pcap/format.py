"""What the two capture formats look like on disk, and the errors a bad file gets.

Classic pcap: a 24-byte file header (magic, version, thiszone, sigfigs, snaplen, linktype),
then records of a 16-byte header (seconds, micro- or nanoseconds, captured length, wire
length) and the captured bytes. The magic's byte order is the file's byte order.

pcapng: blocks of (type, total length, body, total length); a Section Header Block sets the
byte order, Interface Description Blocks the link type and timestamp resolution of each
interface, and packets come in Enhanced (EPB), Simple (SPB) or obsolete Packet Blocks.
"""
from __future__ import annotations

from dataplane.errors import DataplaneError

MAGIC_US = 0xA1B2C3D4
MAGIC_NS = 0xA1B23C4D
PCAPNG_SHB = 0x0A0D0D0A
PCAPNG_BOM = 0x1A2B3C4D
PCAPNG_IDB = 1
PCAPNG_PB = 2            # obsolete Packet Block, still written by old tools
PCAPNG_SPB = 3
PCAPNG_EPB = 6

LINKTYPE_ETHERNET = 1
# What a capture fed to a switch may hold: its frames go to the P4 parser as they are, and the
# programs (like BMv2's ports) take Ethernet frames. Names for the link types users meet most,
# from tcpdump.org's LINKTYPE_ list, so the error says what the file holds.
ETHERNET_ONLY = frozenset({LINKTYPE_ETHERNET})
LINKTYPE_NAMES = {0: "NULL (BSD loopback)", 1: "ETHERNET", 101: "RAW (IP packets)", 105: "IEEE802_11 (Wi-Fi)",
                  113: "LINUX_SLL (Linux cooked capture)", 127: "IEEE802_11_RADIOTAP", 228: "IPV4", 229: "IPV6",
                  276: "LINUX_SLL2 (Linux cooked capture v2)"}
RECORD_HEADER = 16
# No real link layer captures more than this in one record; a larger length means the
# bytes are not a record (a corrupt file), and reading on would only allocate garbage.
MAX_RECORD = 1 << 26


class PcapError(DataplaneError):
    """A capture file that cannot be read: the message names the file and the packet."""


def classic_header(head: bytes) -> tuple[str, int] | None:
    """``(byte order, ns per timestamp unit)`` of a classic pcap's first bytes, or None."""
    if len(head) < 4:
        return None
    for order in ("<", ">"):
        magic = int.from_bytes(head[:4], "little" if order == "<" else "big")
        if magic == MAGIC_US:
            return order, 1000
        if magic == MAGIC_NS:
            return order, 1
    return None


def truncated(path: object, index: int, got: int, want: int) -> PcapError:
    """The error for packet ``index`` (1-based) cut short by the end of the file."""
    return PcapError(f"{path}: packet {index} is truncated ({got} of {want} bytes): the file ends early")


def not_a_capture(path: object, why: str) -> PcapError:
    return PcapError(f"{path}: cannot read as a pcap file ({why})")


def unsupported_linktype(path: object, linktype: int, accepted: frozenset[int], where: str = "") -> PcapError:
    """The error for a capture whose frames are not of a link type in ``accepted``."""
    def named(n: int) -> str:
        return f"{n} ({LINKTYPE_NAMES[n]})" if n in LINKTYPE_NAMES else str(n)
    return PcapError(f"{path}: {where}link type {named(linktype)} is not supported: dataplane reads captures of "
                     f"link type {', '.join(named(n) for n in sorted(accepted))}")


def empty(path: object) -> PcapError:
    return PcapError(f"{path}: the capture holds no packets")
