"""Deleting tokens from a valid program gives diagnostics, never a Python exception.

Every mutant either compiles or fails with a ``CompileError`` whose diagnostics all have a
location; anything else (a traceback out of the front end) fails the test. The examples
are derandomised, so a failure repeats; hypothesis prints the deleted tokens.
"""
from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_source
from dataplane.resources import builtin_program

_TOKEN = re.compile(r'\s+|//[^\n]*|/\*.*?\*/|"[^"]*"|\w+|&&&|\.\.|<<|>>|\+\+|\|[+-]\||[=!<>]=|&&|\|\||\S', re.S)


def _tokens(name: str) -> list[str]:
    return [m.group(0) for m in _TOKEN.finditer(builtin_program(name).read_text())]


PROGRAMS = {name: _tokens(name) for name in ("ipv4_router", "ecn")}


def _code_positions(tokens: list[str]) -> list[int]:
    return [i for i, t in enumerate(tokens) if not t.isspace() and not t.startswith("/")]


@st.composite
def mutants(draw):
    name = draw(st.sampled_from(sorted(PROGRAMS)))
    tokens = PROGRAMS[name]
    positions = _code_positions(tokens)
    drop = draw(st.sets(st.sampled_from(positions), min_size=1, max_size=3))
    return name, "".join(t for i, t in enumerate(tokens) if i not in drop), sorted(tokens[i] for i in drop)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_token_deletions_never_raise_anything_but_located_errors(mutant):
    """Delete 1-3 tokens of a built-in program: the front end reports, it does not crash."""
    name, text, dropped = mutant
    try:
        compile_source(text, f"{name}.p4")
    except CompileError as err:
        assert err.diagnostics, dropped
        assert all(d.span.line > 0 for d in err.diagnostics if d.severity == "error"), (dropped, str(err))
