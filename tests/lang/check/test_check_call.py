"""Rules on calls of packet_in's methods (dataplane/lang/check/call.py)."""
from __future__ import annotations

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model

VAR = "header v_t { bit<8> len; varbit<32> data; }"


def test_extract_with_a_size_needs_a_varbit_header():
    """The size argument is the varbit field's length; h_t has none."""
    src = v1model(parser="state start { pkt.extract(hdr.h, 32); transition accept; }")
    assert_error(src, "header h_t has no varbit field, so 'extract' takes no size argument", at="hdr.h, 32",
                 code="invalid-type")


def test_extract_of_a_varbit_header_needs_a_size():
    """Without the size the varbit field's length is unknown."""
    src = v1model(decls=VAR, headers="h_t h; v_t v;", parser="state start { pkt.extract(hdr.v); transition accept; }")
    assert_error(src, "header v_t has a varbit field: extract it with its size in bits", at="hdr.v)",
                 code="invalid-type")
    compile_source(v1model(decls=VAR, headers="h_t h; v_t v;",
                           parser="state start { pkt.extract(hdr.v, 16); transition accept; }"), "ok.p4")


def test_lookahead_of_void_is_rejected():
    """lookahead reads bits of a type; void has none."""
    src = v1model(parser="state start { pkt.lookahead<void>(); transition accept; }")
    assert_error(src, "'lookahead' cannot return void", at="void>", code="invalid-type")


def test_lookahead_of_a_varbit_type_is_rejected():
    """lookahead needs a fixed width."""
    src = v1model(decls=VAR, parser="state start { pkt.lookahead<v_t>(); transition accept; }")
    assert_error(src, "'lookahead' needs a fixed-width type, and v_t has a varbit field", at="v_t>()",
                 code="invalid-type")


def test_verify_only_in_parsers():
    """verify sets the parser error and rejects; a control has no parser error to set."""
    src = v1model(ingress="verify(meta.f, error.NoMatch);")
    assert_error(src, "'verify' can only be called in a parser", at="verify(", code="invalid-context")


def test_call_matching_two_declarations_is_ambiguous():
    """Two extract<T>(out T ...) overloads differ only in their parameter names."""
    src = v1model(decls="extern Ex { Ex(); void get<T>(out T a); void get<T>(out T b); }",
                  ingress_locals="Ex() ex;", ingress="ex.get(meta.x);")
    assert_error(src, "'Ex.get' is ambiguous: 2 declarations take 1 argument(s)", at="ex.get(meta.x)", code="ambiguous")
    compile_source(v1model(decls="extern Ex { Ex(); void get<T>(out T a); void get<T>(out T b); }",
                           ingress_locals="Ex() ex;", ingress="ex.get(b = meta.x);"), "ok.p4")
