"""Diagnostics of the front end for malformed and ill-typed programs.

Every test compiles a bad program and checks the first diagnostic's message (a
substring) and its exact file, line and column. ``pytest.raises(CompileError)`` lets
any other exception through, so a Python traceback escaping the front end fails the test.
Locations are given as the unique piece of source text the caret must point at.
"""
from __future__ import annotations

import pytest

from dataplane.control.switch import ControlPlaneError, Switch
from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import FILE, assert_error, diagnostics, where
from dataplane.testing.skeleton import v1model_program

v1model = v1model_program


# ---- types of expressions and assignments -------------------------------------------------------

def test_assignment_of_a_wider_value_is_a_type_mismatch():
    """bit<16> does not fit bit<8> without a cast; the caret is on the value."""
    src = v1model(ingress="meta.x = meta.w;")
    assert_error(src, "type mismatch in assignment to 'meta.x': expected bit<8>, got bit<16>", at="meta.w;",
                 code="type-mismatch")


def test_assignment_of_a_narrower_value_is_a_type_mismatch():
    """P4 never widens implicitly either: bit<8> into bit<16> needs a cast, as p4c says."""
    src = v1model(ingress="meta.w = meta.x;")
    assert_error(src, "type mismatch in assignment to 'meta.w': expected bit<16>, got bit<8>", at="meta.x;",
                 code="type-mismatch")


def test_assignment_of_a_narrower_value_with_a_cast_is_accepted():
    """The cast is what makes the same assignment legal; it zero-extends (0xAB -> 0x00AB)."""
    compile_source(v1model(ingress="meta.w = (bit<16>)meta.x;"), FILE)
    program = compile_source(v1model(ingress="meta.x = hdr.h.a; meta.w = (bit<16>)meta.x; hdr.h.b = meta.w;",
                                      parser="state start { pkt.extract(hdr.h); transition accept; }"), FILE).program
    [out] = Switch(program).send(0, bytes([0xAB, 0xFF, 0xFF, 1, 2, 3, 4]))
    assert out.data == bytes([0xAB, 0x00, 0xAB, 1, 2, 3, 4])


def test_binary_operator_on_different_widths_is_a_width_mismatch():
    """`+` never widens; the caret is on the whole operation."""
    src = v1model(ingress="meta.x = meta.x + meta.w;")
    assert_error(src, "width mismatch: operands of '+' have types bit<8> and bit<16>", at="meta.x + meta.w",
                 code="width-mismatch")


def test_binary_operator_on_different_signedness_is_a_type_mismatch():
    """bit<8> and int<8> have the same width but are different types."""
    src = v1model(ingress="meta.x = meta.x - meta.s;")
    assert_error(src, "type mismatch: operands of '-' have types bit<8> and int<8>", at="meta.x - meta.s",
                 code="type-mismatch")


def test_unknown_name_suggests_a_close_one():
    """A misspelt name is reported with a did-you-mean hint."""
    src = v1model(ingress="meta.x = mta.y;")
    assert_error(src, "unknown name 'mta'; did you mean 'meta'?", at="mta.y", code="unknown-name")


def test_unknown_type_is_reported_where_it_is_used():
    """Types must be declared before use: a forward reference is an unknown type."""
    src = v1model(decls="struct a_t { b_t f; }\nheader b_t { bit<8> x; }")
    assert_error(src, "unknown type 'b_t'", at="b_t f;", code="unknown-type")


def test_header_field_of_an_unknown_type():
    """A header whose field type is unknown is reported, not laid out (that used to raise TypeError)."""
    src = v1model(decls="header q_t { bit<8> a; r_t b; }\nheader r_t { bit<8> c; }", headers="h_t h; q_t q;")
    assert_error(src, "unknown type 'r_t'", at="r_t b;", code="unknown-type")


def test_unknown_field_suggests_a_close_one():
    """A missing struct field names the struct and suggests the nearest field."""
    src = v1model(ingress="meta.zz = 1;")
    assert_error(src, "struct 'meta_t' has no field 'zz'; did you mean 'z'?", at="meta.zz", code="unknown-member")


def test_if_condition_must_be_bool():
    """`if (bit<8>)` is an error, with a hint to compare instead."""
    src = v1model(ingress="if (meta.y) { meta.x = 1; }")
    assert_error(src, "an 'if' condition must be a bool, got bit<8> (write 'x == 1' to test a bit)", at="meta.y)",
                 code="type-mismatch")


