"""Expression and statement rules p4c applies (dataplane/lang/check/expr.py, stmt.py)."""
from __future__ import annotations

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model


def test_last_index_only_in_parsers():
    """`.lastIndex` follows extraction, which only parsers do."""
    src = v1model(decls="header e_t { bit<8> v; }", headers="h_t h; e_t[2] st;", ingress="meta.z = hdr.st.lastIndex;")
    assert_error(src, "header stack '.lastIndex' can only be used in a parser", at="hdr.st.lastIndex",
                 code="invalid-context")


def test_division_by_a_negative_literal_is_rejected():
    """`x / -1` is not defined: -1 has no unsigned value to divide by."""
    src = v1model(ingress="meta.x = meta.x / -1;")
    assert_error(src, "'/' is not defined on negative numbers", at="meta.x / -1", code="operand-type")


def test_invalid_header_without_a_type_is_no_value():
    """`{#}` takes its header type from the context; a slice bound or `-` gives it none."""
    assert_error(v1model(ingress="meta.x = 8w2[7:{#}];"), "a slice bound must be a compile-time constant", at="{#}]",
                 code="not-constant")
    assert_error(v1model(ingress="meta.f = -{#} == 0;"), "'-' cannot apply to '{#}'", at="-{#}", code="type-inference")


def test_type_casts_only_to_and_from_its_base():
    """`type bit<1> t1` converts from bit<1>, not from bit<2> (two casts do it)."""
    src = v1model(decls="type bit<1> t1;", ingress="t1 v = (t1)meta.x;")
    assert_error(src, "cannot cast bit<8> to t1", at="(t1)meta.x", code="invalid-cast")
    compile_source(v1model(decls="type bit<1> t1;", ingress="t1 v = (t1)(bit<1>)meta.x; t1 w = (t1)1;"), "ok.p4")


def test_generic_function_returns_its_type_variable():
    """A function returning T cannot return a value of another type."""
    src = v1model(decls="T f<T>(tuple<> x) { return x; }")
    assert_error(src, "type mismatch in return value: expected T, got tuple<>", at="x; }", code="type-mismatch")
