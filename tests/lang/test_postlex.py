"""Tests for dataplane.lang.postlex: the token pass that marks type names, type-argument
brackets and right shifts before the LALR parser sees the tokens."""
from __future__ import annotations

import pytest
from lark import Lark, Token

from dataplane.lang.postlex import P4PostLex, collect_type_names, collect_type_params, retype
from dataplane.resources import data_dir


@pytest.fixture(scope="module")
def lexer() -> Lark:
    """lark's lexer for the P4 grammar, without the token pass."""
    return Lark((data_dir("grammar") / "p4.lark").read_text(), parser="lalr", lexer="basic")


@pytest.fixture
def raw(lexer):
    def lex(src: str) -> list[Token]:
        return list(lexer.lex(src))
    return lex


@pytest.fixture
def kinds(raw):
    """(type, text) of each token after the pass; ``only`` keeps tokens whose text is listed."""
    def run(src: str, known=(), only: str | None = None) -> list[tuple[str, str]]:
        out = [(t.type, str(t)) for t in P4PostLex(known).process(iter(raw(src)))]
        return [p for p in out if only is None or p[1] in only.split()]
    return run


# --- collecting type names ------------------------------------------------------------------

def test_every_type_declaring_construct_contributes_its_name(raw):
    """header, struct, header_union, enum (plain and serializable), typedef, type, extern object,
    parser, control and package declare type names."""
    src = ("header H {} struct S {} header_union U {} enum E { A } enum bit<8> SE { B = 1 } "
           "typedef bit<8> TD; type bit<8> NT; extern X { X(); } extern Y<T> { Y(); } "
           "parser P(); control C(); package K();")
    assert collect_type_names(raw(src)) == {"H", "S", "U", "E", "SE", "TD", "NT", "X", "Y", "P", "C", "K"}


def test_extern_function_names_and_known_types(raw):
    """An extern function declares no type; names passed as known are kept."""
    assert collect_type_names(raw("extern void f(in bit<8> x);"), known={"packet_in"}) == {"packet_in"}


def test_a_variable_named_type_declares_nothing(raw):
    """`type = x;` and `type.f = x;` use a variable called type; they declare no type."""
    assert collect_type_names(raw("control C() { apply { type = x; type.f = y; type[0] = z; } }")) == {"C"}


def test_generic_parameters_are_not_program_wide_type_names(raw):
    """`extern void f<T>(in T x);` does not make T a type for the rest of the program."""
    assert collect_type_names(raw("extern void f<T>(in T x); extern E<H> { E(); }")) == {"E"}


# --- generic parameter scopes -------------------------------------------------------------------

def test_generic_scope_runs_from_the_return_type_to_the_semicolon(raw):
    """In `T lookahead<T>();` the scope starts at the return type and ends after the `;`."""
    toks = raw("const bit<8> a = 1; T lookahead<T>(); bit<8> b;")
    ((start, end, names),) = collect_type_params(toks)
    assert names == {"T"}
    assert [str(t) for t in toks[start:end]] == ["T", "lookahead", "<", "T", ">", "(", ")", ";"]


def test_generic_scope_of_a_body_ends_at_its_closing_brace(raw):
    """A generic extern or function is in scope through its `{ ... }` body, nested scopes included."""
    toks = raw("extern R<T> { R(); void m<U>(in T t, in U u); } T f<T>(in T x) { return x; } U z;")
    scopes = collect_type_params(toks)
    spans = [(" ".join(str(t) for t in toks[s:e]), sorted(n)) for s, e, n in scopes]
    assert spans == [
        ("extern R < T > { R ( ) ; void m < U > ( in T t , in U u ) ; }", ["T"]),
        ("void m < U > ( in T t , in U u ) ;", ["U"]),
        ("T f < T > ( in T x ) { return x ; }", ["T"]),
    ]


def test_generic_parser_control_and_package_prototypes_open_scopes(raw):
    """`parser P<H>(...);`, `control C<H>(...);` and `package K<H, M>(...);` scope their parameters."""
    scopes = collect_type_params(raw("parser P<H>(out H h); control C<H>(inout H h); package K<H, M>(P<H> p);"))
    assert [sorted(n) for _, _, n in scopes] == [["H"], ["H"], ["H", "M"]]


