"""Implicit conversions of the type checker (``lang/check/types.py``) as p4c makes them."""
from __future__ import annotations

from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model


def test_untyped_literal_initialises_a_new_type_over_bits():
    """p4c binds an untyped integer to a `type` whose representation is bit<W> (SAI P4's
    `const vrf_id_t kDefaultVrf = 0;`): the constant has the new type and the literal's value."""
    decls = "type bit<10> vrf_id_t; type vrf_id_t outer_t; const vrf_id_t kDefault = 5; const outer_t kOuter = 7;"
    prog = compile_source(v1model(decls=decls, ingress="vrf_id_t v = 3; v = kDefault;"), "ok.p4").program
    k = prog.constants["kDefault"].value
    assert isinstance(k, E.Constant) and k.value == 5 and k.type == T.NewType("vrf_id_t", T.Bits(10))
    assert prog.constants["kOuter"].value.value == 7 and prog.constants["kOuter"].type.name == "outer_t"


def test_untyped_literal_does_not_initialise_a_new_type_over_bool():
    """An integer binds only to bit<>/int<> (p4c: "can only be unified with 'int', 'bit<>', or
    'signed<>' types"); a `type bool` takes none."""
    assert_error(v1model(decls="type bool flag_t; const flag_t kF = 1;"),
                 "type mismatch in constant 'kF': expected flag_t, got int", at="1;", code="type-mismatch")


VARBIT = "header v_t {{ bit<16> len; varbit<{w}> data; }}"
VARBIT_PARSER = ("state start { pkt.extract(hdr.v, (bit<32>)hdr.h.b * 8); transition accept; }")


def test_varbit_may_be_wider_than_2048_bits():
    """p4c limits bit<W> to 2048 bits and a varbit only to what fits an int: a varbit<4096>
    header field compiles, loads and extracts 3000 bits of a packet."""
    from dataplane.control.switch import Switch

    src = v1model(decls=VARBIT.format(w=4096), headers="h_t h; v_t v;",
                  parser="state start { pkt.extract(hdr.h); pkt.extract(hdr.v, (bit<32>)hdr.h.b * 8); "
                         "transition accept; }", ingress="sm.egress_spec = 1;")
    sw = Switch(compile_source(src, "ok.p4").program, name="s1")
    payload = bytes([7]) + (375).to_bytes(2, "big") + bytes(4) + bytes(2) + bytes(range(256)) + bytes(119)
    out = sw.send(0, payload)
    assert [(o.port, o.data) for o in out] == [(1, payload)]
    assert_error(v1model(decls="header w_t { bit<4096> x; }"), "bit<4096> is too large", at="4096", code="too-wide")


def test_varbit_width_is_limited_to_an_int():
    assert_error(v1model(decls=VARBIT.format(w=2**31)), f"varbit<{2**31}> is too large", at=str(2**31),
                 code="too-wide")
    compile_source(v1model(decls=VARBIT.format(w=2**31 - 1)), "ok.p4")
