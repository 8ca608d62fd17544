"""Helpers for tests of the front end's diagnostics: compile a bad program, check the first error.

A test gives the program text, a piece of the expected message, the unique piece of
source text the caret must point at and the diagnostic's code; ``assert_error`` checks
the message, the code, the exact file, line and column, and how the error renders
(``file:line:col: error [code]: ...``, the source line, a caret under the column).
Anything but a ``CompileError`` escapes and fails the test.
"""
from __future__ import annotations

import pytest

from dataplane.diagnostics import ERRORS
from dataplane.errors import CompileError, Diagnostic, source_window
from dataplane.lang.frontend import compile_source

FILE = "bad.p4"


def where(src: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of ``needle``, which must occur exactly once in ``src``."""
    assert src.count(needle) == 1, f"{needle!r} occurs {src.count(needle)} times"
    before = src[:src.index(needle)]
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def diagnostics(src: str) -> list[Diagnostic]:
    """Compile ``src``, which must fail with a CompileError, and check how the error renders."""
    with pytest.raises(CompileError) as info:
        compile_source(src, FILE)
    err = info.value
    first = err.diagnostics[0]
    assert first.severity == "error" and first.code in ERRORS, first.code
    head, line, caret = str(err).split("\n")[:3]
    assert head == f"{FILE}:{first.span.line}:{first.span.col}: error [{first.code}]: {first.message}"
    shown, col = source_window(src.split("\n")[first.span.line - 1], first.span.col)
    assert line == shown and caret.index("^") == col - 1
    return err.diagnostics


def assert_error(src: str, message: str, at: str, *, code: str) -> Diagnostic:
    """The first diagnostic contains ``message``, points at the text ``at`` and has the
    catalogue code ``code`` (``dataplane.diagnostics``)."""
    d = diagnostics(src)[0]
    assert message in d.message, d.message
    assert d.code == code, f"code {d.code!r}, expected {code!r}"
    assert (d.span.file, d.span.line, d.span.col) == (FILE, *where(src, at))
    return d
