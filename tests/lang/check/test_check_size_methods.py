"""``minSizeInBits()`` and its kin (``lang/check/size_methods.py``), folded as p4c folds them."""
from __future__ import annotations

import pytest

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model

DECLS = ("header v_t { bit<4> a; varbit<20> b; bit<5> c; }\n"
         "header_union u_t { h_t h; v_t v; }\n"
         "struct s_t { bit<3> a; bool b; }\n"
         "const bit<16> V_BYTES = v_t.minSizeInBytes();")


def folded(expr: str, **pieces) -> int:
    prog = compile_source(v1model(decls=DECLS, ingress=f"meta.z = (bit<32>)({expr});", **pieces), "ok.p4").program
    return prog.controls["IG"].body.stmts[0].rhs.value


@pytest.mark.parametrize("expr, value", [
    ("h_t.minSizeInBits()", 56), ("h_t.minSizeInBytes()", 7),
    ("v_t.minSizeInBits()", 9), ("v_t.minSizeInBytes()", 2),          # a varbit counts 0 at least
    ("v_t.maxSizeInBits()", 29), ("v_t.maxSizeInBytes()", 4),         # and its bound at most
    ("u_t.minSizeInBits()", 56), ("s_t.minSizeInBits()", 4),          # a union's widest member
    ("hdr.h.maxSizeInBytes()", 7), ("meta.w.minSizeInBits()", 16), ("V_BYTES", 2),
])
def test_size_methods_fold_on_a_type_name_and_on_a_value(expr, value):
    """p4c types the four methods on a type's name too (DASH's `encap_data_t.minSizeInBytes()`)
    and folds them to int constants: bytes round up, a varbit is 0 bits at least."""
    assert folded(expr) == value


def test_size_method_of_a_block_or_with_arguments_is_an_error():
    assert_error(v1model(ingress="meta.z = (bit<32>)IG.minSizeInBits();"), "this expression cannot be called",
                 at="IG.minSizeInBits()", code="not-callable")
    assert_error(v1model(ingress="meta.z = (bit<32>)h_t.minSizeInBits(1);"), "'minSizeInBits' takes no arguments",
                 at="h_t.minSizeInBits(1)", code="arity")
