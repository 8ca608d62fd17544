"""Package instances (dataplane.lang.check.package): packages of packages, extern and value
arguments, defaults; the program's package flattens its blocks into slots named by path."""
from __future__ import annotations

import pytest

from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_source

PRELUDE = """
#include <core.p4>
struct h_t { bit<8> x; }
control StageT<H>(inout H h);
parser FirstT<H>(packet_in p, out H h);
control A(inout h_t h) { apply { h.x = 1; } }
control B(inout h_t h) { apply { h.x = 2; } }
parser F(packet_in p, out h_t h) { state start { transition accept; } }
extern Engine { Engine(); }
control Nop<H>(inout H h) { apply { } }
package Pipe<H>(FirstT<H> first, StageT<H> stage);
package Switch<H>(Pipe<H> ingress, Engine engine, Pipe<H> egress, bool fast, StageT<H> last = Nop<H>());
"""


def program(src: str):
    return compile_source(PRELUDE + src, "pkg.p4").program


def test_packages_of_packages_flatten_into_slots_named_by_path():
    """A pipeline constructed in place and one declared at the top level and named; an extern
    argument is a top-level instance named by its slot; a default fills the last slot."""
    p = program("Pipe(F(), B()) eg;\nSwitch(Pipe(F(), A()), Engine(), eg, true) main;\n")
    assert p.package.type_name == "Switch" and p.architecture == "Switch"
    assert p.package.blocks == (("ingress.first", "F"), ("ingress.stage", "A"), ("egress.first", "F"),
                                ("egress.stage", "B"), ("last", "Nop"))
    assert [(i.name, i.extern) for i in p.instances] == [("engine", "Engine")]


def test_named_arguments_reach_nested_packages():
    p = program("Switch(egress = Pipe(F(), B()), ingress = Pipe(F(), A()), engine = Engine(), fast = false) main;\n")
    assert p.package.blocks[:2] == (("ingress.first", "F"), ("ingress.stage", "A"))


@pytest.mark.parametrize("main, message", [
    ("Switch(Pipe(F(), A()), Engine(), A(), true) main;", "argument 'egress' of package 'Switch' must be a package"),
    ("Switch(Pipe(F(), A()), Engine(), nope, true) main;", "must be a package instance, got 'nope'"),
    ("Switch(Pipe(F(), A()), 5, Pipe(F(), B()), true) main;", "argument 'engine' of package 'Switch' must be a Engine"),
    ("Switch(Pipe(F(), A()), Engine(), Pipe(F(), B()), 8w1) main;", "argument 'fast' of package 'Switch'"),
    ("Switch(Pipe(F(), A()), Engine()) main;", "package 'Switch' takes 4 to 5 argument(s), got 2"),
])
def test_bad_package_arguments_are_located_errors(main, message):
    with pytest.raises(CompileError) as info:
        program(main + "\n")
    assert message in str(info.value) and "pkg.p4:" in str(info.value)


def test_a_package_inside_a_control_is_an_error():
    with pytest.raises(CompileError, match="a package \\('Pipe'\\) can only be instantiated at the top level"):
        program("control C(inout h_t h) { Pipe(F(), A()) p; apply { } }\nPipe(F(), A()) main;\n")


NESTED = """
#include <core.p4>
struct g_t { bit<8> y; }
parser ParserT<IH>(packet_in p, out IH h);
package Inner<T>(ParserT<T> prs);
package Outer<A, B>(Inner<B> inner);
parser HP(packet_in p, out h_t h) { state start { transition accept; } }
parser GP(packet_in p, out g_t h) { state start { transition accept; } }
"""


@pytest.mark.parametrize("inner, outer, ok", [
    ("Inner(HP())", "Outer<g_t, h_t>(ig)", True),
    ("Inner(HP())", "Outer<h_t, g_t>(ig)", False),     # B = g_t, but HP makes Inner's T h_t
    ("Inner(GP())", "Outer<h_t, g_t>(ig)", True),
    ("Inner(HP())", "Outer<_, tuple<>>(ig)", False),
])
def test_a_package_argument_binds_the_outer_type_arguments(inner, outer, ok):
    """p4c unifies a package instance argument's type (Inner<h_t>, from its parser) with the
    parameter's (Inner<B>): the type given for B must be what the inner blocks make T, though
    the names differ at each level (equate-type-package-and-package-with-incompatible-type.p4)."""
    src = "#include <core.p4>\nstruct h_t { bit<8> x; }\n" + NESTED + f"{inner} ig;\n{outer} main;\n"
    if ok:
        compile_source(src, "nested.p4")
    else:
        with pytest.raises(CompileError, match="package 'Outer' takes Inner<.*> here, but this Inner's blocks make "
                                               "its T h_t"):
            compile_source(src, "nested.p4")
