"""What `==` and `!=` may compare, and where `.action_run` may appear (dataplane/lang/check/compare.py)."""
from __future__ import annotations

from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model

TABLE = "table t { key = { meta.x : exact; } actions = { NoAction; } }"


def test_results_of_calls_without_a_value_cannot_be_compared():
    """An action call returns nothing to compare."""
    src = v1model(ingress_locals="action f() { }", ingress="if (f() == f()) { }")
    assert_error(src, "'==' cannot compare the results of calls that return no value", at="f() ==", code="operand-type")


def test_table_apply_results_cannot_be_compared():
    """Compare .hit or .miss instead."""
    src = v1model(ingress_locals=TABLE, ingress="if (t.apply() != t.apply()) { }")
    assert_error(src, "the results of applying table 't' cannot be compared; test .hit or .miss", at="t.apply() !=",
                 code="operand-type")


def test_two_struct_initializers_cannot_be_compared():
    """Neither side gives the struct type; tuples and a cast side are fine."""
    src = v1model(ingress="meta.f = {a = 8w1} == {a = 8w1};")
    assert_error(src, "cannot compare two struct initializers with '==': their struct type is unknown",
                 at="{a = 8w1} ==", code="operand-type")
    compile_source(v1model(decls="struct s_t { bit<8> a; }",
                           ingress="meta.f = {8w1, 8w2} == {8w1, 8w2} && (s_t){a = 1} == {a = 1};"), "ok.p4")


def test_action_run_outside_a_switch_is_rejected():
    """`.action_run` has no value outside `switch (t.apply().action_run)`."""
    src = v1model(ingress_locals="action a() { }\n" + TABLE.replace("NoAction;", "NoAction; a;"),
                  ingress="if (t.apply().action_run == t.apply().action_run) { }")
    assert_error(src, "'.action_run' can only be the expression of a switch statement", at="t.apply().action_run ==",
                 code="invalid-context")


def test_action_run_in_a_switch_is_accepted():
    """The one place it belongs; the case of the action that ran is taken (t misses: NoAction)."""
    program = compile_source(v1model(ingress_locals=TABLE, ingress="switch (t.apply().action_run) { "
                                     "NoAction: { sm.egress_spec = 3; } default: { sm.egress_spec = 4; } }"),
                             "ok.p4").program
    assert [o.port for o in Switch(program).send(0, b"\x01\x02")] == [3]


def test_values_of_a_type_variable_cannot_be_compared():
    """T may be a type without equality."""
    src = v1model(decls="bool same<T>(in T a, in T b) { return a == b; }")
    assert_error(src, "values of type T, a type variable, cannot be compared", at="a == b", code="operand-type")
