"""v1model checksums on BMv2's rules, on the per-packet engine (csum16 over one header
inlined, other lists and algorithms through the extern) and on the batch engine:

* ``verify_checksum`` is skipped when the header holding the checksum field is invalid
  (BMv2's ``Checksum::verify``: "Skipping checksum verification because target field
  invalid"), so ``checksum_error`` stays 0;
* csum16 is the RFC 1071 checksum: the one's complement of the one's-complement sum of the
  16-bit words. All-zero data sums to 0 and gives 0xFFFF; data summing to 0xFFFF gives 0.

Expected checksums come from an RFC 1071 sum written here, not from the engine's ``csum16``.
"""
from __future__ import annotations

import pytest

from dataplane.control.switch import Switch
from dataplane.engine.hashes import csum16
from dataplane.lang.frontend import compile_source

SOURCE = """
#include <core.p4>
#include <v1model.p4>
header a_t { bit<16> x; bit<16> y; bit<8> has_b; }
header b_t { bit<16> p; bit<16> q; bit<16> ck; bit<16> ck2; }
header o_t { bit<8> err; bit<16> sum_a; bit<16> sum_b; bit<16> sum_xp; }
struct headers { a_t a; b_t b; o_t o; }
struct metadata { }
parser P(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.a);
        transition select(hdr.a.has_b) { 1: get_b; default: accept; }
    }
    state get_b { pk.extract(hdr.b); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(true, { hdr.b.p, hdr.b.q }, hdr.b.ck, HashAlgorithm.ALGO);
        verify_checksum(true, { hdr.a.x, hdr.b.p, hdr.b.q }, hdr.b.ck2, HashAlgorithm.ALGO);
    }
}
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hdr.o.err = (bit<8>) sm.checksum_error;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(true, { hdr.a.x, hdr.a.y }, hdr.o.sum_a, HashAlgorithm.csum16);
        update_checksum(true, { hdr.b.p, hdr.b.q }, hdr.o.sum_b, HashAlgorithm.csum16);
        update_checksum(true, { hdr.a.x, hdr.b.p }, hdr.o.sum_xp, HashAlgorithm.csum16);
    }
}
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def rfc1071(data: bytes) -> int:
    """The Internet checksum: 16-bit words added with end-around carry, complemented."""
    if len(data) % 2:
        data += b"\x00"
    total = 0
    for i in range(0, len(data), 2):
        total += int.from_bytes(data[i:i + 2], "big")
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def crc16_arc(data: bytes) -> int:
    """CRC-16/ARC (BMv2's crc16): reflected polynomial 0x8005, initial 0, no final xor."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def frame(x: int, y: int, b: tuple[int, ...] | None) -> bytes:
    """Header a (x, y, has_b), then b (p, q, ck, ck2; ck2 0 unless given) when ``b`` is given."""
    if b is not None and len(b) == 3:
        b = (*b, 0)
    out = x.to_bytes(2, "big") + y.to_bytes(2, "big") + bytes([1 if b else 0])
    return out + b"".join(v.to_bytes(2, "big") for v in b) if b else out


def run(sw: Switch, engine: str, packets: list[bytes]) -> list[tuple[int, int, int, int]]:
    """(checksum_error, csum16 of a's x and y, of b's p and q, of a.x and b.p) per packet."""
    out = []
    for r in sw.process_batch(packets, engine=engine):
        d = r.outputs[0].data
        out.append((d[0], *(int.from_bytes(d[i:i + 2], "big") for i in (1, 3, 5))))
    return out


ENGINES = [("csum16", "packet"), ("csum16", "batch"), ("crc16", "packet")]


@pytest.fixture(scope="module", params=ENGINES, ids=[f"{a}-{e}" for a, e in ENGINES])
def engine(request):
    algo, name = request.param
    return Switch(compile_source(SOURCE.replace("ALGO", algo)).program), name, (rfc1071 if algo == "csum16"
                                                                                else crc16_arc)


def test_verify_checksum_is_skipped_when_the_checksum_header_is_invalid(engine):
    """Two checks whose checksum fields are in b: over b's p and q, and over a's x with b's p
    and q. No b header: checksum_error 0, though the data left (none, or a.x alone) does not
    checksum to the fields' 0. With b valid: 0 when both are right, 1 when either is off by one."""
    sw, name, reference = engine
    ck = reference(bytes([0x12, 0x34, 0xAB, 0xCD]))
    ck2 = reference(bytes([0x00, 0x01, 0x12, 0x34, 0xAB, 0xCD]))
    assert reference(b"\x00\x01") != 0          # a.x's own checksum: what an unskipped check would compare
    got = run(sw, name, [frame(1, 2, None), frame(1, 2, (0x1234, 0xABCD, ck, ck2)),
                         frame(1, 2, (0x1234, 0xABCD, ck ^ 1, ck2)), frame(1, 2, (0x1234, 0xABCD, ck, ck2 ^ 1))])
    assert [r[0] for r in got] == [0, 0, 1, 1]


@pytest.mark.parametrize("x, y, want", [(0, 0, 0xFFFF), (0, 1, 0xFFFE), (0xFFFE, 1, 0x0000), (0x8000, 0x8000, 0xFFFE)])
def test_csum16_of_all_zero_data_is_0xffff(engine, x, y, want):
    """The checksum field written by update_checksum: 0xFFFF over zeros; 0xFFFE over a sum of 1;
    0x0000 over a sum of 0xFFFF; the carry out of 0x8000 + 0x8000 wraps around to 1."""
    sw, name, _ = engine
    data = x.to_bytes(2, "big") + y.to_bytes(2, "big")
    assert rfc1071(data) == want
    assert run(sw, name, [frame(x, y, None)])[0][:2] == (0, want)


def test_csum16_of_no_data_or_zeros_from_two_headers_is_0xffff(engine):
    """Over b's fields with b invalid (no data) and over a.x with b.p (two headers, b.p left
    out while b is invalid): 0xFFFF for no data and for zeros, 0xFFFE for a sum of 1, 0 for
    a sum of 0xFFFF."""
    sw, name, _ = engine
    got = run(sw, name, [frame(0, 7, None), frame(0, 7, (0, 0, 0)), frame(0, 7, (0, 1, 0)),
                         frame(1, 7, (0xFFFE, 1, 0)), frame(1, 7, None)])
    assert [r[2:] for r in got] == [(0xFFFF, 0xFFFF), (0xFFFF, 0xFFFF), (0xFFFE, 0xFFFF), (0x0000, 0x0000),
                                    (0xFFFF, 0xFFFE)]


def test_the_reference_csum16_agrees_on_zeros():
    """``hashes.csum16`` (the extern's and the tests' reference) on all-zero data of several lengths."""
    for n in (0, 1, 2, 3, 20):
        assert csum16(bytes(n)) == rfc1071(bytes(n)) == 0xFFFF
    assert csum16(b"\xff\xff") == 0 and csum16(b"\x00\x01") == 0xFFFE
