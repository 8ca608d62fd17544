"""v1model hash() calls the generator inlines agree with the extern's definition.

Field lists mix header fields and metadata, so which fields BMv2 hashes depends on whether
header ``b`` is valid: the inline code packs the list as one integer when every header is
valid and hands (valid, value, width) triples to ``runtime.pack_fields`` otherwise. The
expected values come from ``pack_fields`` + ``hashes.hash_function`` + ``hashes.hash_result``,
with constant and run-time bases and maxima (a maximum of 0 counts as 1, a base wraps at
64 bits), an odd number of bits (zero padding at the end) and a whole header in the list.
"""
from __future__ import annotations

import random

import pytest

from dataplane.control.switch import Switch
from dataplane.engine.backend import generate
from dataplane.engine.hashes import hash_function, hash_result
from dataplane.engine.runtime import pack_fields
from dataplane.lang.frontend import compile_source

SOURCE = """
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> x; bit<16> base; bit<16> max; bit<8> has_b; }
header b_t { bit<16> p; bit<5> q; bit<3> r; }
header o_t { bit<16> h0; bit<16> h1; bit<32> h2; bit<64> h3; bit<16> h4; bit<8> h5; }
struct headers { a_t a; b_t b; o_t o; }
struct metadata { bit<12> m; }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        meta.m = hdr.a.base[11:0];
        transition select(hdr.a.has_b) { 1: get_b; default: accept; }
    }
    state get_b { pkt.extract(hdr.b); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hash(hdr.o.h0, HashAlgorithm.crc16, (bit<16>)0, { hdr.a.x, hdr.b.p, hdr.b.q, meta.m }, (bit<32>)65536);
        hash(hdr.o.h1, HashAlgorithm.crc32, hdr.a.base, { hdr.b.p, meta.m, hdr.a.x }, hdr.a.max);
        hash(hdr.o.h2, HashAlgorithm.identity, (bit<32>)5, { hdr.a.x, hdr.b.q }, (bit<64>)0xFFFFFFFFFFFF);
        hash(hdr.o.h3, HashAlgorithm.xor16, 64w0xFFFFFFFFFFFFFFFF, { hdr.b, meta.m }, (bit<64>)7);
        hash(hdr.o.h4, HashAlgorithm.csum16, (bit<16>)0, { meta.m }, (bit<32>)0);
        hash(hdr.o.h5[6:1], HashAlgorithm.crc32, (bit<6>)1, { hdr.b.p, hdr.a.x }, (bit<16>)50);
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.fixture(scope="module")
def program():
    return compile_source(SOURCE).program


def test_the_calls_are_inlined(program):
    src = generate(program)
    assert src.count("f_hash_algorithms[") == 6 and "pack_fields(" in src
    assert "f_hash(" not in src
    assert "_fl_pack0 = _Struct('!BH3s').pack" in src  # {x, b.p, b.q, meta.m}: 8, 16, 5 + 12 + 7 padding


def expected(x: int, base: int, mx: int, b: tuple[int, int, int] | None) -> tuple[int, ...]:
    valid = b is not None
    p, q, r = b or (0, 0, 0)
    m = base & 0xFFF

    def h(algo, base_value, fields, max_value, width):
        return hash_result(hash_function(algo)(pack_fields(fields)), base_value, max_value, width)

    h0 = h("crc16", 0, [(True, x, 8), (valid, p, 16), (valid, q, 5), (True, m, 12)], 65536, 16)
    h1 = h("crc32", base, [(valid, p, 16), (True, m, 12), (True, x, 8)], mx, 16)
    h2 = h("identity", 5, [(True, x, 8), (valid, q, 5)], 0xFFFFFFFFFFFF, 32)
    h3 = h("xor16", (1 << 64) - 1, [(valid, p, 16), (valid, q, 5), (valid, r, 3), (True, m, 12)], 7, 64)
    h4 = h("csum16", 0, [(True, m, 12)], 0, 16)
    h5 = h("crc32", 1, [(valid, p, 16), (True, x, 8)], 50, 6)
    return h0, h1, h2, h3, h4, h5 << 1


@pytest.mark.parametrize("with_b", [True, False], ids=["b-valid", "b-invalid"])
def test_inline_hash_matches_pack_fields(program, with_b):
    sw = Switch(program)
    rng = random.Random(11 + with_b)
    cases = [(0, 0, 0, (0, 0, 0)), (255, 0xFFFF, 0, (0xFFFF, 31, 7))]
    cases += [(rng.randrange(256), rng.randrange(65536), rng.choice([0, 1, 3, rng.randrange(65536)]),
               (rng.randrange(65536), rng.randrange(32), rng.randrange(8))) for _ in range(200)]
    for x, base, mx, b in cases:
        b = b if with_b else None
        packet = bytes([x]) + base.to_bytes(2, "big") + mx.to_bytes(2, "big") + bytes([1 if b else 0])
        if b is not None:
            packet += b[0].to_bytes(2, "big") + bytes([(b[1] << 3) | b[2]])
        (out,) = sw.process(0, packet).outputs
        d = out.data
        got = (int.from_bytes(d[0:2], "big"), int.from_bytes(d[2:4], "big"), int.from_bytes(d[4:8], "big"),
               int.from_bytes(d[8:16], "big"), int.from_bytes(d[16:18], "big"), d[18])
        assert got == expected(x, base, mx, b)


def test_a_value_wider_than_its_field_hashes_like_the_integer_packing(program):
    """Generated code never stores such a value; if one is there, struct.pack refuses it and
    the inline code falls back to the big-integer packing (neighbouring bits absorb the excess)."""
    sw = Switch(program)
    dp = sw.dp
    x, base, mx, p, r = 9, 0x123, 1000, 0x4242, 5
    packet = bytes([x]) + base.to_bytes(2, "big") + mx.to_bytes(2, "big") + bytes([1]) + p.to_bytes(2, "big") + bytes([r])
    hdr, meta, sm, ctx = dp._new_packet(0, packet, 0, None)
    dp.blocks["p"](None, hdr, meta, sm, ctx)
    q = hdr.b.q = 0x3F               # 6 bits in a bit<5> field
    m = base & 0xFFF
    dp.blocks["ig"](hdr, meta, sm, ctx)

    def big(fields) -> bytes:
        total = sum(w for _, w in fields)
        end = total + (-total) % 8
        n, off = 0, 0
        for v, w in fields:
            n |= v << (end - off - w)
            off += w
        return n.to_bytes(end // 8, "big")

    def h(algo, base_value, fields, max_value, width):
        return hash_result(hash_function(algo)(big(fields)), base_value, max_value, width)

    assert hdr.o.h0 == h("crc16", 0, [(x, 8), (p, 16), (q, 5), (m, 12)], 65536, 16)
    assert hdr.o.h2 == h("identity", 5, [(x, 8), (q, 5)], 0xFFFFFFFFFFFF, 32)
    assert hdr.o.h3 == h("xor16", (1 << 64) - 1, [(p, 16), (q, 5), (r, 3), (m, 12)], 7, 64)