def test_changing_sign_and_width_in_one_cast_is_rejected():
    """int<8> to bit<16> needs two casts."""
    src = v1model(ingress="meta.w = (bit<16>)meta.s;")
    assert_error(src, "cannot cast int<8> to bit<16>; change the sign and the width in two casts", at="(bit<16>)",
                 code="invalid-cast")


def test_shift_of_untyped_int_by_non_constant_is_rejected():
    """`1 << x` with a run-time x needs a width on the 1."""
    src = v1model(ingress="meta.z = 1 << meta.y;")
    assert_error(src, "cannot shift an untyped integer by a non-constant amount", at="1 << meta.y", code="operand-type")


def test_concatenation_with_untyped_int_is_rejected():
    """`++` needs both widths."""
    src = v1model(ingress="meta.w = meta.x ++ 1;")
    assert_error(src, "'++' needs operands of known width, got bit<8> and int", at="meta.x ++ 1", code="operand-type")


def test_complement_of_untyped_int_is_rejected():
    """`~1` has no width to complement in."""
    src = v1model(ingress="meta.x = ~1;")
    assert_error(src, "'~' needs a value of known width", at="~1", code="operand-type")


def test_slice_out_of_range():
    """A slice must lie inside the value's width."""
    src = v1model(ingress="meta.x = meta.w[16:9];")
    assert_error(src, "slice [16:9] is out of range for bit<16>", at="meta.w[16:9]", code="out-of-range")


def test_stack_index_out_of_range():
    """A constant index past the stack size is an error at the index."""
    src = v1model(headers="h_t[2] hs;", ingress="hdr.hs[2].a = 1;")
    assert_error(src, "index 2 is out of range for a stack of size 2", at="2].a", code="out-of-range")


def test_conditional_branches_of_different_widths():
    """`c ? bit<8> : bit<16>` is a width mismatch (this used to raise AttributeError)."""
    src = v1model(ingress="meta.x = meta.f ? meta.x : meta.w;")
    assert_error(src, "width mismatch: operands of '?:' have types bit<8> and bit<16>", at="meta.f ?",
                 code="width-mismatch")


def test_struct_initializer_cannot_become_a_bit_value():
    """`{ a = 1 }` assigned to bit<8> is a type mismatch (it used to be accepted silently)."""
    src = v1model(ingress="meta.x = { a = 1 };")
    assert_error(src, "expected bit<8>, got struct { int a; }", at="{ a = 1 }", code="type-mismatch")


def test_invalid_header_needs_a_header_type():
    """`{#}` is only a header or header_union value (it used to be accepted silently)."""
    src = v1model(ingress="meta.x = (bit<8>){#};")
    assert_error(src, "'{#}' needs a header or header_union type here, not bit<8>", at="{#}", code="invalid-type")


def test_duplicate_field_in_struct_initializer():
    """Each field may be given once in `{ f = e, ... }`."""
    src = v1model(decls="struct pair_t { bit<8> a; bit<16> b; }", ingress="pair_t p = { a = 1, a = 2, b = 3 };")
    assert_error(src, "field 'a' is given twice", at="a = 2", code="duplicate")


# ---- declarations ------------------------------------------------------------------------------

def test_duplicate_declaration_in_one_scope():
    """A second local with the same name is reported at the second declaration."""
    src = v1model(ingress="bit<8> v = 1;\nbit<16> v = 2;")
    assert_error(src, "'v' is already declared in this scope", at="bit<16> v", code="duplicate")


def test_generic_extern_needs_inferable_type_arguments():
    """`register(4) r;` cannot infer T."""
    src = v1model(ingress_locals="register(4) r;")
    assert_error(src, "cannot infer the type argument(s) T of extern 'register'", at="register(4)",
                 code="type-inference")


def test_instantiating_a_non_extern_type():
    """`bit<8>(4) r;` is reported (it used to raise AttributeError)."""
    src = v1model(ingress_locals="bit<8>(4) r;")
    assert_error(src, "'bit<8>' cannot be instantiated", at="bit<8>(4) r;", code="instantiation")


