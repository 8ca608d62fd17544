"""Sizes the front end refuses to compute with, and why.

p4c stops at 2048 bits (its ``maximumWidthSupported``) for ``bit<W>``/``int<W>`` types,
width-prefixed literals, constant shifts, slices and concatenations. We use the same
limit: a wider value is almost always a typo, and folding ``1 << 903012108`` or laying
out a ``bit<12301923123132>`` would exhaust memory instead of reporting the mistake.
"""
from __future__ import annotations

MAX_WIDTH = 2048


def too_wide(subject: str) -> str:
    """The message for ``subject`` (a type, a shift amount, a slice bound) over ``MAX_WIDTH``."""
    return f"{subject} is too large: widths are limited to {MAX_WIDTH} bits"
