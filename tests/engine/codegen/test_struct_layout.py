"""Headers extracted and emitted through ``struct`` units agree with the field layout bit for bit.

The header mixes every kind of byte-aligned unit the generator makes: sub-byte fields
sharing a byte, a signed field and a bool inside a unit, a 3-byte unit of two fields,
a 6-byte and a 16-byte field (``Ns`` units), plain 1/2/4/8-byte fields and a signed
16-bit field on its own. Expected values are computed from the whole header as one
big-endian integer, the way the layout defines them.
"""
from __future__ import annotations

import random

import pytest

from dataplane.control.switch import Switch
from dataplane.engine.backend import generate
from dataplane.engine.codegen.layout import struct_format, struct_units, unpack_format
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

SOURCE = v1model_program(
    decls=("header x_t { "
           "bit<3> a; int<4> b; bool c; bit<4> d; bit<20> e; bit<48> mac; "
           "bit<128> big; bit<8> f; bit<16> g; bit<32> i; bit<64> j; int<16> k; "
           "bit<5> l; bit<11> m; "
           "}"),
    headers="x_t h;",
    parser="state start { pkt.extract(hdr.h); transition accept; }",
    ingress="sm.egress_spec = 1;",
)

FIELDS = [("a", 3, False), ("b", 4, True), ("c", 1, False), ("d", 4, False), ("e", 20, False),
          ("mac", 48, False), ("big", 128, False), ("f", 8, False), ("g", 16, False), ("i", 32, False),
          ("j", 64, False), ("k", 16, True), ("l", 5, False), ("m", 11, False)]
WIDTH = sum(w for _, w, _ in FIELDS)


@pytest.fixture(scope="module")
def compiled():
    return compile_source(SOURCE).program


@pytest.fixture(scope="module")
def switch(compiled) -> Switch:
    return Switch(compiled)


def expected(data: bytes, fields: list[tuple[str, int, bool]] = FIELDS) -> dict:
    """Each field's value read from the header as one big-endian integer (bool field: ``c``)."""
    width = sum(w for _, w, _ in fields)
    n = int.from_bytes(data[:width // 8], "big")
    out, pos = {}, 0
    for name, w, signed in fields:
        v = (n >> (width - pos - w)) & ((1 << w) - 1)
        if signed and v >> (w - 1):
            v -= 1 << w
        out[name] = v != 0 if name == "c" else v
        pos += w
    return out


def parse(switch: Switch, data: bytes):
    dp = switch.dp
    hdr, meta, sm, ctx = dp._new_packet(0, data, 0, None)
    dp.blocks["p"](None, hdr, meta, sm, ctx)
    return hdr, ctx, sm


def test_units_and_format(compiled):
    units = struct_units(compiled.headers["x_t"])
    assert struct_format(units) == "!B3s6s16sBHIQHH"  # int<16> is unpacked unsigned, then sign-extended
    assert [len(u.fields) for u in units] == [3, 2, 1, 1, 1, 1, 1, 1, 1, 2]
    assert "_unpack_x_t" in generate(compiled)


def test_extract_matches_layout(switch):
    rng = random.Random(3)
    for _ in range(300):
        data = rng.randbytes(WIDTH // 8) + rng.randbytes(rng.randrange(4))
        hdr, ctx, sm = parse(switch, data)
        want = expected(data)
        assert hdr.h._valid and sm.parser_error == 0
        assert {name: getattr(hdr.h, name) for name in want} == want
        assert type(hdr.h.c) is bool
        assert ctx.pos == WIDTH // 8


def test_short_packet_is_packet_too_short(switch):
    hdr, ctx, sm = parse(switch, bytes(WIDTH // 8 - 1))
    assert not hdr.h._valid and sm.parser_error == switch.program.errors.index("PacketTooShort")


def test_round_trip_is_byte_identical(switch):
    rng = random.Random(4)
    for _ in range(300):
        data = rng.randbytes(WIDTH // 8) + rng.randbytes(rng.randrange(8))
        (out,) = switch.process(0, data).outputs
        assert out.data == data


def test_out_of_range_field_emits_what_the_big_integer_form_gives(switch):
    """A value wider than its field (not something generated code stores) bleeds into its
    neighbours exactly as the big-integer deparser always did, or overflows the same way."""
    data = bytes(range(WIDTH // 8))
    hdr, ctx, sm = parse(switch, data)

    def big_int_form(h) -> bytes:
        n, pos = 0, 0
        for name, w, signed in FIELDS:
            v = getattr(h, name)
            v = (1 if v else 0) if name == "c" else (v & ((1 << w) - 1) if signed else v)
            n |= v << (WIDTH - pos - w)
            pos += w
        return n.to_bytes(WIDTH // 8, "big")

    hdr.h.d = 0x1F      # bit<4> holding 5 bits: spills into the field above it
    hdr.h.g = 0x1_0001  # bit<16> holding 17 bits
    out: list[bytes] = []
    switch.dp.blocks["dep"](out, hdr, ctx)
    assert out == [big_int_form(hdr.h)]
    hdr.h.a = 1 << 200  # past the header's own width: both forms overflow
    with pytest.raises(OverflowError):
        switch.dp.blocks["dep"]([], hdr, ctx)

# ---- units of 3, 5, 6 and 7 bytes: unpacked as struct integers joined with shifts -----------------
# Each kind, with one field or several (a signed field and a bool among them), must read what the
# layout defines; packing keeps the ``Ns`` form, so round trips are byte-identical.

PIECES_FIELDS = [("a", 24, False), ("b", 4, True), ("c", 1, False), ("d", 35, False),
                 ("e", 40, False), ("f", 48, False), ("g", 56, False), ("h", 3, False), ("i", 21, True)]
PIECES_WIDTH = sum(w for _, w, _ in PIECES_FIELDS)

PIECES_SOURCE = v1model_program(
    decls=("header x_t { "
           "bit<24> a; int<4> b; bool c; bit<35> d; bit<40> e; bit<48> f; "
           "bit<56> g; bit<3> h; int<21> i; "
           "}"),
    headers="x_t h;",
    parser="state start { pkt.extract(hdr.h); transition accept; }",
    ingress="sm.egress_spec = 1;",
)


@pytest.fixture(scope="module")
def pieces_switch() -> Switch:
    return Switch(compile_source(PIECES_SOURCE).program)


def test_3_5_6_7_byte_units_have_integer_unpack_formats(pieces_switch):
    units = struct_units(pieces_switch.program.headers["x_t"])
    assert [u.nbytes for u in units] == [3, 5, 5, 6, 7, 3]
    assert struct_format(units) == "!3s5s5s6s7s3s"
    assert unpack_format(units) == "!HBIBIBIHIHBHB"


def test_3_5_6_7_byte_units_unpack_as_integers_and_round_trip(pieces_switch):
    dp = pieces_switch.dp
    rng = random.Random(5)
    for _ in range(300):
        data = rng.randbytes(PIECES_WIDTH // 8) + rng.randbytes(rng.randrange(4))
        hdr, meta, sm, ctx = dp._new_packet(0, data, 0, None)
        dp.blocks["p"](None, hdr, meta, sm, ctx)
        want = expected(data, PIECES_FIELDS)
        assert hdr.h._valid and sm.parser_error == 0 and ctx.pos == PIECES_WIDTH // 8
        assert {name: getattr(hdr.h, name) for name in want} == want
        assert type(hdr.h.c) is bool
        (out,) = pieces_switch.process(0, data).outputs
        assert out.data == data