def test_missing_main_package_is_a_warning_and_running_it_an_error():
    """A program without `main` checks with a warning at its last declaration (p4c only warns
    too); loading it into a switch says there is nothing to run."""
    src = v1model(main=False)
    result = compile_source(src, FILE)
    (w,) = [w for w in result.warnings if w.code == "no-main"]
    assert "the program has no 'main' package instance" in w.message and w.severity == "warning"
    # as in p4c, the parsers and controls nothing instantiates are unused
    assert {w.message for w in result.warnings if w.code == "unused"} >= {"parser 'P' is unused", "control 'DP' is unused"}
    assert (w.span.line, w.span.col) == where(src, "control DP(")
    with pytest.raises(ControlPlaneError, match="has no 'main' package instance"):
        Switch(result.program)


def test_a_program_of_another_architecture_does_not_load():
    src = v1model(main=False) + "package top(Parser<headers_t, meta_t> p);\ntop(P()) main;\n"
    with pytest.raises(ControlPlaneError, match="instantiates package 'top'"):
        Switch(compile_source(src, FILE).program)


def test_unknown_block_in_package_suggests_a_declared_one():
    """A misspelt control in the package instantiation names the control."""
    src = v1model(main=False) + "V1Switch(P(), VC(), IG(), EG(), CC(), DPX()) main;\n"
    assert_error(src, "unknown parser or control 'DPX'; did you mean 'DP'?", at="DPX", code="unknown-name")


def test_package_blocks_in_the_wrong_order_give_one_error_per_block():
    """Swapped ComputeChecksum and Deparser: one message for each misplaced block."""
    src = v1model(main=False) + "V1Switch(P(), VC(), IG(), EG(), DP(), CC()) main;\n"
    ds = diagnostics(src)
    assert [(d.message, d.span.col) for d in ds] == [
        ("parameter 1 of 'DP' ('pkt') must be 'inout' as in 'ComputeChecksum'", where(src, "DP()")[1]),
        ("parameter 1 of 'CC' ('hdr') must be 'directionless' as in 'Deparser'", where(src, "CC())")[1])]


# ---- calls and l-values ------------------------------------------------------------------------

def test_action_called_with_wrong_argument_count():
    """The message gives the expected and actual counts; the caret is on the call."""
    src = v1model(ingress_locals="action a(bit<8> v) { meta.x = v; }", ingress="a(1, 2);")
    assert_error(src, "'a' expects 1 argument(s), got 2", at="a(1, 2)", code="arity")


def test_extern_method_called_with_wrong_argument_count():
    """`register.write` takes an index and a value."""
    src = v1model(ingress_locals="register<bit<8>>(4) r;", ingress="r.write(0);")
    assert_error(src, "'register.write' expects 2 argument(s), got 1", at="r.write(0)", code="arity")


def test_extern_function_called_with_wrong_argument_count():
    """Both overloads of mark_to_drop are listed."""
    src = v1model(ingress="mark_to_drop(sm, sm);")
    assert_error(src, "'mark_to_drop' expects 0 or 1 argument(s), got 2", at="mark_to_drop(sm, sm)", code="arity")


def test_assignment_to_an_in_parameter():
    """An `in` parameter is read-only."""
    src = v1model(ingress_locals="action a(in bit<8> v) { v = 1; }", ingress="a(meta.x);")
    assert_error(src, "cannot write to 'v': it is an 'in' parameter", at="v = 1", code="not-writable")


def test_in_parameter_passed_as_out_argument():
    """Passing an `in` parameter where `out` is expected says which parameter is out."""
    src = v1model(ingress_locals="action b(out bit<8> o) { o = 1; }\naction a(in bit<8> v) { b(v); }")
    assert_error(src, "argument 'o' of 'b' is 'out'; cannot write to 'v': it is an 'in' parameter", at="v); }",
                 code="not-writable")


def test_assignment_to_action_data_parameter():
    """Directionless action parameters come from the control plane and are read-only."""
    src = v1model(ingress_locals="action a(bit<8> v) { v = 1; }")
    assert_error(src, "cannot write to 'v': it is a read-only action parameter", at="v = 1", code="not-writable")


def test_assignment_to_a_constant_names_the_constant():
    """A constant is folded to its value, yet the error still names it."""
    src = v1model(decls="const bit<8> K = 1;", ingress="K = 2;")
    assert_error(src, "cannot write to 'K': it is a constant", at="K = 2", code="not-writable")


