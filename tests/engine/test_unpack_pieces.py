"""Units of 3, 5, 6 and 7 bytes are unpacked as struct integers and joined with shifts.

Each kind, with one field or several (a signed field and a bool among them), must read
what the layout defines: the header taken as one big-endian integer. Packing keeps the
``Ns`` form, so round trips are byte-identical.
"""
from __future__ import annotations

import random

import pytest

from dataplane.control.switch import Switch
from dataplane.engine.codegen_layout import struct_format, struct_units, unpack_format
from dataplane.lang.frontend import compile_source

FIELDS = [("a", 24, False), ("b", 4, True), ("c", 1, False), ("d", 35, False),
          ("e", 40, False), ("f", 48, False), ("g", 56, False), ("h", 3, False), ("i", 21, True)]
WIDTH = sum(w for _, w, _ in FIELDS)
BOOL = "c"

SOURCE = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<24> a; int<4> b; bool c; bit<35> d; bit<40> e; bit<48> f; bit<56> g; bit<3> h; int<21> i; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.fixture(scope="module")
def switch() -> Switch:
    return Switch(compile_source(SOURCE).program)


def expected(data: bytes) -> dict:
    n = int.from_bytes(data[:WIDTH // 8], "big")
    out, pos = {}, 0
    for name, w, signed in FIELDS:
        v = (n >> (WIDTH - pos - w)) & ((1 << w) - 1)
        if signed and v >> (w - 1):
            v -= 1 << w
        out[name] = v != 0 if name == BOOL else v
        pos += w
    return out


def test_formats(switch):
    units = struct_units(switch.program.headers["h_t"])
    assert [u.nbytes for u in units] == [3, 5, 5, 6, 7, 3]
    assert struct_format(units) == "!3s5s5s6s7s3s"
    assert unpack_format(units) == "!HBIBIBIHIHBHB"


def test_extract_matches_layout_and_round_trips(switch):
    dp = switch.dp
    rng = random.Random(5)
    for _ in range(300):
        data = rng.randbytes(WIDTH // 8) + rng.randbytes(rng.randrange(4))
        hdr, meta, sm, ctx = dp._new_packet(0, data, 0, None)
        dp.blocks["p"](None, hdr, meta, sm, ctx)
        want = expected(data)
        assert hdr.h._valid and sm.parser_error == 0 and ctx.pos == WIDTH // 8
        assert {name: getattr(hdr.h, name) for name in want} == want
        assert type(hdr.h.c) is bool
        (out,) = switch.process(0, data).outputs
        assert out.data == data
