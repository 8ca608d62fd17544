"""Instantiations and applying instances (dataplane/lang/check/instances.py)."""
from __future__ import annotations

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model

SUB = "control Sub(inout bit<8> v)(bit<8> k) { apply { v = k; } }"


def test_constructor_arguments_must_be_compile_time_constants():
    """`Sub(meta.x)` would fix a run-time value at build time."""
    src = v1model(decls=SUB, ingress_locals="Sub(meta.x) s;", ingress="s.apply(meta.y);")
    assert_error(src, "argument of 'Sub' must be a compile-time constant", at="meta.x) s;", code="not-constant")
    compile_source(v1model(decls=SUB, ingress_locals="Sub(8w3) s;", ingress="s.apply(meta.y);"), "ok.p4")


def test_extern_constructor_arguments_must_be_compile_time_constants():
    """The size of a register is fixed."""
    src = v1model(ingress_locals="register<bit<8>>((bit<32>)meta.z) r;")
    assert_error(src, "argument of the constructor of 'register' must be a compile-time constant",
                 at="(bit<32>)meta.z", code="not-constant")


def test_control_cannot_be_instantiated_at_the_top_level():
    """Only externs and the package are instantiated at the top level."""
    src = v1model(decls="control C() { apply { } }\nC() c;")
    assert_error(src, "control 'C' cannot be instantiated at the top level ('c')", at="C() c;", code="instantiation")


def test_control_cannot_be_applied_inside_an_action():
    """Actions run inside a table's match; applying a control there is not allowed."""
    src = v1model(decls="control C() { apply { } }", ingress_locals="C() c;\naction a() { c.apply(); }",
                  ingress="a();")
    assert_error(src, "control 'C' can only be applied in a control's apply block", at="c.apply();",
                 code="invalid-context")


def test_package_type_arguments_bind_its_blocks():
    """`Ingress<int>(...)` fixes IH = int; a parser with `out H` does not fit."""
    src = """#include <core.p4>
parser Parser<IH>(out IH parsedHeaders);
package Ingress<IH>(Parser<IH> p);
struct H {}
parser ing_parse(out H hdr) { state start { transition accept; } }
Ingress<int>(ing_parse()) main;
"""
    assert_error(src, "parameter 1 of 'ing_parse' has type H, but package 'Ingress' has IH = int",
                 at="ing_parse())", code="type-mismatch")


def test_pure_and_factory_extern_calls_are_constant_constructor_arguments():
    """p4c folds @pure extern functions and factories of constants into compile-time values."""
    decls = """enum Algo_t { A, B }
@pure extern Algo_t pick(bool x);
extern H<W> { H(Algo_t a); W get<D>(in D d); }"""
    compile_source(v1model(decls=decls, ingress_locals="H<bit<16>>(pick(true)) h;",
                           ingress="meta.w = h.get(meta.x);"), "ok.p4")
    impure = decls.replace("@pure ", "")
    assert_error(v1model(decls=impure, ingress_locals="H<bit<16>>(pick(true)) h;", ingress="meta.w = h.get(meta.x);"),
                 "argument of the constructor of 'H' must be a compile-time constant", at="pick(true)) h;",
                 code="not-constant")


def test_only_extern_instances_take_an_initializer():
    """`= { ... }` implements an extern's abstract methods; a control has none."""
    src = v1model(decls="control C() { apply { } }", ingress_locals="C() c = { };")
    assert_error(src, "'c': only extern instances take an initializer ({ ... }), not control 'C'", at="C() c = { };",
                 code="abstract-method")


def test_extern_with_abstract_methods_is_not_built_by_a_constructor_call():
    """Its abstract methods need an implementation, which only a declaration's initializer gives."""
    src = "#include <core.p4>\nextern g { g(); abstract void h(); }\npackage p(g a);\np(g()) main;\n"
    assert_error(src, "extern 'g' has abstract methods, so a constructor call cannot create one", at="g()) main;",
                 code="abstract-method")


def test_package_type_variable_no_block_binds():
    """A default block generic in H leaves H open: the instance must give P<...>."""
    src = """#include <core.p4>
struct e_t { }
control nothing<H>(inout H hdr, inout e_t meta) { apply { } }
control C<H, M>(inout H hdr, inout M meta);
package P<H, M>(C<H, M> c = nothing<H>());
P() main;
"""
    assert_error(src, "could not infer type H of package 'P'", at="P() main;", code="type-inference")
    compile_source(src.replace("P() main;", "P<e_t, e_t>() main;"), "ok.p4")
