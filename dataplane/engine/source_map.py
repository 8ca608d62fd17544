"""P4 source positions in the generated pipeline module, and back again.

The code generators end every line they emit for a P4 statement, parser state, table or
action with a comment naming its P4 position (``  # router.p4:58:9``), so the module reads
side by side with the program and a traceback through it (``linecache`` shows the generated
lines) shows the P4 line too. The module's first lines name the P4 files behind the short
names (``# P4 source router.p4: programs/router.p4``). ``line_map`` reads those comments
back into a map from generated line to P4 ``Span``; ``p4_location`` finds the P4 position of
the innermost generated frame of a running stack or a traceback, for error messages. The
comments cost nothing when the code runs; the map is built only when asked for.
"""
from __future__ import annotations

import os
import re
import sys
from types import FrameType, TracebackType

from dataplane.errors import NO_SPAN, Span

_COMMENT = re.compile(r"  # (\S+):(\d+):(\d+)$")
_HEADER = re.compile(r"# P4 source (\S+): (.+)$")
_PIECE = re.compile(r"^(<p4:.*)@(\d+)>$")

# Generated module file name (``<p4:NAME:HASH>``) -> its source; registered by the backend.
_SOURCES: dict[str, str] = {}
_MAPS: dict[str, dict[int, Span]] = {}


class Locator:
    """Makes the comments and trace labels for one generated module (short names per file)."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}     # short name -> the path as the front end gave it
        self._short: dict[str, str] = {}

    def short(self, path: str) -> str:
        """The file's name as comments show it: its base name, unless another file has it."""
        name = self._short.get(path)
        if name is None:
            name = os.path.basename(path) or path
            if self.files.get(name, path) != path:
                name = path.replace(" ", "_")
            self.files[name] = path
            self._short[path] = name
        return name

    def comment(self, span: Span | None) -> str:
        """``  # FILE:LINE:COL`` for a known span, else ''."""
        if span is None or span is NO_SPAN or span.line <= 0:
            return ""
        return f"  # {self.short(span.file)}:{span.line}:{span.col}"

    def label(self, span: Span | None) -> str:
        return trace_label(span)

    def header(self) -> list[str]:
        """The module's opening comment lines naming each P4 file behind a short name."""
        return [f"# P4 source {name}: {path}" for name, path in self.files.items()]


def trace_label(span: Span | None) -> str:
    """``FILE:LINE`` (the file's base name) as ``--trace`` shows a position, else ''."""
    if span is None or span is NO_SPAN or span.line <= 0:
        return ""
    return f"{os.path.basename(span.file)}:{span.line}"


def line_map(source: str) -> dict[int, Span]:
    """Generated module line (1-based) -> the P4 span its comment names."""
    files: dict[str, str] = {}
    out: dict[int, Span] = {}
    for number, line in enumerate(source.splitlines(), 1):
        m = _COMMENT.search(line)
        if m is not None:
            name, row, col = m.group(1), int(m.group(2)), int(m.group(3))
            out[number] = Span(files.get(name, name), row, col)
        elif line.startswith("# P4 source "):
            h = _HEADER.match(line)
            if h is not None:
                files[h.group(1)] = h.group(2)
    return out


def register(filename: str, source: str) -> None:
    """Remember the source of generated module ``filename`` for ``p4_location``."""
    _SOURCES[filename] = source


def source_span(filename: str, lineno: int) -> Span | None:
    """The P4 span of line ``lineno`` of generated file ``filename`` (or of one of its pieces)."""
    piece = _PIECE.match(filename)
    if piece is not None:
        filename, lineno = piece.group(1) + ">", lineno + int(piece.group(2))
    source = _SOURCES.get(filename)
    if source is None:
        return None
    lines = _MAPS.get(filename)
    if lines is None:
        lines = _MAPS[filename] = line_map(source)
    return lines.get(lineno)


def p4_location(where: FrameType | TracebackType | None = None) -> Span | None:
    """The P4 span of the innermost generated-code frame: of a traceback when given one
    (an exception's ``__traceback__``), else of the caller's stack."""
    if isinstance(where, TracebackType):
        found = None
        tb: TracebackType | None = where
        while tb is not None:
            span = _frame_span(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
            found = span if span is not None else found
            tb = tb.tb_next
        return found
    frame = where if where is not None else sys._getframe(1)
    while frame is not None:
        span = _frame_span(frame.f_code.co_filename, frame.f_lineno)
        if span is not None:
            return span
        frame = frame.f_back
    return None


def _frame_span(filename: str, lineno: int) -> Span | None:
    if not filename.startswith("<p4:"):
        return None
    return source_span(filename, lineno)
