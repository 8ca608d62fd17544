"""Packages overloaded by their number of parameters (what the bundled pna.p4 declares PNA_NIC with).

An extension of P4_16 (which overloads functions, methods and constructors by arity, not
packages; p4c accepts non-generic overloaded packages): an instantiation picks the
declaration with as many parameters as it has arguments, and two declarations of one
package with the same number of parameters are an error.
"""
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
package Pipe<H>(FirstT<H> first, StageT<H> one);
package Pipe<H>(FirstT<H> first, StageT<H> one, StageT<H> two);
"""


def test_instantiation_picks_the_declaration_with_as_many_parameters_as_arguments():
    two = compile_source(PRELUDE + "Pipe(F(), A()) main;\n", "two.p4").program
    three = compile_source(PRELUDE + "Pipe(F(), A(), B()) main;\n", "three.p4").program
    assert two.package.blocks == (("first", "F"), ("one", "A"))
    assert three.package.blocks == (("first", "F"), ("one", "A"), ("two", "B"))
    assert two.package.type_name == three.package.type_name == "Pipe"


def test_the_chosen_declaration_checks_the_block_kinds():
    with pytest.raises(CompileError, match="argument 'one' of package 'Pipe' must be a control"):
        compile_source(PRELUDE + "Pipe(F(), F(), B()) main;\n", "kinds.p4")


def test_an_argument_count_no_declaration_has_lists_the_counts():
    with pytest.raises(CompileError, match=r"package 'Pipe' takes 2 or 3 argument\(s\), got 4"):
        compile_source(PRELUDE + "Pipe(F(), A(), B(), A()) main;\n", "four.p4")


def test_redeclaring_a_package_with_the_same_number_of_parameters_is_an_error():
    src = PRELUDE + "package Pipe<H>(StageT<H> a, StageT<H> b);\nPipe(F(), A()) main;\n"
    with pytest.raises(CompileError) as info:
        compile_source(src, "dup.p4")
    first = info.value.diagnostics[0]
    assert "package 'Pipe' is already declared with 2 parameter(s)" in first.message
    assert first.span.line == PRELUDE.count("\n") + 1
