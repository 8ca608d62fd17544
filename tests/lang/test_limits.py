"""What the front end refuses to compute with (dataplane/lang/limits.py): located errors instead of
exhausting memory, recursing past Python's stack or running without end.

The ``CompileLimits`` tests put a program exactly on a limit (it compiles) and one step over
(a ``limit`` error at the first place past it), with small limits so the programs stay small;
the last ones use the defaults on the inputs that used to hang or crash."""
from __future__ import annotations

import time

import pytest

from dataplane.errors import CompileError
from dataplane.ir.node import walk
from dataplane.lang.frontend import compile_source
from dataplane.lang.limits import MAX_CONSTANT_BITS, CompileLimits
from dataplane.testing.diagnostics import FILE, assert_error, where
from dataplane.testing.skeleton import v1model_program as v1model


def test_huge_bit_width_is_rejected():
    """bit<12301923123132> is reported at its width, not laid out."""
    src = v1model(decls="const bit<12301923123132> big = 0;")
    assert_error(src, "bit<12301923123132> is too large: widths are limited to 2048 bits", at="12301923123132>",
                 code="too-wide")


def test_width_at_the_limit_is_accepted():
    """bit<2048> is still a type, and the constant keeps its width and value."""
    from dataplane.lang.frontend import compile_source
    program = compile_source(v1model(decls="const bit<2048> big = 1 << 2047;"), "ok.p4").program
    big = program.constants["big"]
    assert big.type.width == 2048 and big.value.value == 1 << 2047


def test_huge_constant_shift_is_rejected():
    """Folding 1985245330 << 903012108 would build a 100-MB integer."""
    src = v1model(ingress="meta.w = 1985245330 << 903012108;")
    assert_error(src, "shift amount 903012108 is too large", at="1985245330 <<", code="too-wide")


def test_huge_literal_width_is_rejected():
    """A width-prefixed literal over the limit is reported where it is written."""
    src = v1model(ingress="meta.x = (bit<8>)5000w1;")
    assert_error(src, "the width 5000 of this literal is too large", at="5000w1", code="too-wide")


def test_huge_slice_bound_is_rejected():
    """A slice of an untyped constant takes its width from the bound."""
    src = v1model(ingress="meta.x = (bit<8>)(5[9000:0]);")
    assert_error(src, "slice bound 9000 is too large", at="9000", code="too-wide")


def test_negative_constant_shift_is_an_error_not_a_crash():
    """`1 << -1` is reported (folding it used to raise ValueError)."""
    src = v1model(ingress="meta.x = 1 << -1;")
    assert_error(src, "a shift amount must be non-negative", at="-1;", code="out-of-range")


# ---- compile-time integers -------------------------------------------------------------------------

@pytest.mark.parametrize("literal", [str((1 << MAX_CONSTANT_BITS) - 1), hex((1 << MAX_CONSTANT_BITS) - 1)],
                         ids=["decimal", "hex"])
def test_a_literal_of_the_widest_constant_is_read(literal):
    """A literal needing exactly MAX_CONSTANT_BITS (4096) bits is a value, decimal (1234 digits) or hex."""
    compile_source(v1model(decls=f"const int big = {literal};"), FILE)


@pytest.mark.parametrize("literal", [str(1 << MAX_CONSTANT_BITS), hex(1 << MAX_CONSTANT_BITS), "9" * 400_000,
                                     "8w" + "1" * 400_000], ids=["decimal", "hex", "400000-digits", "width-prefixed"])
def test_a_literal_one_bit_wider_is_refused_before_it_is_converted(literal):
    """One bit more, or 400,000 digits (which Python would refuse to convert with a ValueError
    of its own), is a located error, found without building the number."""
    src = v1model(decls=f"const int big = {literal};")
    start = time.monotonic()
    with pytest.raises(CompileError) as info:
        compile_source(src, FILE)
    assert time.monotonic() - start < 5
    d = info.value.first
    assert d.code == "too-wide" and "compile-time integers are limited to 4096 bits" in d.message
    line, col = where(src, "big = ")
    assert (d.span.line, d.span.col) == (line, col + len("big = "))


def test_a_literal_width_of_any_length_is_refused():
    """``8...8w1`` with a width of 10,000 digits is a too-wide literal, not a crash."""
    src = v1model(ingress="meta.x = (bit<8>)" + "8" * 10_000 + "w1;")
    with pytest.raises(CompileError) as info:
        compile_source(src, FILE)
    d = info.value.first
    assert d.code == "too-wide" and "of this literal is too large: widths are limited to 2048 bits" in d.message
    line, col = where(src, "(bit<8>)8")
    assert (d.span.line, d.span.col) == (line, col + len("(bit<8>)"))


