"""A capture is read only if its frames are Ethernet (LINKTYPE_ETHERNET, 1): the switch's P4
parser gets them as they are, so a Linux cooked capture (113) or raw IP (101) used to go in
silently misread. Anything else is an error naming the file, the link type (its number and
tcpdump.org's name) and what is accepted; link types 0 and 2 either side of Ethernet's 1."""
from __future__ import annotations

import struct

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.pcap import PcapError, iter_packets, read_batches

FRAME = bytes.fromhex("000000000002000000000001080045000014000100004001000ac0000201c0000202")


def _classic(path, linktype: int) -> None:
    head = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)
    path.write_bytes(head + struct.pack("<IIII", 0, 0, len(FRAME), len(FRAME)) + FRAME)


def _block(btype: int, body: bytes) -> bytes:
    body += bytes(-len(body) % 4)
    return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)


def _pcapng(path, linktypes: list[int]) -> None:
    shb = _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idbs = b"".join(_block(1, struct.pack("<HHI", lt, 0, 65535)) for lt in linktypes)
    epb = _block(6, struct.pack("<IIIII", 0, 0, 0, len(FRAME), len(FRAME)) + FRAME)
    path.write_bytes(shb + idbs + epb)


@pytest.mark.parametrize("linktype,name", [(0, "0 (NULL (BSD loopback))"), (2, "2"), (101, "101 (RAW (IP packets))"),
                                           (113, "113 (LINUX_SLL (Linux cooked capture))"), (65535, "65535")])
def test_a_classic_pcap_of_another_link_type_is_refused(tmp_path, linktype, name):
    path = tmp_path / "x.pcap"
    _classic(path, linktype)
    for read in (lambda: list(iter_packets(path)), lambda: list(read_batches(path))):
        with pytest.raises(PcapError) as info:
            read()
        assert str(info.value) == (f"{path}: link type {name} is not supported: dataplane reads captures of "
                                   "link type 1 (ETHERNET)")


def test_an_ethernet_pcap_is_read(tmp_path):
    path = tmp_path / "x.pcap"
    _classic(path, 1)
    assert list(iter_packets(path)) == [(0, FRAME)]
    assert list(iter_packets(path, linktypes=None)) == [(0, FRAME)]


@pytest.mark.parametrize("linktypes,bad", [([0], 0), ([2], 0), ([1, 228], 1)])
def test_a_pcapng_interface_of_another_link_type_is_refused(tmp_path, linktypes, bad):
    path = tmp_path / "x.pcapng"
    _pcapng(path, linktypes)
    with pytest.raises(PcapError, match=f"x.pcapng: interface {bad}: link type {linktypes[bad]}"):
        list(iter_packets(path))


def test_an_ethernet_pcapng_is_read(tmp_path):
    path = tmp_path / "x.pcapng"
    _pcapng(path, [1, 1])
    assert list(iter_packets(path)) == [(0, FRAME)]


@pytest.mark.parametrize("suffix", ["pcap", "pcapng"])
def test_run_packet_refuses_it_with_an_error_line(tmp_path, suffix):
    path = tmp_path / f"cooked.{suffix}"
    (_classic if suffix == "pcap" else lambda p, lt: _pcapng(p, [lt]))(path, 113)
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run-packet", "ipv4_router", "--pcap", str(path), "--out", str(out)])
    assert r.exit_code == 1 and "error: " in r.output and "link type 113" in r.output and "Traceback" not in r.output
    assert not out.exists()
