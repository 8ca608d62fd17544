"""What p4c's targets refuse although the language allows it (dataplane/lang/check/target.py)."""
from __future__ import annotations

import pytest

from dataplane.control.switch import Switch
from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model


def test_run_time_division_is_rejected():
    """`x / y` with y known only at run time has no target implementation."""
    src = v1model(ingress="meta.x = meta.x / meta.y;")
    assert_error(src, "'/' needs operands known at compile time or a constant power-of-2 divisor", at="meta.x / meta.y",
                 code="target")


def test_run_time_remainder_in_a_compound_assignment_is_rejected():
    """`x %= 3` is `x = x % 3`."""
    src = v1model(ingress="meta.x %= 3;")
    assert_error(src, "'%' needs operands known at compile time", at="meta.x %= 3;", code="target")


def test_division_by_a_power_of_two_and_constant_division_pass():
    """A power-of-2 divisor becomes a shift or a mask; constants fold; 0 / x is 0. The values
    are the quotients and remainders: 203 / 4 = 50, 0x1234 % 16 = 4, 7 / 2 + 0 / 50 = 3."""
    compile_source(v1model(ingress="meta.x = meta.x / 4; meta.y = meta.y % 8w16; meta.w = 7 / 2; "
                                   "meta.x = 8w0 / meta.y;"), "ok.p4")
    program = compile_source(v1model(parser="state start { pkt.extract(hdr.h); transition accept; }",
                                     ingress="hdr.h.a = hdr.h.a / 4; hdr.h.b = hdr.h.b % 16w16; "
                                             "hdr.h.c = 7 / 2 + (bit<32>) (8w0 / hdr.h.a);"), "ok.p4").program
    [out] = Switch(program).send(0, bytes([203, 0x12, 0x34, 0, 0, 0, 9]))
    assert out.data == bytes([50, 0x00, 0x04, 0, 0, 0, 3])


def test_switch_in_an_action_is_rejected():
    """BMv2's compiler turns a switch into a table, which an action cannot apply."""
    src = v1model(ingress_locals="action a() { switch (meta.x) { 1: { meta.y = 1; } } }", ingress="a();")
    assert_error(src, "switch statements cannot be used in actions on BMv2", at="switch (meta.x)", code="target")


def test_switch_without_core_p4_is_rejected():
    """The table p4c builds for a switch matches 'exact', declared in core.p4."""
    src = """control c(in bit<4> a) { apply { switch (a) { 4w0: { } } } }
control ct(in bit<4> a);
package pt(ct t);
pt(c()) main;
"""
    assert_error(src, "a switch statement needs match_kind 'exact'", at="switch (a)", code="target")


def test_nested_struct_cannot_be_an_extern_out_argument():
    """A struct holding a header cannot come back from an extern."""
    src = v1model(decls="struct pair_t { h_t a; bit<8> b; }\nextern void fill(inout pair_t p);",
                  ingress="pair_t v; fill(v);")
    assert_error(src, "argument 'p' of 'fill' is 'inout' and has type pair_t, a struct holding structs or headers",
                 at="v);", code="target")


def test_extern_cannot_write_a_struct_inside_a_nested_parameter():
    """register<S>.read into meta.s, where meta holds structs, is refused by p4c's mid-end."""
    prog = """#include <core.p4>
#include <v1model.p4>
struct s_t { bit<8> f; }
struct m_t { s_t s; bit<8> g; }
struct h_t { }
parser P(packet_in p, out h_t h, inout m_t m, inout standard_metadata_t sm) { state start { transition accept; } }
control C(inout h_t h, inout m_t m, inout standard_metadata_t sm) {
    register<s_t>(4) r;
    apply { r.read(m.s, 0); }
}
control E(inout h_t h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control V(inout h_t h, inout m_t m) { apply { } }
control D(packet_out p, in h_t h) { apply { } }
V1Switch(P(), V(), C(), E(), V(), D()) main;
"""
    assert_error(prog, "'m.s' is a struct inside parameter 'm', and p4c's targets cannot write a whole struct there",
                 at="m.s, 0", code="target")


@pytest.mark.parametrize("version, message", [
    ("-6419018", "V1MODEL_VERSION must be a non-negative number, got -6419018"),
    ("20000101", "unknown V1MODEL_VERSION 20000101: versions from 20180101 to 20200408 are supported"),
])
def test_v1model_version_must_be_known(version, message):
    """p4c knows v1model.p4 from 20180101 to 20200408."""
    src = v1model().replace("#include <v1model.p4>", f"#define V1MODEL_VERSION {version}\n#include <v1model.p4>")
    with pytest.raises(CompileError) as info:
        compile_source(src, "bad.p4")
    first = info.value.diagnostics[0]
    assert message in first.message and first.span.file.endswith("v1model.p4") and first.span.line > 0


def test_target_rules_skip_what_p4c_removes_as_unused():
    """p4c drops unused declarations before its mid-end: a control no package instantiates, an
    action nothing calls, everything in a program without main."""
    unused_control = v1model(decls="control U(inout bit<8> a, in bit<8> b) { apply { a = a / b; } }")
    program = compile_source(unused_control, "ok.p4").program
    assert "U" not in dict(program.package.blocks).values() and [b for _, b in program.package.blocks] == \
        ["P", "VC", "IG", "EG", "CC", "DP"]
    unused_action = v1model(ingress_locals="action never(inout bit<8> a) { a = a / meta.y; }")
    program = compile_source(unused_action, "ok.p4").program
    assert "never" in program.controls["IG"].actions and not program.controls["IG"].tables
    no_main = "control c(inout bit<8> a, in bit<8> b) { apply { a = a % b; } }\n"
    program = compile_source(no_main, "ok.p4").program
    assert program.package is None and list(program.controls) == ["c"]