def test_action_called_from_a_parser():
    """Parsers cannot call actions."""
    src = v1model(parser="state start { NoAction(); transition accept; }")
    assert_error(src, "action 'NoAction' cannot be called from a parser", at="NoAction()", code="invalid-context")


def test_table_applied_inside_an_action():
    """Actions cannot apply tables."""
    locals_ = "table t { key = { meta.x: exact; } actions = { NoAction; } }\naction a() { t.apply(); }"
    src = v1model(ingress_locals=locals_)
    assert_error(src, "table 't' cannot be applied inside an action", at="t.apply()", code="invalid-context")


def test_return_with_value_in_an_action():
    """Actions return nothing."""
    src = v1model(ingress_locals="action a() { return 1; }")
    assert_error(src, "'return' with a value outside a function that returns one", at="return 1;",
                 code="invalid-context")


def test_function_that_can_end_without_return():
    """A non-void function must return on every path."""
    src = v1model(decls="bit<8> f(in bit<8> a) { if (a == 1) { return 2; } }")
    assert_error(src, "function 'f' does not return a value on every path", at="bit<8> f(", code="missing-return")


# ---- tables ----------------------------------------------------------------------------------

def test_unknown_match_kind():
    """Only declared match kinds are allowed."""
    src = v1model(ingress_locals="table t { key = { meta.x: fuzzy; } actions = { NoAction; } }")
    assert_error(src, "unknown match kind 'fuzzy'", at="meta.x: fuzzy", code="unknown-member")


def test_default_action_not_in_the_action_list():
    """default_action must be one of the table's actions."""
    src = v1model(ingress_locals="action a() {}\ntable t { key = { meta.x: exact; } actions = { NoAction; } "
                                 "default_action = a(); }")
    assert_error(src, "default action 'a' is not in the actions of table 't'", at="a(); }", code="table")


def test_entry_with_wrong_number_of_keys():
    """An entry needs one keyset per key."""
    src = v1model(ingress_locals="table t { key = { meta.x: exact; meta.y: exact; } actions = { NoAction; }\n"
                                 "const entries = { 1 : NoAction(); } }")
    assert_error(src, "entry has 1 key value(s), table 't' has 2 key(s)", at="1 : NoAction()", code="table-entry")


def test_mask_on_an_exact_key():
    """`&&&` needs a ternary or lpm key."""
    src = v1model(ingress_locals="table t { key = { meta.x: exact; } actions = { NoAction; }\n"
                                 "const entries = { 1 &&& 3 : NoAction(); } }")
    assert_error(src, "a mask '&&&' needs a ternary or lpm key, not exact", at="1 &&& 3", code="keyset")


def test_defaultonly_action_in_an_entry():
    """An @defaultonly action cannot be an entry's action."""
    src = v1model(ingress_locals="action d() {}\ntable t { key = { meta.x: exact; } actions = { @defaultonly d; }\n"
                                 "const entries = { 1 : d(); } }")
    assert_error(src, "action 'd' is @defaultonly and cannot be used in an entry", at="d(); }", code="table-entry")


# ---- parsers ---------------------------------------------------------------------------------

def test_exit_in_a_parser_is_rejected_by_name():
    """`exit` parses in a state but the checker says it has no place in a parser."""
    src = v1model(parser="state start { exit; transition accept; }")
    assert_error(src, "'exit' cannot be used in a parser", at="exit;", code="invalid-context")


def test_undeclared_type_in_a_declaration_is_an_unknown_type():
    """`foo_t v;` reports the unknown type, not a bare syntax error."""
    src = v1model(ingress="foo_t v;")
    assert_error(src, "unknown type 'foo_t'", at="foo_t v;", code="unknown-type")


def test_missing_semicolon_says_so():
    """A statement missing its ';' names the ';' as what was expected."""
    src = v1model(ingress="meta.x = 1 meta.x = 2;")
    assert_error(src, "syntax error: unexpected 'meta', expected ';'", at="meta.x = 2;", code="syntax")


