"""One exception root for the project, and source spans for messages.

Every user-facing error carries a stable code and, where it concerns a source
file, a span; a diagnostic prints as ``file:line:col: error [code]: message``
followed by the source line and a caret, the way compilers do. The codes and what
they mean are listed in ``dataplane.diagnostics``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from dataplane.records import record


@record(frozen=True, slots=True)
class Span:
    """A position in an original (not preprocessed) source file; lines and columns are 1-based."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NO_SPAN = Span("<unknown>", 0, 0)


@record(slots=True)
class Diagnostic:
    """One message about a program: an error or a warning at a span."""

    message: str
    span: Span = NO_SPAN
    severity: str = "error"
    code: str = ""
    source_line: str | None = None

    @property
    def label(self) -> str:
        """``error [code]``, or the bare severity for a diagnostic without a code."""
        return f"{self.severity} [{self.code}]" if self.code else self.severity

    def render(self) -> str:
        message = self.message if len(self.message) <= MESSAGE_WIDTH else self.message[:MESSAGE_WIDTH] + "..."
        head = f"{self.span}: {self.label}: {message}" if self.span.line else f"{self.label}: {message}"
        if self.source_line is None or not self.span.line:
            return head
        line, col = source_window(self.source_line.rstrip("\n").expandtabs(1), self.span.col)
        caret = " " * max(col - 1, 0) + "^"
        if self.span.end_line == self.span.line and self.span.end_col > self.span.col + 1:
            caret += "~" * min(self.span.end_col - self.span.col - 1, max(len(line) - col, 0))
        return f"{head}\n{line}\n{caret}"


SOURCE_WIDTH = 200
MESSAGE_WIDTH = 1000    # a message naming a type of thousands of fields shows its start
MAX_SHOWN = 100         # diagnostics a CompileError shows (p4c stops at 20 errors)


def source_window(line: str, col: int) -> tuple[str, int]:
    """The part of source ``line`` a message shows, and where ``col`` is in it: all of a line of
    up to ``SOURCE_WIDTH`` characters, else that many around the column between ``...``, so
    that an error on a line of megabytes (generated or hostile text) is not megabytes long."""
    if len(line) <= SOURCE_WIDTH:
        return line, col
    start = max(0, min(col - 1 - SOURCE_WIDTH // 2, len(line) - SOURCE_WIDTH))
    before = "..." if start else ""
    after = "..." if start + SOURCE_WIDTH < len(line) else ""
    return before + line[start:start + SOURCE_WIDTH] + after, col - start + len(before)


class DataplaneError(Exception):
    """Root of every error the project reports to users."""

    code = "error"


def shown(value: object, limit: int = 40) -> str:
    """``value`` quoted for a message: its ``repr``, cut to its first characters (and its length
    said) when longer than ``limit``; an int of more than 128 bits is named by its width. A
    400,000-digit number in a file then makes a one-line error, and never meets the interpreter's
    refusal to print an int of more than 4,300 digits."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"a {value.bit_length()}-bit number"
    text = repr(value)
    if len(text) <= limit:
        return text
    length = len(value) if isinstance(value, (str, bytes)) else len(text)
    return f"{text[:limit // 2]}... ({length} characters)"


class CompileError(DataplaneError):
    """A program failed to preprocess, parse or type-check; holds every diagnostic found."""

    code = "compile"

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__(self.render())

    def render(self) -> str:
        """Each diagnostic, up to ``MAX_SHOWN`` of them: a program with 20,000 unclosed ``#if``
        lines gets the first hundred errors and a count, not megabytes of messages."""
        text = "\n".join(d.render() for d in self.diagnostics[:MAX_SHOWN])
        if len(self.diagnostics) > MAX_SHOWN:
            text += f"\n... and {len(self.diagnostics) - MAX_SHOWN} more not shown"
        return text

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]


class InternalError(DataplaneError):
    """A bug in dataplane itself, never a fault of the user's program; the CLI reports it as a
    bug (with the Python frame it came from) and exits with status 3."""

    code = "internal"


@dataclass
class DiagnosticSink:
    """Collects diagnostics across a pass so several errors are reported together."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def error(self, message: str, span: Span, code: str) -> None:
        """Report an error; ``code`` is one of ``dataplane.diagnostics.ERRORS``."""
        self.diagnostics.append(Diagnostic(message, span, "error", code))

    def warning(self, message: str, span: Span, code: str) -> None:
        """Report a warning; ``code`` is one of ``dataplane.diagnostics.WARNINGS``."""
        self.diagnostics.append(Diagnostic(message, span, "warning", code))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)
