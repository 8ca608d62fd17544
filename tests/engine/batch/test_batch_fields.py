"""The batch engine reads a header field as exactly its own bits, whatever its width and
wherever it starts: a 48- to 63-bit field that does not start on a 64-bit word boundary (inside
one word, or across two) carries none of the bits of the fields before it.

Packets are extracted at one offset for all (fields read from the bytes when used) and at
offsets that differ per packet (fields cut from 64-bit words); each field is copied to an
output header, once widened to bit<64>, and the expected output is built from the input's
bits here, then compared with both engines.
"""
from __future__ import annotations

import random

import pytest

from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source

SOURCE = """
#include <core.p4>
#include <v1model.p4>
header pre_t { bit<8> skip; }
header h_t { bit<4> a; bit<52> b; bit<3> c; bit<61> d; bit<2> e; bit<57> f; bit<5> g; bit<50> k; bit<6> l; }
header o_t { bit<4> z; bit<52> b; bit<61> d; bit<57> f; bit<50> k; bit<64> wb; bit<64> wd; bit<64> wf; bit<64> wk; }
struct headers { pre_t pre; h_t h; o_t o; }
struct metadata { }
parser P(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.pre);
        transition select(hdr.pre.skip) { 1: skip; default: fields; }
    }
    state skip { pk.advance(8); transition fields; }
    state fields { pk.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hdr.o.b = hdr.h.b;
        hdr.o.d = hdr.h.d;
        hdr.o.f = hdr.h.f;
        hdr.o.k = hdr.h.k;
        hdr.o.wb = (bit<64>) hdr.h.b;
        hdr.o.wd = (bit<64>) hdr.h.d;
        hdr.o.wf = (bit<64>) hdr.h.f;
        hdr.o.wk = (bit<64>) hdr.h.k;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""

# h: 240 bits; b lies inside the first 64-bit word, d, f and k across word boundaries; none starts on a byte
H_FIELDS = (("a", 4), ("b", 52), ("c", 3), ("d", 61), ("e", 2), ("f", 57), ("g", 5), ("k", 50), ("l", 6))
NEIGHBOURS = ("a", "c", "e", "g", "l")
O_FIELDS = (("z", 4), ("b", 52), ("d", 61), ("f", 57), ("k", 50), ("wb", 64), ("wd", 64), ("wf", 64), ("wk", 64))


def fields(data: bytes, layout) -> dict[str, int]:
    n, total = int.from_bytes(data, "big"), 8 * len(data)
    out, at = {}, 0
    for name, w in layout:
        out[name] = (n >> (total - at - w)) & ((1 << w) - 1)
        at += w
    return out


def expected(h: bytes) -> bytes:
    f = fields(h, H_FIELDS)
    o = dict(z=0, b=f["b"], d=f["d"], f=f["f"], k=f["k"], wb=f["b"], wd=f["d"], wf=f["f"], wk=f["k"])
    n = 0
    for name, w in O_FIELDS:
        n = (n << w) | o[name]
    return n.to_bytes(sum(w for _, w in O_FIELDS) // 8, "big")


@pytest.fixture(scope="module")
def program():
    return compile_source(SOURCE).program


def packets(rng: random.Random, shifted: str) -> list[tuple[bytes, bytes]]:
    """(packet, header h's bytes); in every h the short fields between the wide ones are all
    ones, so a wide field that keeps a neighbour's bits shows it. ``shifted``: "none" (h at
    byte 1 in every packet), "some" (h at byte 2 in every other)."""
    ones, at = 0, 240
    for name, w in H_FIELDS:
        at -= w
        if name in NEIGHBOURS:
            ones |= ((1 << w) - 1) << at
    out = []
    for i in range(16):
        hb = (rng.getrandbits(240) | ones).to_bytes(30, "big")
        skip = shifted == "some" and i % 2 == 1
        out.append(((b"\x01\x55" if skip else b"\x00") + hb, hb))
    return out


@pytest.mark.parametrize("shifted", ["none", "some"], ids=["one_offset", "offsets_differ"])
def test_wide_fields_inside_a_word_carry_only_their_own_bits(program, shifted):
    """b (52 bits at bit 4 of the first word), d (61 at bit 59: across words), f (57 at 122:
    across) and k (50 at 184: across) copied out and widened to 64 bits equal the input's
    bits, on both engines."""
    pairs = packets(random.Random(shifted), shifted)
    data = [p for p, _ in pairs]
    batch = Switch(program).process_batch(data, engine="batch")
    for (p, h), got in zip(pairs, batch):
        want = expected(h)
        assert [o.data for o in got.outputs] == [want], p.hex()
        assert Switch(program).process(0, p).outputs[0].data == want