def test_extract_into_a_non_header():
    """`extract` fills headers only (a bit<8> field used to be accepted)."""
    src = v1model(parser="state start { pkt.extract(meta.x); transition accept; }")
    assert_error(src, "'extract' needs a header, not bit<8>", at="meta.x);", code="invalid-type")


def test_emit_of_a_non_header_value():
    """`emit` takes headers, stacks, unions and structs of them, not a bit<8>."""
    src = v1model(main=False).replace("pkt.emit(hdr);", "pkt.emit(hdr.h.a);")
    assert_error(src, "'emit' needs a header, header stack, header_union or a struct of those, not bit<8>",
                 at="hdr.h.a);", code="invalid-type")


def test_missing_start_state():
    """A parser needs a `start` state; the error is at the parser."""
    src = v1model(parser="state begin { transition accept; }")
    assert_error(src, "parser 'P' has no 'start' state", at="parser P(", code="parser-graph")


def test_transition_to_unknown_state():
    """Transitions must name declared states (or accept/reject)."""
    src = v1model(parser="state start { transition parse_x; }")
    assert_error(src, "unknown parser state 'parse_x'", at="transition parse_x", code="unknown-state")


def test_select_case_with_wrong_number_of_values():
    """A select on two keys needs two-element keysets."""
    src = v1model(parser="state start { transition select(meta.x, meta.y) { 1 : accept; default : reject; } }")
    assert_error(src, "select case has 1 value(s) for 2 key(s)", at="1 : accept", code="keyset")


# ---- sub-parsers and sub-controls ---------------------------------------------------------------------

def test_control_applied_in_an_action():
    """A control can only be applied in an apply block, not inside an action."""
    src = v1model(decls="control S(inout bit<8> v) { apply { } }",
                  ingress_locals="S() s; action a() { s.apply(meta.x); }", ingress="a();")
    assert_error(src, "control 'S' can only be applied in a control's apply block", at="s.apply(meta.x)",
                 code="invalid-context")


def test_parser_instantiated_in_a_control():
    src = v1model(decls="parser Q(packet_in p) { state start { transition accept; } }", ingress_locals="Q() q;")
    assert_error(src, "a control cannot instantiate parser 'Q'", at="Q() q;", code="instantiation")


def test_control_applied_directly_in_a_parser():
    src = v1model(decls="control S(inout bit<8> v) { apply { } }",
                  parser="state start { S.apply(meta.x); transition accept; }")
    assert_error(src, "a parser cannot instantiate control 'S'", at="S.apply(meta.x)", code="instantiation")


def test_direct_invocation_of_a_control_with_constructor_parameters():
    src = v1model(decls="control S(inout bit<8> v)(bit<8> k) { apply { } }", ingress="S.apply(meta.x);")
    assert_error(src, "control 'S' has constructor parameters; instantiate it to apply it", at="S.apply(meta.x)",
                 code="instantiation")


def test_recursive_instantiation():
    """A control that instantiates itself would inline forever: an error where it does (as p4c's
    'Self-referencing types not supported'), whether or not the package uses it."""
    src = v1model(decls="control S(inout bit<8> v) { S() again; apply { again.apply(v); } }",
                  ingress_locals="S() s;", ingress="s.apply(meta.x);")
    assert_error(src, "'S' is used inside its own declaration", at="S() again;", code="recursion")


def test_sub_parser_call_inside_a_conditional():
    """p4c splits a state at a sub-parser call; one inside an if is not supported here."""
    src = v1model(decls="parser Q(packet_in p) { state start { transition accept; } }", parser_locals="Q() q;",
                  parser="state start { if (meta.x == 1) { q.apply(pkt); } transition accept; }")
    assert_error(src, "unsupported: a sub-parser call inside a conditional or block of a state", at="q.apply(pkt)",
                 code="unsupported")


def test_directionless_parameter_with_two_values():
    """A directionless apply parameter is a compile-time value: every apply must pass the same (p4c)."""
    src = v1model(decls="control S(bit<8> k, inout bit<8> v) { apply { v = k; } }", ingress_locals="S() s;",
                  ingress="s.apply(1, meta.x); s.apply(2, meta.y);")
    assert_error(src, "directionless parameter 'k' of 'S' must get the same value at every apply", at="2, meta.y",
                 code="sub-block")


