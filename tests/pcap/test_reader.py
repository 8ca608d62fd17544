"""dataplane.pcap's readers against scapy's on the same files: classic pcap in both byte orders
and resolutions, pcapng as scapy writes it and as other tools do (big-endian, SPB, unknown
blocks, nanosecond if_tsresol), and the located errors for bad files."""
from __future__ import annotations

import struct

import pytest
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import RawPcapNgReader, RawPcapReader, RawPcapWriter, wrpcapng

from dataplane.pcap import PcapError, iter_packets, open_capture

PACKETS = [bytes(range(i % 256)) * 1 + bytes([i % 256]) * (i % 7) for i in range(1, 40)]
TIMES_US = [(1_700_000_000 + i, 1000 * i + 7) for i in range(len(PACKETS))]


def _scapy_classic(path, *, endianness="<", nano=False, linktype=1):
    with RawPcapWriter(str(path), linktype=linktype, endianness=endianness, nano=nano) as w:
        w.write_header(None)      # write_packet alone leaves the file header out
        for data, (sec, frac) in zip(PACKETS, TIMES_US):
            w.write_packet(data, sec=sec, usec=frac)


@pytest.mark.parametrize("endianness", ["<", ">"])
@pytest.mark.parametrize("nano", [False, True])
def test_classic_reads_like_scapy(tmp_path, endianness, nano):
    path = tmp_path / "a.pcap"
    _scapy_classic(path, endianness=endianness, nano=nano, linktype=105)
    with RawPcapReader(str(path)) as theirs:
        expected = [(data, meta.sec, meta.usec) for data, meta in theirs]
    with open_capture(path, linktypes=None) as reader:
        got = list(reader)
        assert reader.format == "pcap" and reader.linktype == 105 and reader.snaplen == 65535
        assert reader.count == len(PACKETS)
    scale = 1 if nano else 1000
    assert got == [(sec * 1_000_000_000 + frac * scale, data) for data, sec, frac in expected]


def test_pcapng_written_by_scapy_reads_back(tmp_path):
    path = tmp_path / "a.pcapng"
    frames = []
    for data, (sec, usec) in zip(PACKETS, TIMES_US):
        frame = Ether(dst="00:00:00:00:00:02") / Raw(data)
        frame.time = sec + usec / 1e6
        frames.append(frame)
    wrpcapng(str(path), frames)
    with RawPcapNgReader(str(path)) as theirs:
        expected = [data for data, _meta in theirs]
    got = list(iter_packets(path))
    assert [d for _, d in got] == expected == [bytes(f) for f in frames]
    # scapy stores microseconds: the seconds at least must come back exactly
    assert [t // 1_000_000_000 for t, _ in got] == [sec for sec, _ in TIMES_US]


def _block(order: str, btype: int, body: bytes) -> bytes:
    body += bytes(-len(body) % 4)
    total = len(body) + 12
    return struct.pack(order + "II", btype, total) + body + struct.pack(order + "I", total)


def _pcapng(order: str, packets: list[bytes], linktype: int = 1) -> bytes:
    """A hand-made pcapng: SHB, an unknown block, an IDB (``linktype``) in nanoseconds, EPBs, then an SPB."""
    shb = _block(order, 0x0A0D0D0A, struct.pack(order + "IHHq", 0x1A2B3C4D, 1, 0, -1))
    tsresol = struct.pack(order + "HH", 9, 1) + b"\x09\x00\x00\x00" + struct.pack(order + "HH", 0, 0)
    idb = _block(order, 1, struct.pack(order + "HHI", linktype, 0, 65535) + tsresol)
    unknown = _block(order, 0x0BAD, b"ignored!")
    epbs = b"".join(_block(order, 6, struct.pack(order + "IIIII", 0, (10_000_000_000 + i) >> 32,
                                                  (10_000_000_000 + i) & 0xFFFFFFFF, len(p), len(p)) + p)
                    for i, p in enumerate(packets[:-1]))
    spb = _block(order, 3, struct.pack(order + "I", len(packets[-1])) + packets[-1])
    return shb + unknown + idb + epbs + spb


@pytest.mark.parametrize("order", ["<", ">"])
def test_pcapng_both_byte_orders_with_spb_and_unknown_blocks(tmp_path, order):
    path = tmp_path / "b.pcapng"
    path.write_bytes(_pcapng(order, PACKETS[:5], linktype=228))
    with open_capture(path, linktypes=None) as reader:
        got = list(reader)
        assert reader.format == "pcapng" and reader.linktype == 228
    assert [d for _, d in got] == PACKETS[:5]
    assert [t for t, _ in got] == [10_000_000_000 + i for i in range(4)] + [0]
    with RawPcapNgReader(str(path)) as theirs:     # the reference agrees on the bytes
        assert [d for d, _ in theirs] == PACKETS[:5]


def test_reading_streams_without_loading_the_file(tmp_path):
    path = tmp_path / "a.pcap"
    _scapy_classic(path)
    it = iter_packets(path)
    assert next(it)[1] == PACKETS[0]      # a generator: nothing is read past what is asked
    it.close()


# ---- errors -------------------------------------------------------------------------------------

def test_truncated_packet_is_located(tmp_path):
    path = tmp_path / "cut.pcap"
    _scapy_classic(path)
    whole = path.read_bytes()
    path.write_bytes(whole[:-3])
    with pytest.raises(PcapError, match=rf"cut.pcap: packet {len(PACKETS)} is truncated "
                                        rf"\({len(PACKETS[-1]) - 3} of {len(PACKETS[-1])} bytes\): "
                                        "the file ends early"):
        list(iter_packets(path))
    path.write_bytes(whole[:24 + 16 + len(PACKETS[0]) + 5])     # the second record's header cut
    with pytest.raises(PcapError, match=r"packet 2 is truncated \(5 of 16 bytes\)"):
        list(iter_packets(path))


def test_truncated_pcapng_packet_is_located(tmp_path):
    path = tmp_path / "cut.pcapng"
    path.write_bytes(_pcapng("<", PACKETS[:3])[:-6])
    with pytest.raises(PcapError, match=r"cut.pcapng: packet 3 is truncated"):
        list(iter_packets(path))


@pytest.mark.parametrize("name, content", [("empty.pcap", b""), ("text.pcap", b"not a capture file at all"),
                                           ("short.pcap", struct.pack("<I", 0xA1B2C3D4) + b"\x02\x00")])
def test_not_a_capture(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(PcapError, match=rf"{name}: cannot read as a pcap file"):
        list(iter_packets(path))


@pytest.mark.parametrize("suffix", ["pcap", "pcapng"])
def test_capture_without_packets(tmp_path, suffix):
    path = tmp_path / f"none.{suffix}"
    if suffix == "pcap":
        path.write_bytes(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    else:
        path.write_bytes(_pcapng("<", [b""])[:-16])     # SHB, unknown, IDB; the SPB cut off
    with pytest.raises(PcapError, match=rf"none.{suffix}: the capture holds no packets"):
        list(iter_packets(path))
