"""Rules on declarations (dataplane/lang/check/decls.py)."""
from __future__ import annotations

import pytest

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model

CORE = """#include <core.p4>
{body}
control proto();
package top(proto p);
top(c()) main;
"""


def core(body: str) -> str:
    """A core.p4 program with ``body`` and an empty control c as its package's block."""
    return CORE.format(body=body + "\ncontrol c() { apply { } }")


@pytest.mark.parametrize("body, message, at, code", [
    ("void f<t, t>(in t a) { }", "type parameter 't' is declared twice", "void f<t, t>", "duplicate"),
    ("void f<t>(inout error t) { }", "parameter 't' has the name of a type parameter", "inout error t",
     "invalid-declaration"),
    ("control q<p>(inout bit<32> x)(bit<32> p) { apply { } }", "parameter 'p' has the name of a type parameter",
     "bit<32> p)", "invalid-declaration"),
])
def test_type_parameter_names(body, message, at, code):
    """Type parameters are distinct and parameters do not reuse their names."""
    assert_error(core(body), message, at=at, code=code)


def test_out_and_optional_parameters_have_no_default():
    """An out parameter is written, never read, so a default means nothing."""
    assert_error(core("extern void f(out bit<32> x = 0);"), "parameter 'x' is 'out' and cannot have a default value",
                 at="out bit<32> x = 0", code="invalid-type")
    assert_error(core("extern void f(@optional bit<32> y = 0);"),
                 "parameter 'y' is @optional and cannot also have a default value", at="@optional bit<32> y = 0",
                 code="invalid-declaration")


def test_default_value_must_be_a_compile_time_constant():
    """A call is evaluated at run time; a default value is fixed at compile time."""
    src = core("bit<1> h(in bit<1> a) { return a; }\nbit<1> f(in bit<1> a = h(1), in bit<1> b) { return b; }")
    assert_error(src, "the default value of parameter 'a' must be a compile-time constant", at="h(1), in",
                 code="not-constant")


def test_extern_constructor_and_duplicate_methods():
    """A constructor returns nothing; the same method with the same parameters cannot be declared twice."""
    assert_error(core("extern X { void X(); }"), "constructor 'X' of extern 'X' cannot have a return type", at="void X();",
                 code="invalid-type")
    assert_error(core("extern E { E(); void f(bit<8> a); void f(bit<8> a); }"),
                 "'f' is declared twice in extern 'E' with the same parameters", at="void f(bit<8> a); }",
                 code="duplicate")


def test_method_cannot_return_int():
    """int has no run-time representation."""
    assert_error(core("extern E { E(); int f(); }"), "a method cannot return int", at="int f();", code="invalid-type")


@pytest.mark.parametrize("base", ["varbit<8>", "error", "h_t"])
def test_type_applies_only_to_base_types(base):
    """`type` renames bit<W>, int<W>, bool or another `type`; typedef names anything."""
    src = v1model(decls=f"type {base} X_t;")
    assert_error(src, f"'type' applies only to bit<W>, int<W>, bool or another 'type', not {base} ('X_t')",
                 at=f"type {base} X_t;", code="invalid-type")
    compile_source(v1model(decls=f"typedef {base} X_t;\ntype bit<8> B_t;\ntype B_t BB_t;\ntype bool F_t;"), "ok.p4")


def test_tuple_cannot_hold_strings():
    """Tuples hold values; a string is only a literal."""
    assert_error(core("extern E { E(tuple<string> x); }"), "a tuple cannot hold a value of type string",
                 at="tuple<string>", code="invalid-type")


def test_generic_header_union_cannot_hold_a_tuple():
    """Whatever T is, a tuple<T, T> is no header."""
    assert_error(core("header_union U<T> { tuple<T, T> t; }"), "header_union field 't' cannot have a tuple or stack type",
                 at="tuple<T, T> t;", code="invalid-type")


def test_control_cannot_refer_to_itself():
    """c names itself: an instance of c inside c, or `c<...>` as a type there."""
    assert_error(CORE.format(body="control c() { c() inner; apply { inner.apply(); } }"),
                 "'c' is used inside its own declaration", at="c() inner;", code="recursion")
    src = CORE.format(body="struct S<T> { }\nextern E { E(list<S<bit<32>>> data); }\n"
                           "control c() { E((list<c<bit<32>>>) { }) e; apply { } }")
    assert_error(src, "'c' is used inside its own declaration", at="c<bit<32>>>", code="recursion")


def test_function_cannot_call_itself():
    """P4 has no recursion."""
    assert_error(core("void f() { f(); }"), "function 'f' calls itself; P4 has no recursion", at="f(); }",
                 code="recursion")


def test_function_named_like_a_control_is_a_redeclaration():
    """Top-level names share one namespace."""
    assert_error(core("control foo(in bit<8> x) { apply { } }\nbool foo() { return true; }"),
                 "'foo' is declared again: it already names control foo", at="bool foo()", code="duplicate")


