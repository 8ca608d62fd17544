"""Inline csum16 as a sum of 16-bit-aligned pieces agrees with ``hashes.csum16`` on the packed bytes.

The field list has fields that cross 16-bit boundaries (a 20-bit and a 48-bit field),
sub-byte fields, a signed field and a bool, and a bit count that is neither a multiple
of 16 nor of 8 (the data is zero-padded to a byte, then csum16 pads an odd length).
"""
from __future__ import annotations

import random

import pytest

from dataplane.control.switch import Switch
from dataplane.engine.backend import generate
from dataplane.engine.hashes import csum16
from dataplane.engine.runtime import pack_fields
from dataplane.lang.frontend import compile_source

SOURCE = """
#include <core.p4>
#include <v1model.p4>
header d_t { bit<4> a; bit<20> b; bit<48> c; int<8> s; bool f; bit<3> g; bit<5> h; bit<7> i; bit<16> ck; }
header o_t { bit<16> ck; bit<8> err; }
struct headers { d_t d; o_t o; }
struct metadata { }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(hdr.d.isValid(), { hdr.d.a, hdr.d.b, hdr.d.c, hdr.d.s, hdr.d.f, hdr.d.g, hdr.d.h, hdr.d.i },
                        hdr.d.ck, HashAlgorithm.csum16);
    }
}
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { hdr.o.setValid(); hdr.o.err = (bit<8>)sm.checksum_error; sm.egress_spec = 1; }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(true, { hdr.d.b, hdr.d.c, hdr.d.i, hdr.d.s }, hdr.o.ck, HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
WIDTHS = (4, 20, 48, 8, 1, 3, 5, 7)


@pytest.fixture(scope="module")
def switch() -> Switch:
    program = compile_source(SOURCE).program
    assert "verify_checksum(" not in generate(program).split("def build")[1]
    return Switch(program)


def test_piecewise_csum16_matches_reference(switch):
    rng = random.Random(9)
    for k in range(400):
        values = [0] * len(WIDTHS) if k == 0 else [rng.getrandbits(w) for w in WIDTHS]
        n = 0
        for v, w in zip(values, WIDTHS):
            n = (n << w) | v
        want_verify = csum16(pack_fields([(True, v, w) for v, w in zip(values, WIDTHS)]))
        a, b, c, s, f, g, h, i = values
        want_update = csum16(pack_fields([(True, b, 20), (True, c, 48), (True, i, 7), (True, s, 8)]))
        for ck in (want_verify, want_verify ^ 0x10):
            (out,) = switch.process(0, ((n << 16) | ck).to_bytes(14, "big")).outputs
            assert int.from_bytes(out.data[:2], "big") == want_update
            assert out.data[2] == (0 if ck == want_verify else 1)