def test_a_generic_call_opens_no_scope(raw):
    """`f<T>(x);`, `y = f<T>(x);` and `a.m<T>(x);` are calls, not declarations."""
    assert collect_type_params(raw("control C() { apply { f<T>(x); y = f<T>(x); a.m<T>(x); } }")) == []


def test_scoped_parameters_are_types_only_inside_their_scope(kinds):
    """Inside its declaration T is a TYPE_IDENTIFIER; after it, T is an ordinary name again."""
    out = kinds("extern void f<T>(in T x); const bit<8> T = 1;", only="T")
    assert out == [("TYPE_IDENTIFIER", "T"), ("TYPE_IDENTIFIER", "T"), ("IDENTIFIER", "T")]


# --- retyping -----------------------------------------------------------------------------------

def test_declared_type_names_become_type_identifiers_everywhere(kinds):
    """Once declared, a type name is a TYPE_IDENTIFIER wherever it appears; other names are not."""
    out = kinds("header h_t { bit<8> f; } control C(inout h_t h) { apply { h_t x; } }", only="h_t h x")
    assert out == [("TYPE_IDENTIFIER", "h_t"), ("TYPE_IDENTIFIER", "h_t"), ("IDENTIFIER", "h"),
                   ("TYPE_IDENTIFIER", "h_t"), ("IDENTIFIER", "x")]


@pytest.mark.parametrize("src", ["bit<8>", "int<8>", "varbit<8>", "tuple<bool>"])
def test_angle_after_a_type_keyword_opens_type_arguments(kinds, src):
    """`<` after bit, int, varbit or tuple always opens type arguments."""
    assert kinds(src, only="<") == [("L_ANGLE_ARGS", "<")]


@pytest.mark.parametrize("src, kind", [
    ("f<bit<8>>(x)", "L_ANGLE_ARGS"),
    ("f<h_t>(x)", "L_ANGLE_ARGS"),
    ("x < y", "LESSTHAN"),
    ("x < 1", "LESSTHAN"),
    ("x < h_t.A", "LESSTHAN"),
    ("x < (bit<8>)y", "LESSTHAN"),
])
def test_angle_after_a_name_opens_type_arguments_only_before_a_type(kinds, src, kind):
    """`name<` opens type arguments when a type follows, except `Type.member`; else it is less-than."""
    assert kinds(src, known={"h_t"}, only="<")[0] == (kind, "<")


def test_nested_type_arguments_close_with_two_gt_tokens(kinds):
    """In `register<bit<32>>(8) r;` the `>>` closes two lists: two MORETHAN, no SHR."""
    out = kinds("register<bit<32>>(8) r;", known={"register"}, only="< > >>")
    assert out == [("L_ANGLE_ARGS", "<"), ("L_ANGLE_ARGS", "<"), ("MORETHAN", ">"), ("MORETHAN", ">")]


def test_lookahead_with_nested_type_argument_is_no_shift(kinds):
    """`pk.lookahead<bit<8>>()` closes both argument lists before the call parentheses."""
    out = [k for k, _ in kinds("x = pk.lookahead<bit<8>>();")]
    assert out.count("L_ANGLE_ARGS") == 2 and out.count("MORETHAN") == 2 and "SHR" not in out


@pytest.mark.parametrize("src", ["a >> b", "a>>b", "a >>b"])
def test_touching_gt_gt_outside_type_arguments_is_a_shift(kinds, src):
    """Two `>` with nothing between them, outside type arguments, become one SHR token."""
    assert kinds(src, only=">> >") == [("SHR", ">>")]


@pytest.mark.parametrize("src", ["a > > b", "a >\n> b"])
def test_separated_gt_gt_stays_two_greater_than_tokens(kinds, src):
    """`> >` with a blank or a line break between them is no shift."""
    assert kinds(src, only=">") == [("MORETHAN", ">"), ("MORETHAN", ">")]


def test_touching_gt_ge_is_shift_assign(kinds):
    """`x >>= 2` lexes as `>` then `>=`, joined into SHR_ASSIGN; `> >=` is left alone."""
    assert kinds("x >>= 2;", only=">>= > >=") == [("SHR_ASSIGN", ">>=")]
    assert kinds("x > >= 2;", only="> >=") == [("MORETHAN", ">"), ("REL_OP", ">=")]


