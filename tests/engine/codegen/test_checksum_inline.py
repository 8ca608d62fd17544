"""csum16 checksums the generator turns into integer arithmetic agree with ``hashes.csum16``.

The program checksums a 3-byte field list (odd length: csum16 pads a zero byte at the end)
of one header and a list over a header that may be invalid (then the data is empty and the
sum is 0xFFFF). Expected values come from ``hashes.csum16`` on the bytes BMv2 would hash.
"""
from __future__ import annotations

import random

import pytest

from dataplane.control.switch import Switch
from dataplane.engine.hashes import csum16
from dataplane.lang.frontend import compile_source

SOURCE = """
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> x; bit<16> y; bit<16> ck; bit<8> has_b; }
header b_t { bit<16> p; bit<16> q; }
header out_t { bit<16> ck_a; bit<16> ck_b; bit<8> err; }
struct headers { a_t a; b_t b; out_t o; }
struct metadata { }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.has_b) { 1: get_b; default: accept; }
    }
    state get_b { pkt.extract(hdr.b); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) {
    apply { verify_checksum(true, { hdr.a.x, hdr.a.y }, hdr.a.ck, HashAlgorithm.csum16); }
}
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hdr.o.err = (bit<8>)sm.checksum_error;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(true, { hdr.a.x, hdr.a.y }, hdr.o.ck_a, HashAlgorithm.csum16);
        update_checksum(true, { hdr.b.p, hdr.b.q }, hdr.o.ck_b, HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.fixture(scope="module")
def switch() -> Switch:
    return Switch(compile_source(SOURCE).program)


def run(sw: Switch, x: int, y: int, ck: int, b: bytes | None) -> tuple[int, int, int]:
    packet = bytes([x]) + y.to_bytes(2, "big") + ck.to_bytes(2, "big") + bytes([1 if b else 0]) + (b or b"")
    (out,) = sw.process(0, packet).outputs
    return int.from_bytes(out.data[0:2], "big"), int.from_bytes(out.data[2:4], "big"), out.data[4]


def test_inline_csum16_matches_reference_on_odd_lengths_and_invalid_headers(switch):
    rng = random.Random(7)
    cases = [(0, 0, None), (0xFF, 0xFFFF, b"\xff\xff\xff\xff"), (0, 0, b"\x00\x00\x00\x00")]
    cases += [(rng.randrange(256), rng.randrange(65536), rng.randbytes(4) if rng.random() < 0.5 else None)
              for _ in range(300)]
    for x, y, b in cases:
        a_bytes = bytes([x]) + y.to_bytes(2, "big")
        want_a = csum16(a_bytes)
        want_b = csum16(b) if b else csum16(b"")
        # A correct checksum verifies; one off by one does not.
        assert run(switch, x, y, want_a, b) == (want_a, want_b, 0)
        assert run(switch, x, y, want_a ^ 1, b)[2] == 1
