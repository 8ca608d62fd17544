"""Constructs of DASH's bmv2 pipeline, written small here (CI cannot fetch DASH): bitwise
operators on serializable enum values, a serializable enum member as a default action's
argument, and an action listed with a directional argument in a table of an inlined
sub-control (its wrapper's name carries the instance path)."""
from __future__ import annotations

from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

DECLS = """
enum bit<8> flags_t { A = 1, B = 2, C = 4 }
control Sub(inout bit<8> v) {
    action put(inout bit<8> x, bit<8> d) { x = d; }
    table t { key = { v : exact; } actions = { put(v); NoAction; } default_action = NoAction(); }
    apply { t.apply(); }
}
"""
PARSER = "state start { pkt.extract(hdr.h); transition accept; }"


def _out(ingress: str, locals_: str = "", entries=()) -> int:
    """hdr.h.a after ingress runs on a packet whose first byte is 0x05."""
    program = compile_source(v1model_program(decls=DECLS, parser=PARSER, ingress_locals=locals_,
                                             ingress=ingress + " sm.egress_spec = 1;"), "dash.p4").program
    sw = Switch(program)
    for table, action, key, params in entries:
        sw.table_add(table, action, key, params)
    [out] = sw.send(0, bytes([5]) + b"\x00" * 6)
    return out.data[0]


def test_bitwise_operators_take_a_serializable_enum_as_its_bits():
    """p4c's binaryArith: flags_t.A | flags_t.C is bit<8> 5; a flags_t value & a member is its bits
    & the member's number; the result compares with an int."""
    assert _out("hdr.h.a = flags_t.A | flags_t.C;") == 5
    assert _out("flags_t f = (flags_t)hdr.h.a; if (f & flags_t.C != 0) { hdr.h.a = 9; }") == 9
    assert _out("flags_t f = (flags_t)hdr.h.a; if (f & flags_t.B != 0) { hdr.h.a = 9; }") == 5
    assert _out("hdr.h.a = hdr.h.a ^ flags_t.A;") == 4


def test_a_serializable_enum_member_is_a_default_action_argument():
    """default_action = set(flags_t.C): the action gets the member's number, 4."""
    locals_ = ("action set(flags_t f) { hdr.h.a = (bit<8>)f; }\n"
               "table d { key = { hdr.h.b : exact; } actions = { set; } default_action = set(flags_t.C); }")
    assert _out("d.apply();", locals_) == 4


def test_an_action_with_a_directional_argument_in_an_inlined_sub_control():
    """Sub's table lists put(v): on a hit the entry's data lands in the argument, hdr.h.a."""
    assert _out("s.apply(hdr.h.a);", "Sub() s;", [("s.t", "put", ["5"], ["7"])]) == 7
    assert _out("s.apply(hdr.h.a);", "Sub() s;") == 5