def test_folding_stops_at_the_widest_constant():
    """A fold may make a 4096-bit int (2**2048 * 2**2047); one bit more is refused where it is made,
    so a chain of squarings (c1 = c0 * c0, ...) stops at its first step over."""
    compile_source(v1model(decls="const int c = (1 << 2048) * (1 << 2047);"), FILE)
    src = v1model(decls="const int c = (1 << 2048) * (1 << 2048);")
    assert_error(src, "the value of this expression needs 4097 bits", at="(1 << 2048) *", code="too-wide")
    squares = "const int c0 = 1 << 2000;\n" + "".join(f"const int c{i} = c{i - 1} * c{i - 1};\n" for i in range(1, 40))
    assert_error(v1model(decls=squares), "needs 8001 bits", at="c1 * c1", code="too-wide")


# ---- CompileLimits ------------------------------------------------------------------------------

def limit_error(src: str, **limits):
    """The first diagnostic of compiling ``src`` under ``limits``, which must be a ``limit`` error."""
    with pytest.raises(CompileError) as info:
        compile_source(src, FILE, limits=CompileLimits(**limits))
    d = info.value.first
    assert d.code == "limit", info.value.render()
    return d


def at(src: str, needle: str, d) -> None:
    assert (d.span.line, d.span.col) == where(src, needle), (d.span, needle)


@pytest.mark.parametrize("field, value", [("nesting", 0), ("source_bytes", -1), ("seconds", 0), ("macro_depth", 1.5)])
def test_limits_are_positive(field, value):
    with pytest.raises(ValueError, match=field):
        CompileLimits(**{field: value})


def nested_ifs(k: int) -> str:
    return v1model(ingress="".join(f"if (meta.x == {i}) {{\n" for i in range(k)) + "meta.y = 1;" + "}\n" * k)


def test_statements_nested_to_the_limit_compile_and_one_deeper_do_not():
    """k nested ifs around ``meta.y = 1`` nest k + 3 deep (the innermost condition: the
    comparison, its member, its name); the error is at the first name past the limit."""
    compile_source(nested_ifs(5), FILE, limits=CompileLimits(nesting=8))
    d = limit_error(nested_ifs(5), nesting=7)
    assert "statements, expressions and types nest more than 7 levels deep" in d.message
    at(nested_ifs(5), "meta.x == 4", d)


@pytest.mark.parametrize("body, col", [
    ("meta.x = " + "meta.y + " * 5 + "1;", 10),                     # a + b + c: deep on the left, at the first meta
    ("meta.x = " + "(meta.y + " * 5 + "1" + ")" * 5 + ";", 51),     # deep on the right, at the innermost meta
    ("meta.x = " + "-" * 5 + "meta.y;", 15),                       # unary
    ("{" * 5 + "meta.y = 1;" + "}" * 5, 6),                         # blocks in blocks
], ids=["left", "right", "unary", "blocks"])
def test_expressions_and_blocks_nested_to_the_limit_compile_and_one_deeper_do_not(body, col):
    """Each of these nests 8 deep, whichever way it nests (the assignment 1, the operators or
    blocks 5, a member and its name 2), and goes past a limit of 7 at its innermost name."""
    src = v1model(ingress=body)
    compile_source(src, FILE, limits=CompileLimits(nesting=8))
    d = limit_error(src, nesting=7)
    assert (d.span.line, d.span.col) == (where(src, body)[0], col)


def test_types_written_inside_types_count_as_nesting():
    """``tuple<tuple<bit<8>>>`` in a local declaration: two tuples, the bit type and its width, 4 deep."""
    src = v1model(ingress_locals="tuple<tuple<bit<8>>> t;")
    compile_source(src, FILE, limits=CompileLimits(nesting=4))
    at(src, "8>>>", limit_error(src, nesting=3))


