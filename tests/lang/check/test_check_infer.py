"""Arguments a call cannot take or whose type it cannot infer (dataplane/lang/check/infer.py)."""
from __future__ import annotations

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model


def test_dont_care_only_for_out_parameters():
    """`_` discards an out value; an `in` parameter needs a value."""
    src = v1model(decls="extern void f(in bit<32> x);", ingress="f(_);")
    assert_error(src, "'_' can only be passed to an 'out' parameter; 'x' of 'f' is 'in'", at="_);",
                 code="invalid-context")


def test_extract_into_dont_care_needs_a_type_argument():
    """`extract(_)` gives T no type; `extract<h_t>(_)` skips a header's worth of bits."""
    src = v1model(parser="state start { pkt.extract(_); transition accept; }")
    assert_error(src, "could not infer type T of 'packet_in.extract' from '_'; write the type argument", at="_);",
                 code="type-inference")
    compile_source(v1model(parser="state start { pkt.extract<h_t>(_); transition accept; }"), "ok.p4")


def test_untyped_integer_cannot_give_a_generic_parameter_its_type():
    """hash's `max` is the only source of M: 0xFFFF has no width."""
    src = v1model(ingress="hash(meta.w, HashAlgorithm.crc16, 16w0, { meta.x }, 0xFFFF);")
    assert_error(src, "could not infer a width for 0xffff: it is the only source of type M of 'hash'; "
                      "give it a width (e.g. 16w0xffff)", at="0xFFFF", code="type-inference")


def test_dont_care_type_argument_is_inferred_from_a_typed_value():
    """`E<_>` asks for inference: a bit<8> argument gives T a type, an untyped 0 does not."""
    decls = "extern E<T> { E(); void f(in T arg); }"
    src = v1model(decls=decls, ingress_locals="E<_>() e;", ingress="e.f(0);")
    assert_error(src, "could not infer a width for 0: it is the only source of type T of 'E.f'", at="0);",
                 code="type-inference")
    compile_source(v1model(decls=decls, ingress_locals="E<_>() e;", ingress="e.f(8w0);"), "ok.p4")


def test_struct_initializer_cannot_give_a_generic_parameter_its_type():
    """A `{ f = x }` initializer has no declared struct type to bind T to."""
    src = v1model(decls="extern void g<T>(in T x);", ingress="g({ a = meta.x });")
    assert_error(src, "could not infer the struct type of this initializer for type T of 'g'", at="{ a = meta.x }",
                 code="type-inference")


def test_generic_parameter_cannot_take_a_table_or_a_control():
    """A table or a control instance is no value a generic parameter can hold."""
    src = v1model(decls="extern void g<T>(in T x);",
                  ingress_locals="table t { actions = { NoAction; } }", ingress="g(t);")
    assert_error(src, "argument 'x' of 'g': a generic parameter cannot take table t", at="t);", code="invalid-type")