def test_shift_after_closed_type_arguments(kinds):
    """After `(bit<8>)x` the argument list is closed, so a following `>>` is a shift."""
    out = kinds("y = (bit<8>)x >> 2;", only="< > >>")
    assert out == [("L_ANGLE_ARGS", "<"), ("MORETHAN", ">"), ("SHR", ">>")]


def test_open_angle_does_not_leak_past_a_statement_end(kinds):
    """A `<` left open by a malformed `bit<8;` is forgotten at the `;`, so `a >> b` is still a shift."""
    assert kinds("bit<8; a >> b;", only=">>") == [("SHR", ">>")]


def test_retype_keeps_token_positions(raw):
    """Retyped and joined tokens keep the line and column of their first character."""
    out = list(retype(raw("h_t x;\ny = a >> b;"), {"h_t"}))
    assert [(t.type, t.line, t.column) for t in out if t.type in ("TYPE_IDENTIFIER", "SHR")] == [
        ("TYPE_IDENTIFIER", 1, 1), ("SHR", 2, 7)]


# --- scopes: declaration order and shadowing ------------------------------------------------------

def test_a_type_declared_later_does_not_reach_earlier_code(kinds):
    """core.p4's `extract<T>(out T hdr)` comes before a program's `header hdr`: there hdr is a name."""
    out = kinds("extern E { void extract<T>(out T hdr); } header hdr { bit<8> f; } hdr x;", only="hdr")
    assert out == [("IDENTIFIER", "hdr"), ("TYPE_IDENTIFIER", "hdr"), ("TYPE_IDENTIFIER", "hdr")]


def test_a_local_shadows_a_type_for_the_rest_of_its_block(kinds):
    """`bit<8> h;` inside a block makes `h` a value there, and only there."""
    src = "header h { bit<8> f; } control c() { apply { { bit<8> h; h = 1; } h y; } }"
    assert kinds(src, only="h") == [("TYPE_IDENTIFIER", "h"), ("IDENTIFIER", "h"), ("IDENTIFIER", "h"),
                                     ("TYPE_IDENTIFIER", "h")]


def test_a_parameter_shadows_a_type_in_the_body_after_its_list(kinds):
    """A parameter named like a type is a value through the body that follows its list (and the
    constructor parameters between), and a type again after that body."""
    src = "header p { bit<8> f; } control c(in bit<8> p)(bit<8> q) { apply { x = p; } } p z;"
    assert kinds(src, only="p") == [("TYPE_IDENTIFIER", "p"), ("IDENTIFIER", "p"), ("IDENTIFIER", "p"),
                                     ("TYPE_IDENTIFIER", "p")]


def test_a_parameter_of_a_prototype_shadows_nothing_after_it(kinds):
    """In `package K(P p); ... p q;` the parameter's scope ends with the prototype's list."""
    out = kinds("parser p(); package K(p p); p q;", only="p")
    assert out == [("TYPE_IDENTIFIER", "p"), ("TYPE_IDENTIFIER", "p"), ("IDENTIFIER", "p"), ("TYPE_IDENTIFIER", "p")]


@pytest.mark.parametrize("decl", ["action t() {}", "table t { key = {} }", "bit<8> t = 1;", "E() t;"])
def test_actions_tables_variables_and_instances_shadow_a_type(kinds, decl):
    """An action, table, variable or instance named like a type is a value in its block."""
    out = kinds(f"header t {{ bit<8> f; }} control c() {{ {decl} apply {{ t.apply(); }} }}", known={"E"}, only="t")
    assert out[0] == ("TYPE_IDENTIFIER", "t") and out[-1] == ("IDENTIFIER", "t")


def test_a_type_declaration_is_no_shadow(kinds):
    """`typedef bit<8> T;` ends like a variable declaration but declares a type."""
    assert kinds("typedef bit<8> T; T x;", only="T") == [("TYPE_IDENTIFIER", "T"), ("TYPE_IDENTIFIER", "T")]


def test_a_field_named_like_its_type_shadows_nothing(kinds):
    """`t1 t1;` in a struct declares a field, not an object: t1 stays a type after the struct."""
    out = kinds("header t1 { bit<8> x; } struct s { t1 t1; t1 t2; } t1 y;", only="t1")
    assert [k for k, _ in out] == ["TYPE_IDENTIFIER"] * 5   # the field name too: the grammar takes it