def test_struct_types_nested_through_their_names_are_bounded():
    """s0 { bit<8> } nests 1 deep, s1 { s0 } 2, ...: 5 struct types nest 5 deep; the refusal is at
    the declaration that goes past the limit (every walk of a value goes as deep)."""
    decls = "struct s0 { bit<8> f; }\n" + "".join(f"struct s{i} {{ s{i - 1} f; }}\n" for i in range(1, 5))
    src = v1model(decls=decls, ingress_locals="s4 v;", ingress="v.f.f.f.f.f = 1;")
    compile_source(src, FILE, limits=CompileLimits(nesting=8))
    d = limit_error(src.replace("v.f.f.f.f.f = 1;", ""), nesting=4)
    assert "types nest in one another more than 4 levels deep" in d.message
    at(src, "struct s4", d)


def test_types_that_hold_too_many_fields_are_refused_where_written():
    """``tuple<t, t>`` of ``tuple<t, t>`` ... doubles at each step: t4 holds 32 fields, the limit
    is 32; a stack of 6 headers of 3 fields holds 18, one stack more than a limit of 17. (The
    biggest type of v1model.p4 holds 16.)"""
    decls = "typedef tuple<bit<8>, bit<8>> t0;\n" + "".join(f"typedef tuple<t{i - 1}, t{i - 1}> t{i};\n"
                                                             for i in range(1, 5))
    src = v1model(decls=decls, ingress_locals="t4 v;")
    compile_source(src, FILE, limits=CompileLimits(type_fields=32))
    d = limit_error(src, type_fields=31)
    assert "holds 32 fields" in d.message
    at(src, "tuple<t3, t3> t4", d)
    stack = v1model(headers="h_t[6] hs;")
    compile_source(stack, FILE, limits=CompileLimits(type_fields=18))
    at(stack, "h_t[6]", limit_error(stack, type_fields=17))


def chain(kind: str, k: int) -> str:
    """``k`` controls (or parsers) each instantiating the one before, the last instantiated in the pipeline."""
    if kind == "control":
        decls = "control C0(inout bit<8> m) { apply { m = 1; } }\n" + "".join(
            f"control C{i}(inout bit<8> m) {{ C{i - 1}() c; apply {{ c.apply(m); }} }}\n" for i in range(1, k))
        return v1model(decls=decls, ingress_locals=f"C{k - 1}() top;", ingress="top.apply(meta.x);")
    decls = "parser Q0(packet_in p, inout bit<8> m) { state start { transition accept; } }\n" + "".join(
        f"parser Q{i}(packet_in p, inout bit<8> m) {{ Q{i - 1}() q; state start {{ q.apply(p, m); "
        "transition accept; } }\n" for i in range(1, k))
    return v1model(decls=decls, parser_locals=f"Q{k - 1}() top;",
                   parser="state start { top.apply(pkt, meta.x); transition accept; }")


@pytest.mark.parametrize("kind", ["control", "parser"])
def test_instances_nested_to_the_limit_inline_and_one_deeper_do_not(kind):
    """Each instance of a block holding instances is a level for the inliner: 4 blocks in a chain
    under the pipeline's own nest 5 deep; the refusal is at the instantiation that goes past."""
    compile_source(chain(kind, 4), FILE, limits=CompileLimits(nesting=5))
    d = limit_error(chain(kind, 4), nesting=4)
    assert f"{kind} instances nest in one another more than 4 levels deep" in d.message
    at(chain(kind, 4), "C3() top;" if kind == "control" else "Q3() top;", d)


def test_what_inlining_copies_is_bounded():
    """Every call of a sub-control copies its body: n calls of one whose body is s nodes copy n * s,
    at the limit fine, one node under it refused at the call that crossed it."""
    one = v1model(decls="control C(inout bit<8> m) { apply { m = m + 1; } }", ingress_locals="C() c;",
                  ingress="c.apply(meta.x);")
    body = compile_source(one, FILE, stop_after="check").program.controls["C"].body
    size = 1 + sum(1 for _ in walk(body))
    src = one.replace("c.apply(meta.x);", "c.apply(meta.x);\n" * 3)
    compile_source(src, FILE, limits=CompileLimits(inline_nodes=3 * size))
    d = limit_error(src, inline_nodes=3 * size - 1)
    assert "inlining sub-parsers and sub-controls copies more than" in d.message
    assert d.span.line == where(src, "c.apply(meta.x);\n" * 3)[0] + 2     # the third call


def test_a_syntax_tree_shown_before_the_checker_is_bounded_too():
    """``stop_after="parse"`` hands the syntax tree out unchecked (``--dump-after parse``): the same
    count bounds it there, at the same place the checker would stop."""
    compile_source(nested_ifs(5), FILE, stop_after="parse", limits=CompileLimits(nesting=8))
    with pytest.raises(CompileError) as info:
        compile_source(nested_ifs(5), FILE, stop_after="parse", limits=CompileLimits(nesting=7))
    at(nested_ifs(5), "meta.x == 4", info.value.first)


