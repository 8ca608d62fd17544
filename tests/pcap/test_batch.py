"""dataplane.pcap.batch: captures as numpy batches equal the packet-at-a-time reader's packets,
on the fixed-length fast path, the mixed-length walk, the switch between them, and pcapng."""
from __future__ import annotations

import numpy as np
import pytest
from scapy.utils import RawPcapWriter

from dataplane.pcap import PcapError, iter_packets, read_batches
from dataplane.pcap.batch import from_packets


def _write(path, packets, endianness="<", nano=True):
    with RawPcapWriter(str(path), linktype=1, endianness=endianness, nano=nano) as w:
        w.write_header(None)
        for i, data in enumerate(packets):
            w.write_packet(data, sec=100 + i, usec=i * 3)


def _flatten(batches):
    """(time_ns, bytes) of every packet of the batches, checking each batch's shape as it goes."""
    out, first = [], 0
    for b in batches:
        assert b.first == first and b.data.dtype == np.uint8 and b.data.shape[0] == len(b)
        assert b.data.shape[1] == int(b.lengths.max())            # padded to the widest only
        for i in range(len(b)):
            assert not b.data[i, b.lengths[i]:].any()              # zeros after the packet
            out.append((int(b.timestamps[i]), b.packet(i)))
        first += len(b)
    return out


@pytest.mark.parametrize("endianness", ["<", ">"])
def test_fixed_length_capture_comes_in_full_batches(tmp_path, endianness):
    path = tmp_path / "fixed.pcap"
    packets = [bytes([i % 256]) * 64 for i in range(1000)]
    _write(path, packets, endianness)
    batches = list(read_batches(path, 300))
    assert [len(b) for b in batches] == [300, 300, 300, 100]
    assert _flatten(batches) == list(iter_packets(path))
    assert batches[1].data.shape == (300, 64) and (batches[1].lengths == 64).all()


@pytest.mark.parametrize("size", [1, 7, 64, 1000])
def test_mixed_lengths_and_a_switch_from_the_fast_path(tmp_path, size):
    path = tmp_path / "mixed.pcap"
    rng = np.random.default_rng(size)
    same = [bytes(64)] * 150                                     # a long same-length run first
    mixed = [rng.integers(0, 256, int(n), dtype=np.uint8).tobytes() for n in rng.integers(0, 200, 300)]
    _write(path, same + mixed + same, nano=False)
    batches = list(read_batches(path, size))
    assert sum(map(len, batches)) == 600
    assert all(len(b) <= size for b in batches)
    assert _flatten(batches) == list(iter_packets(path))


def test_pcapng_batches(tmp_path):
    from scapy.layers.l2 import Ether
    from scapy.packet import Raw
    from scapy.utils import wrpcapng

    path = tmp_path / "a.pcapng"
    wrpcapng(str(path), [Ether() / Raw(bytes(i)) for i in range(50)])
    assert _flatten(read_batches(path, 16)) == list(iter_packets(path))


def test_truncated_on_the_fast_path(tmp_path):
    path = tmp_path / "cut.pcap"
    _write(path, [bytes(64)] * 10)
    path.write_bytes(path.read_bytes()[:-4])
    with pytest.raises(PcapError, match=r"cut.pcap: packet 10 is truncated \(60 of 64 bytes\): the file ends early"):
        list(read_batches(path, 4))


def test_empty_capture(tmp_path):
    path = tmp_path / "none.pcap"
    _write(path, [])
    with pytest.raises(PcapError, match="holds no packets"):
        list(read_batches(path))


def test_from_packets_pads_with_zeros():
    b = from_packets([b"\x01\x02\x03", b"", b"\x04"], [5, 6, 7], first=9)
    assert b.data.tolist() == [[1, 2, 3], [0, 0, 0], [4, 0, 0]]
    assert b.lengths.tolist() == [3, 0, 1] and b.timestamps.tolist() == [5, 6, 7] and b.first == 9


@pytest.mark.parametrize("cut, message", [(3, r"packet 40 is truncated \(\d+ of \d+ bytes\)"),
                                          (None, r"packet 41 is truncated \(5 of 16 bytes\)")])
def test_truncated_on_the_mixed_path(tmp_path, cut, message):
    path = tmp_path / "cut.pcap"
    _write(path, [bytes(n % 50 + 1) for n in range(40)])
    whole = path.read_bytes()
    path.write_bytes(whole[:-cut] if cut else whole + bytes(5))
    for size in (7, 1000):
        with pytest.raises(PcapError, match=message):
            list(read_batches(path, size))


def test_records_are_the_file_s_only_when_the_writer_would_write_them(tmp_path):
    """``records`` (what run-packet copies for outputs rewritten in place) is the file's bytes
    for a nanosecond capture of whole packets; None when a packet was cut (wire length above
    the captured one) or a fraction of a second is out of range."""
    from dataplane.pcap import PcapWriter

    path = tmp_path / "whole.pcap"
    with PcapWriter(path) as w:
        for i in range(8):
            w.write(bytes([i]) * 60, 1_000_000_000 * i + i)
    (batch,) = read_batches(path)
    assert batch.records is not None and batch.records.tobytes() == path.read_bytes()[24:]
    for field, value in ((12, 61), (4, 1_000_000_000)):     # wire length; nanoseconds of the 4th record
        raw = bytearray(path.read_bytes())
        raw[24 + 3 * 76 + field:24 + 3 * 76 + field + 4] = value.to_bytes(4, "little")
        bad = tmp_path / f"bad{field}.pcap"
        bad.write_bytes(bytes(raw))
        (batch,) = read_batches(bad)
        assert len(batch) == 8 and batch.records is None