def test_main_names_only_the_package_instance():
    """An extern type called main, or main instantiating an extern, is refused."""
    assert_error("#include <core.p4>\nextern main { }\n", "'main' is reserved for the package instance", at="extern main",
                 code="reserved")
    assert_error("#include <core.p4>\nextern X { X(); }\nX() main;\n", "'main' must be an instance of a package, not of X",
                 at="X() main;", code="instantiation")


def test_annotation_bodies_p4c_reads():
    """@name and @deprecated take strings; a structured annotation's name is used once; @pkginfo has pairs."""
    assert_error(core("@name(4) void fn() { }"), "@name needs a string, not 4", at="@name(4)", code="annotation")
    assert_error(core('@deprecated("a" | "b") void fn() { }'), "@deprecated needs a string", at="@deprecated",
                 code="annotation")
    assert_error(core("@dup[]\n@dup[]\ncontrol d() { apply { } }"), "@dup is given twice",
                 at="@dup[]\ncontrol", code="duplicate")
    assert_error(core("@pkginfo\nconst bit<32> x = 0;"), "@pkginfo needs key=value pairs", at="@pkginfo",
                 code="annotation")
    compile_source(core('@name("a \\" b") @deprecated("old") @pkginfo(name="x") const bit<8> k = 1;'), "ok.p4")


@pytest.mark.parametrize("body, message, at", [
    ("@a[x = { 2, 3 }]", "@a: illegal type for a structured annotation value (a list)", "@a"),
    ("@a[4 < H]", "'H' is a type", "@a"),
    ("@a[k = nope]", "'nope' is nothing declared", "@a"),
    ("@a[t == t]", "'t' is an extern instance", "@a"),
])
def test_structured_annotation_values_are_constants(body, message, at):
    """p4c type-checks structured annotation values: ints, strings or bools, names of constants
    only (structured-annotation-e2.p4, type-in-expr.p4, issue3363.p4)."""
    src = core(f"header H {{ bit<8> f; }}\nextern e {{ e(); }}\ne() t;\n{body} const bit<8> z = 1;")
    assert_error(src, message, at=at, code="annotation")


def test_structured_annotation_values_that_are_constants_pass():
    """Literals of every kind, operators on them, strings with braces or names inside, keys of
    pairs and declared constants are all fine."""
    compile_source(core('const bit<8> K = 3;\n@a[x = 1 + K, y = "{H} t", z = true, w = 8w3 == 0x3]\n'
                        '@b["s", 4, false, K]\nconst bit<8> z = 1;'), "ok.p4")


def test_match_annotation_names_a_match_kind():
    """A value_set struct's field matches with a declared match_kind."""
    src = core("struct pvs_t { @match(ternary) bit<32> a; @match(1+1) bit<16> b; }")
    assert_error(src, "@match needs a match_kind", at="@match(1+1)", code="annotation")


def test_parameter_of_a_declared_control_type():
    """A constructor parameter takes a control type (prototype), not a declared control."""
    src = core("control X();\ncontrol A() { apply { } }\ncontrol B()(X x) { apply { } }\ncontrol C()(A a) { apply { } }")
    assert_error(src, "parameter 'a' cannot have the type of control 'A', which is a declaration", at="A a)",
                 code="invalid-type")


def test_type_arguments_cannot_contain_their_own_generic():
    """E<E<bit<32>>> is refused, and a parser is no struct's type argument."""
    src = core("extern E<T> { E(); }\nE<E<bit<32>>>() e;")
    assert_error(src, "'E' cannot have itself as a type argument", at="E<E<bit<32>>>", code="invalid-type")
    src = core("parser p<t>(in t a);\nstruct s<t> { t f; }\nconst s<p<bit>> v = { f = 0 };")
    assert_error(src, "parser 'p' cannot be a type argument of 's'", at="s<p<bit>> v", code="invalid-type")


def test_tuple_cannot_hold_packages_or_externs():
    """Tuples hold values; packages and extern instances are not values."""
    assert_error(core("package f();\npackage g(tuple<f, f> b);"), "a tuple cannot hold package f", at="tuple<f, f>",
                 code="invalid-type")
    assert_error(core("extern ct { void go(); }\nvoid h(tuple<ct> t) { }"), "a tuple cannot hold extern ct",
                 at="tuple<ct>", code="invalid-type")


def test_length_annotation_names_an_earlier_field():
    """@length on a varbit resolves its names among the fields before it (and constants, and the
    types of casts): a field declared after it is not found (spec-ex32_e.p4)."""
    after = core("header Hdr {\n  @length(size2) varbit<256> data2;\n  bit<32> size2;\n}")
    assert_error(after, "@length: 'size2' is not declared (nor a field before 'data2')", at="@length",
                 code="annotation")
    compile_source(core("const bit<32> EXTRA = 8;\n"
                        "header Hdr {\n  bit<8> len;\n  @length((bit<32>)len * 8 + EXTRA) varbit<256> data;\n}"),
                   "ok.p4")
