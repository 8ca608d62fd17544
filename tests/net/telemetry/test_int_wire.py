"""Reading INT-MD and telemetry reports from bytes, against the packets tests/stf/int_md.stf
lays out from the INT v2.1 and Telemetry Report v2.0 drawings (what programs/int.p4 must emit):
a source's hop, a transit's stack of two (newest first), a sink's report with its sequence
number; the spec's per-instruction sizes; and the malformed datagrams the collector counts."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from dataplane.net.telemetry.int_wire import (
    IntFormatError,
    hop_words,
    instruction_bitmap,
    parse_int,
    parse_report,
)

STF = Path(__file__).parents[2] / "stf" / "int_md.stf"
HOP7 = dict(node_id=7, ingress_port=1, egress_port=2, hop_latency_ns=0, queue_id=0, queue_bytes=1500,
            ingress_ts_ns=0x123456789A, egress_ts_ns=0x123456789A, level2_ingress_port=None,
            level2_egress_port=None, egress_tx_bytes=0xDEADBEEF, buffer_id=None, buffer_bytes=None)
HOP5 = dict(node_id=5, ingress_port=3, egress_port=9, hop_latency_ns=77, queue_id=1, queue_bytes=0x1000,
            ingress_ts_ns=1000, egress_ts_ns=1077, level2_ingress_port=None, level2_egress_port=None,
            egress_tx_bytes=123456, buffer_id=None, buffer_bytes=None)


def _expects(port: int) -> list[bytes]:
    """The frames the STF expects on ``port``, in order."""
    text = STF.read_text()
    return [bytes.fromhex(m) for m in re.findall(rf"^expect {port} ([0-9a-f]+)", text, re.M)]


def _udp_payload(frame: bytes) -> bytes:
    ihl = (frame[14] & 0xF) * 4
    return frame[14 + ihl + 8:]


def test_instruction_sizes_are_the_specs():
    """Node id, ports, latency, queue: 1 word each; timestamps and level 2 ports 2; tx, buffer and
    checksum 1. The default 7 instructions are 9 words, 0xff81 is 13 (the STF's Hop ML)."""
    assert hop_words(instruction_bitmap("node_id")) == 1 and instruction_bitmap("node_id") == 0x8000
    assert hop_words(0xFD00) == 9 and hop_words(0xFF81) == 13
    assert instruction_bitmap("checksum_complement") == 0x0001
    with pytest.raises(ValueError, match="unknown INT instruction"):
        instruction_bitmap("jitter")


def test_source_and_transit_hops_read_as_laid_out():
    """The source's packet: one hop of 13 words, 7 hops left, the original port 6001 in the shim;
    the transit's: node 7's hop on top of node 5's."""
    frames = _expects(2)
    source = parse_int(_udp_payload(frames[0]))
    assert (source.npt, source.original_port, source.header.hop_ml, source.header.remaining_hop_count,
            source.header.instructions) == (1, 6001, 13, 7, 0xFF81)
    assert [h.as_dict() for h in source.hops] == [HOP7]
    assert source.payload == bytes(range(16))
    transit = next(parse_int(_udp_payload(f)) for f in frames if len(f) > 150)
    assert [h.as_dict() for h in transit.hops] == [{**HOP7, "ingress_port": 4}, HOP5]
    assert transit.header.remaining_hop_count == 1


def test_sink_reports_read_as_laid_out():
    """The sink's reports: version 2, node 7, sequence 0 then 1, the monitored flow's addresses
    and its original port, and the two hops it carried."""
    reports = [parse_report(_udp_payload(f)) for f in _expects(3)]
    assert [r.seq for r in reports[:3]] == [0, 1, 2] and {r.node_id for r in reports} == {7}
    first = reports[0]
    assert (first.src_ip, first.dst_ip, first.src_port, first.dst_port) == (0x0A000101, 0x0A000202, 1234, 6001)
    assert first.tracked_flow and not first.dropped and not first.truncated
    assert [h.as_dict() for h in first.int_packet.hops] == [{**HOP7, "ingress_port": 4}, HOP5]
    assert [h.as_dict() for h in reports[2].int_packet.hops] == [HOP7]        # source and sink in one


@pytest.mark.parametrize("mutate, message", [
    (lambda b: b[:10], "too short"),
    (lambda b: bytes([0x2C]) + b[1:], "only INT-MD"),
    (lambda b: b[:1] + bytes([60]) + b[2:], "datagram has"),
    (lambda b: b[:4] + bytes([0x10]) + b[5:], "version 1"),
    (lambda b: b[:8] + bytes([0xFF, 0xFF]) + b[10:], "reserved bits"),
    (lambda b: b[:6] + bytes([0x0C]) + b[7:], "asks for 13 words a hop, the header says 12"),
])
def test_malformed_int_is_an_error(mutate, message):
    """Short data, another type, a length past the datagram, version 1, reserved bits, a Hop ML
    that is not the bitmap's: IntFormatError naming it (the collector counts and skips these)."""
    good = _udp_payload(_expects(2)[0])
    with pytest.raises(IntFormatError, match=message):
        parse_int(mutate(good))
