"""The allreduce fixed-point quantiser (``net.apps.allreduce.quantise``/``dequantise``) against
an independent reference: Python's own ``round`` (round half to even, as ``rint``) on exact
fractions, so truncation, flooring or round-half-up in its place fails."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from dataplane.net.apps.allreduce import dequantise, make_scale, quantise


def _reference(x: np.ndarray, scale: float) -> list[int]:
    """round(x * scale) computed exactly: the float32 value and the scale as fractions."""
    return [round(Fraction(float(v)) * Fraction(scale)) for v in x]


def test_quantise_rounds_to_nearest_with_ties_to_even():
    """Values chosen so that trunc, floor, ceil and round-half-up each give a different answer."""
    x = np.array([0.3, 0.9, -0.9, 0.625, 0.875, -0.625, -0.875, 1.0, -1.2], dtype=np.float32)
    got = quantise(x, 4.0).tolist()
    assert got == [1, 4, -4, 2, 4, -2, -4, 4, -5]
    assert got == _reference(x, 4.0)


def test_quantise_matches_the_reference_at_the_scenario_scale():
    """Random data at the scale the scenario uses: every element equals the exact rounding, and
    no element is more than half a step from x * scale."""
    rng = np.random.default_rng(19)
    x = rng.uniform(-2.0, 2.0, 2000).astype(np.float32)
    scale = make_scale(4, 2.0)
    q = quantise(x, scale)
    assert q.dtype == np.int32
    assert q.tolist() == _reference(x, scale)
    exact = [Fraction(float(v)) * Fraction(scale) for v in x]
    assert max(abs(int(a) - e) for a, e in zip(q, exact)) <= Fraction(1, 2)


def test_dequantise_divides_by_the_scale_in_float32():
    """The inverse: q / scale, rounded once to float32."""
    q = np.array([1, -3, 7, 2**31 - 1], dtype=np.int32)
    scale = 3.0
    want = [np.float32(float(Fraction(int(v)) / Fraction(scale))) for v in q]
    got = dequantise(q, scale)
    assert got.dtype == np.float32 and got.tolist() == [float(w) for w in want]
