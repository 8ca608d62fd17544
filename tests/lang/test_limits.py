"""Widths the front end refuses (dataplane/lang/limits.py): located errors instead of exhausting memory."""
from __future__ import annotations

from dataplane.testing.diagnostics import assert_error
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
