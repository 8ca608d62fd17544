"""What parameters, variables and struct fields may be (dataplane/lang/check/params.py)."""
from __future__ import annotations

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model

CORE = """#include <core.p4>
{body}
control proto();
package top(proto p);
top(c()) main;
"""


def test_extern_parameter_cannot_have_a_direction():
    """Extern instances are passed directionless."""
    src = CORE.format(body="extern X { X(); }\ncontrol q(in X x) { apply { } }\ncontrol c() { apply { } }")
    assert_error(src, "parameter 'x' has type X and cannot be 'in': extern instance parameters are directionless",
                 at="in X x", code="invalid-type")


def test_string_parameter_cannot_have_a_direction():
    """`in string` is an error; a directionless string parameter (log_msg's) is fine."""
    src = CORE.format(body='extern void f(in string s);\ncontrol c() { apply { f("boo"); } }')
    assert_error(src, "parameter 's' has type string and cannot be 'in'", at="in string s", code="invalid-type")


def test_generic_parameter_bound_to_a_string_cannot_have_a_direction():
    """`f<T>(in T data)` called with a string literal binds T to string."""
    src = CORE.format(body='extern void f<T>(in T data);\ncontrol c() { apply { f("hi"); } }')
    assert_error(src, "argument 'data' of 'f': T is string here, and string parameters cannot be 'in'", at='"hi"',
                 code="invalid-declaration")


def test_int_parameter_must_be_directionless():
    """A compile-time int has no run-time storage to pass in or out."""
    src = v1model(ingress_locals="action a(in int v) { meta.x = (bit<8>)v; }", ingress="a(1);")
    assert_error(src, "parameter 'v' has type int and cannot be 'in': int parameters are directionless",
                 at="in int v", code="invalid-type")


def test_action_parameter_cannot_be_an_extern():
    """An action cannot take an extern instance."""
    src = v1model(ingress_locals="action a(register<bit<8>> r) { }")
    assert_error(src, "action 'a': parameter 'r' cannot have extern type register<bit<8>>", at="register<bit<8>> r",
                 code="invalid-type")


def test_struct_action_data_of_a_v1model_table_compiles():
    """p4c's front end lets a table's action take a struct; its P4Runtime serializer refuses it
    (tests/control/p4info/test_build.py), so `compile --check` accepts the program."""
    src = v1model(decls="struct pair_t { bit<8> a; bit<8> b; }", ingress_locals="""
    action set(pair_t p) { meta.x = p.a; }
    table t { key = { meta.x : exact; } actions = { set; } }""", ingress="t.apply();")
    action = compile_source(src, "ok.p4").program.controls["IG"].actions["set"]
    assert [(p.name, p.type.name) for p in action.params] == [("p", "pair_t")]


def test_struct_action_data_outside_a_known_architecture_is_not_checked():
    """p4c checks action data only where it writes a P4Runtime description (v1model, PSA, PNA)."""
    body = """struct pair_t { bit<8> a; }
control c() {
    action set(pair_t p) { }
    table t { actions = { set; } }
    apply { t.apply(); }
}"""
    program = compile_source(CORE.format(body=body), "ok.p4").program
    action = program.controls["c"].actions["set"]
    assert [(p.name, p.type.name) for p in action.params] == [("p", "pair_t")]
    assert [a.action for a in program.controls["c"].tables["t"].actions] == ["set"]


def test_string_struct_field_and_variable_are_rejected():
    """Strings exist only as literals and directionless parameters."""
    assert_error(v1model(decls="struct s_t { string s; }"), "field 's' of struct 's_t' cannot have type string",
                 at="string s;", code="invalid-type")
    assert_error(v1model(ingress="string v;"), "variable 'v' cannot have type string", at="string v;",
                 code="invalid-type")


def test_int_variable_is_rejected():
    """A variable needs a width."""
    assert_error(v1model(ingress="int v = 1;"), "variable 'v' cannot have type int; use bit<W> or int<W>",
                 at="int v = 1;", code="invalid-type")


def test_local_shadowing_a_parameter_is_rejected():
    """`headers_t hdr = hdr;` in the apply block hides the control's parameter."""
    src = v1model(ingress="headers_t hdr = hdr;")
    assert_error(src, "declaration of 'hdr' shadows a parameter 'hdr'", at="headers_t hdr = hdr;", code="duplicate")


def test_action_local_shadowing_a_control_parameter_is_rejected():
    """Actions see their control's parameters, so their locals may not reuse those names."""
    src = v1model(ingress_locals="action a() { bit<8> meta = 1; }")
    assert_error(src, "declaration of 'meta' shadows a parameter 'meta'", at="bit<8> meta = 1;", code="duplicate")