def test_extern_parameter_of_control_type():
    """Extern constructors and methods cannot take a parser or control (p4c: 'parameter cannot have type')."""
    src = v1model(decls="control Proto(); extern Wrap { Wrap(Proto c); void run(); }")
    assert_error(src, "parameter 'c' of extern 'Wrap' cannot have type control Proto", at="Proto c)",
                 code="invalid-type")


# ---- syntax and preprocessing -------------------------------------------------------------------

def test_missing_semicolon_is_reported_at_the_next_token():
    """Without `;` the parser stops at the first token that cannot continue the statement."""
    src = v1model(ingress="meta.x = 1\n  meta.y = 2;")
    assert_error(src, "syntax error: unexpected 'meta'", at="meta.y", code="syntax")


def test_unexpected_token():
    """A doubled `=` is an unexpected token."""
    src = v1model(ingress="meta.x = = 1;")
    assert_error(src, "syntax error: unexpected '='", at="= 1;", code="syntax")


def test_unexpected_character():
    """A character outside P4's alphabet is reported by the lexer."""
    src = v1model(ingress="meta.x = 1 $ 2;")
    assert_error(src, "unexpected character '$'", at="$", code="syntax")


def test_unterminated_comment():
    """A `/*` without `*/` is reported where the comment starts."""
    src = "#include <core.p4>\nheader h_t { bit<8> a; }\n  /* never closed\n"
    d = diagnostics(src)[0]
    assert "unterminated comment" in d.message and (d.span.line, d.span.col) == (3, 3)


def test_missing_include_file():
    """An include that cannot be found is reported at the directive."""
    src = "#include <core.p4>\n#include \"missing.p4\"\n"
    d = diagnostics(src)[0]
    assert "cannot find include file 'missing.p4'" in d.message and (d.span.line, d.span.col) == (2, 1)


def test_several_errors_are_reported_together():
    """Type errors in different statements are all reported, in source order."""
    src = v1model(ingress="meta.x = meta.w;\nmeta.q = 1;\nif (meta.y) { }")
    got = [(d.message.split(":")[0], d.span.line, d.span.col) for d in diagnostics(src)]
    assert got == [("type mismatch in assignment to 'meta.x'", *where(src, "meta.w;")),
                   ("struct 'meta_t' has no field 'q'", *where(src, "meta.q")),
                   ("an 'if' condition must be a bool, got bit<8> (write 'x == 1' to test a bit)",
                    *where(src, "meta.y)"))]


# ---- loops ----------------------------------------------------------------------------------------

def test_break_outside_a_loop():
    src = v1model(ingress="if (meta.x == 1) { break; }")
    assert_error(src, "'break' can only be used inside a 'for' loop", "break;", code="invalid-context")


def test_continue_outside_a_loop():
    src = v1model(ingress="continue;")
    assert_error(src, "'continue' can only be used inside a 'for' loop", "continue;", code="invalid-context")


def test_for_in_over_a_scalar():
    src = v1model(ingress="for (bit<8> i in meta.x) { }")
    assert_error(src, "iterates over a range (a .. b), a header stack or a list, not bit<8>", "meta.x)",
                 code="invalid-type")


def test_for_in_with_a_variable_of_the_wrong_element_type():
    src = v1model(headers="h_t[2] hs;", ingress="for (bit<8> e in hdr.hs) { }")
    assert_error(src, "loop variable 'e' has type bit<8>, but the elements are h_t[2]", "hdr.hs)", code="type-mismatch")


def test_a_for_condition_must_be_bool():
    src = v1model(ingress="for (bit<8> i = 0; i; i = i + 1) { }")
    assert_error(src, "a 'for' condition", "i; i", code="type-mismatch")


# ---- generic structs --------------------------------------------------------------------------------

def test_a_generic_struct_needs_its_type_arguments():
    src = v1model(decls="struct g<T> { T v; }", ingress="g x;")
    assert_error(src, "struct 'g' is generic: give its type arguments, e.g. g<T>", "g x;", code="arity")


def test_a_generic_struct_takes_as_many_type_arguments_as_it_declares():
    src = v1model(decls="struct g<T> { T v; }", ingress="g<bit<8>, bool> x;")
    assert_error(src, "struct 'g' takes 1 type argument(s), got 2", "g<bit<8>, bool> x;", code="arity")


# ---- package arguments by name ------------------------------------------------------------------------

