"""dataplane.pcap.writer: the same bytes as scapy's writer, one packet at a time or in bulk."""
from __future__ import annotations

import numpy as np
import pytest
from scapy.utils import RawPcapReader, RawPcapWriter

from dataplane.pcap import PcapWriter, iter_packets, read_batches
from dataplane.pcap.batch import from_packets
from dataplane.pcap.writer import record_block

PACKETS = [bytes([i]) * (20 + (i * 37) % 90) for i in range(60)]
TIMES_NS = [1_700_000_000_000_000_000 + i * 1_234_567 for i in range(len(PACKETS))]


def test_byte_identical_to_scapy_microsecond_writer(tmp_path):
    ours, theirs = tmp_path / "ours.pcap", tmp_path / "theirs.pcap"
    with PcapWriter(ours, nanosecond=False) as w:
        for data, t in zip(PACKETS, TIMES_NS):
            w.write(data, t)
    with RawPcapWriter(str(theirs), linktype=1) as w:
        w.write_header(None)
        for data, t in zip(PACKETS, TIMES_NS):
            w.write_packet(data, sec=t // 10**9, usec=t % 10**9 // 1000)
    assert ours.read_bytes() == theirs.read_bytes()


def test_nanosecond_file_round_trips_through_scapy(tmp_path):
    path = tmp_path / "ns.pcap"
    with PcapWriter(path, linktype=228) as w:
        for data, t in zip(PACKETS, TIMES_NS):
            w.write(data, t)
    with RawPcapReader(str(path)) as r:
        assert r.linktype == 228
        assert [(meta.sec * 10**9 + meta.usec, d) for d, meta in r] == list(zip(TIMES_NS, PACKETS))
    assert list(iter_packets(path, linktypes=None)) == list(zip(TIMES_NS, PACKETS))


@pytest.mark.parametrize("packets", [PACKETS, [bytes(range(64))] * 40], ids=["mixed", "fixed"])
def test_bulk_write_equals_one_at_a_time(tmp_path, packets):
    one, bulk = tmp_path / "one.pcap", tmp_path / "bulk.pcap"
    times = TIMES_NS[:len(packets)] + [0] * (len(packets) - len(TIMES_NS))
    with PcapWriter(one) as w:
        for data, t in zip(packets, times):
            w.write(data, t)
    batch = from_packets(packets, times)
    with PcapWriter(bulk) as w:
        w.write_batch(batch.data[:10], batch.lengths[:10], batch.timestamps[:10])
        w.write_batch(batch.data[10:], batch.lengths[10:], batch.timestamps[10:])
        assert w.count == len(packets)
    assert bulk.read_bytes() == one.read_bytes()


def test_batch_read_then_bulk_write_copies_the_file(tmp_path):
    src, dst = tmp_path / "src.pcap", tmp_path / "dst.pcap"
    with PcapWriter(src) as w:
        for data, t in zip(PACKETS, TIMES_NS):
            w.write(data, t)
    with PcapWriter(dst) as w:
        for b in read_batches(src, 16):
            w.write_batch(b.data, b.lengths, b.timestamps)
    assert dst.read_bytes() == src.read_bytes()


def test_snaplen_cuts_and_keeps_the_wire_length(tmp_path):
    path = tmp_path / "snap.pcap"
    with PcapWriter(path, snaplen=8) as w:
        w.write(bytes(range(20)), 5)
        w.write_batch(np.arange(20, dtype=np.uint8)[None, :], np.array([20]))
    with RawPcapReader(str(path)) as r:
        got = [(d, meta.caplen, meta.wirelen) for d, meta in r]
    assert got == [(bytes(range(8)), 8, 20)] * 2


def test_buffered_records_reach_the_file_on_flush_and_in_order(tmp_path):
    path = tmp_path / "flush.pcap"
    w = PcapWriter(path)
    frame = bytearray(b"\x01" * 30)
    w.write(frame, 1)
    frame[:] = b"\x02" * 30                  # the caller reuses its buffer: the record keeps its bytes
    w.flush()
    assert list(iter_packets(path)) == [(1, b"\x01" * 30)]
    for i in range(3000):                    # past the join threshold, then a bulk write after it
        w.write(bytes([i % 256]) * 10, i)
    batch = from_packets([b"bulk"], [7])
    w.write_batch(batch.data, batch.lengths, batch.timestamps)
    w.close()
    got = list(iter_packets(path))
    assert len(got) == 3002 and got[1:3001] == [(i, bytes([i % 256]) * 10) for i in range(3000)]
    assert got[-1] == (7, b"bulk")


def test_record_block_rows_write_the_same_bytes_as_write_batch(tmp_path):
    batch = from_packets([bytes(range(i, i + 64)) for i in range(30)], TIMES_NS[:30])
    pick = np.array([29, 3, 3, 17, 0])
    block = record_block(batch.data, batch.lengths, batch.timestamps, nanosecond=False)
    rows, bulk = tmp_path / "rows.pcap", tmp_path / "bulk.pcap"
    with PcapWriter(rows, nanosecond=False) as w:
        w.write_records(block[pick])
        w.write_records(block[:0])
    with PcapWriter(bulk, nanosecond=False) as w:
        w.write_batch(batch.data[pick], batch.lengths[pick], batch.timestamps[pick])
    assert rows.read_bytes() == bulk.read_bytes() and w.count == len(pick)
    mixed = from_packets(PACKETS)
    assert record_block(mixed.data, mixed.lengths, None) is None
