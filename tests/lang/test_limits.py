"""Widths and constants the front end refuses (dataplane/lang/limits.py): located errors instead of
exhausting memory."""
from __future__ import annotations

import time

import pytest

from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_source
from dataplane.lang.limits import MAX_CONSTANT_BITS
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