def test_package_arguments_may_be_named_in_any_order():
    src = v1model(main=False) + "V1Switch(ig = IG(), p = P(), vr = VC(), eg = EG(), ck = CC(), dep = DP()) main;\n"
    assert compile_source(src, FILE).program.package.blocks[0] == ("p", "P")


@pytest.mark.parametrize("args, message, at, code", [
    ("p = P(), VC(), IG(), EG(), CC(), DP()", "give every argument by name or none", "V1Switch(", "package"),
    ("p = P(), vr = VC(), ig = IG(), eg = EG(), ck = CC(), dx = DP()", "has no parameter 'dx'", "dx = DP()",
     "package"),
    ("p = P(), vr = VC(), ig = IG(), eg = EG(), ck = CC(), p = DP()", "'p' is given twice", "p = DP()", "duplicate"),
])
def test_bad_named_package_arguments(args, message, at, code):
    src = v1model(main=False) + f"V1Switch({args}) main;\n"
    assert_error(src, message, at, code=code)


# ---- instance initializers (abstract methods) ---------------------------------------------------------

ABSTRACT = """extern Hooked { Hooked(); void run(); abstract bit<8> pick(in bit<8> x); }
extern Plain { Plain(); }"""


def test_an_initializer_implements_the_abstract_methods():
    src = v1model(decls=ABSTRACT, ingress_locals="Hooked() h = { bit<8> pick(in bit<8> x) { return this.k(x); } "
                  "bit<8> k(in bit<8> x) { return x; } };")
    with pytest.raises(CompileError):   # k is no abstract method
        compile_source(src, FILE)
    src = v1model(decls=ABSTRACT, ingress_locals="Hooked() h = { bit<8> pick(in bit<8> x) { return x + 1; } };")
    (inst,) = compile_source(src, FILE).program.controls["IG"].instances
    assert [f.name for f in inst.methods] == ["pick"]


@pytest.mark.parametrize("locals_, message, at", [
    ("Hooked() h;", "instance 'h' must implement the abstract method(s) 'pick'", "Hooked() h;"),
    ("Hooked() h = { };", "instance 'h' does not implement the abstract method(s) 'pick'", "Hooked() h ="),
    ("Hooked() h = { bit<16> pick(in bit<8> x) { return 1; } };", "'pick' does not match the abstract method",
     "bit<16> pick"),
    ("Hooked() h = { bit<8> pick(in bit<8> x) { return 1; } void other() {} };",
     "'other' is not an abstract method of extern 'Hooked'", "void other"),
    ("Plain() p = { };", "'p' has an initializer, but Plain has no abstract methods", "Plain() p"),
])
def test_bad_initializers(locals_, message, at):
    assert_error(v1model(decls=ABSTRACT, ingress_locals=locals_), message, at, code="abstract-method")


def test_this_outside_an_initializer():
    assert_error(v1model(ingress="this.x = 1;"), "'this' can only be used in the methods of an instance's initializer",
                 "this.x", code="invalid-context")


@pytest.mark.parametrize("stmt, message, at, code", [
    ("t[meta.x] = 1;", "a tuple index must be a compile-time constant", "meta.x]", "not-constant"),
    ("meta.x = t[2];", "index 2 is out of range for tuple<bit<8>, bit<8>>", "2];", "out-of-range"),
    ("t[0] = 1;", "a tuple's element cannot be written on its own", "t[0] =", "not-writable"),
])
def test_bad_tuple_indexing(stmt, message, at, code):
    assert_error(v1model(ingress_locals="tuple<bit<8>, bit<8>> t = {1, 2};", ingress=stmt), message, at, code=code)


def test_a_dotted_action_names_the_top_level_one():
    """`.b()` is the top-level b: not the control's own b that the table lists (p4c: different actions)."""
    src = v1model(decls="action b() {}", ingress_locals="action b() {} table t { key = { meta.x: exact; } "
                  "actions = { b; } default_action = .b(); }")
    assert_error(src, ".b() and b refer to different actions", ".b();", code="table")
    ok = v1model(decls="action top() {}", ingress_locals="table t { key = { meta.x: exact; } actions = { .top; } "
                 "default_action = .top(); }")
    assert compile_source(ok, FILE).program.controls["IG"].tables["t"].default_action.action == "top"