def test_a_program_at_the_nesting_limit_prints_back_from_a_deep_caller():
    """``to_p4`` recurses as deep as the tree nests: at the default limit (254 tuple types in one
    another, 256 levels with the bit type and its width) it still prints, called from 300 frames down."""
    src = v1model(ingress_locals="tuple<" * 254 + "bit<8>" + ">" * 254 + " t;")
    result = compile_source(src, FILE)

    def down(n: int) -> str:
        return result.to_p4() if n == 0 else down(n - 1)

    assert "tuple<" * 254 + "bit<8>" in down(300)


# ---- the defaults, on the inputs that used to crash or hang --------------------------------------------

@pytest.mark.parametrize("body", [
    "if (meta.x == 1) {\n" * 20_000 + "meta.y = 1;" + "}\n" * 20_000,
    "meta.x = " + "(" * 10_000 + "meta.y" + ")" * 10_000 + " + " + "meta.y + " * 10_000 + "1;",
    "meta.x = " + "-" * 10_000 + "meta.y;",
], ids=["ifs", "parentheses-and-sum", "unary"])
def test_deep_programs_get_a_limit_error_not_a_recursion_error(body):
    """20,000 nested ifs (a RecursionError, exit 3, before) stop past the 256th level."""
    with pytest.raises(CompileError) as info:
        compile_source(v1model(ingress=body), FILE)
    d = info.value.first
    assert d.code == "limit" and "more than 256 levels deep" in d.message


def test_an_inlining_bomb_stops_at_the_default_limit():
    """40 controls each applying the one before twice would copy the first 2**40 times."""
    decls = "control C0(inout bit<8> m) { apply { m = m + 1; } }\n" + "".join(
        f"control C{i}(inout bit<8> m) {{ C{i - 1}() a; apply {{ a.apply(m); a.apply(m); }} }}\n" for i in range(1, 40))
    start = time.monotonic()
    with pytest.raises(CompileError) as info:
        compile_source(v1model(decls=decls, ingress_locals="C39() top;", ingress="top.apply(meta.x);"), FILE)
    assert info.value.first.code == "limit" and time.monotonic() - start < 30


def test_a_type_bomb_stops_at_the_default_limit():
    """``tuple<t, t>`` 40 times over would hold 2**41 fields; refused at the first over 262,144."""
    decls = "typedef tuple<bit<8>, bit<8>> t0;\n" + "".join(f"typedef tuple<t{i - 1}, t{i - 1}> t{i};\n"
                                                             for i in range(1, 40))
    src = v1model(decls=decls)
    with pytest.raises(CompileError) as info:
        compile_source(src, FILE)
    at(src, "tuple<t17, t17> t18", info.value.first)


def test_a_program_nested_far_past_the_limit_stops_in_the_parser():
    """20,000 nested ifs with a syntax error after them: the parser stops where its stack holds
    more than the limit allows (a few hundred levels in), before it reaches the syntax error
    or the checker: a limit error, not a syntax error 40,000 lines on."""
    body = "if (meta.x == 1) {\n" * 20_000 + "meta.y = 1;" + "}\n" * 20_000 + "meta.y = ;\n"
    with pytest.raises(CompileError) as info:
        compile_source(v1model(ingress=body), FILE)
    (d,) = info.value.diagnostics
    assert d.code == "limit" and "more than 256 levels deep" in d.message
    assert 260 < d.span.line < 2_000


@pytest.mark.parametrize("flat", [2_000, 0])
def test_a_long_program_at_the_nesting_limit_is_not_stopped_by_the_parser(flat):
    """The parser looks at its depth every 4,096 tokens. A program that spends 12,000 of them
    inside 61 nested ifs (5 parser states a level, the most of any construct but else-if
    chains) at a limit of 64 (61 + 3) compiles; one if deeper gets the checker's own error at
    its first name past the limit, whether or not the parser looked in between."""
    def program(k: int) -> str:
        return v1model(ingress="".join(f"if (meta.x == {i}) {{\n" for i in range(k)) + "meta.y = 1;\n" * flat
                       + "}\n" * k)

    compile_source(program(61), FILE, limits=CompileLimits(nesting=64))
    d = limit_error(program(62), nesting=64)
    at(program(62), "meta.x == 61", d)
