"""Sizes the front end refuses to compute with, and why.

Whatever a program's text can make the front end do is bounded, so that a file (or a
P4Runtime client's device config) gets a located error instead of a hang, a
``RecursionError`` or memory exhausted by design. Each bound is an error with the code
``limit`` (``too-wide`` for widths), at the line where the program crosses it.

Widths: p4c stops at 2048 bits (its ``maximumWidthSupported``) for ``bit<W>``/``int<W>``
types, width-prefixed literals, constant shifts, slices and concatenations. We use the same
limit: a wider value is almost always a typo, and folding ``1 << 903012108`` or laying
out a ``bit<12301923123132>`` would exhaust memory instead of reporting the mistake.
Arbitrary-precision (``int``) constants stop at ``MAX_CONSTANT_BITS``, twice that: any
fold of two values that fit a type still fits (a product, ``1 << 2048``), while a chain
of squarings, each as long again as the last, stops at its first step over. Literals are
held to the same bound before Python converts them (it refuses decimal strings of more
than 4300 digits with a ``ValueError`` of its own).

The other limits are the fields of ``CompileLimits``; the API takes one (``compile_file``,
``compile_source``, ``preprocess``) so that a server can pass tighter ones, and
``dataplane compile --max-compile-time`` sets the time. The defaults, and why (the p4c
figures are the most any of the 1,227 programs of p4c's ``testdata/p4_16_samples`` that
this front end accepts reached, measured with these limits in place):

``source_bytes`` (16 MiB): all the text read for one program, the includes counted. p4c's
largest test program (``switch_p4_16.p4``) is 234 KiB and ``tools/gen_big_program.py``'s
10,000-header program 9.6 MiB; the front end reads about 250 KB/s, so 16 MiB is about a
minute of work and the most a program can make it hold in memory as text.

``expansion_bytes`` (16 MiB) and ``line_expansion_bytes`` (1 MiB): the text of the macro
bodies expansion puts in place (arguments substituted), at every level of a nested
expansion (what the expansion costs to make), for the whole program and for one line. A macro bomb (``#define A1 A0 A0`` ... ``A40``, 2**40
copies of ``x``) stops at the first line to cross them. p4c's programs expand at most 154
bytes on a line and 828 in all; the whole-program bound is the same as ``source_bytes``,
so the text the parser gets is at most twice what a program can be.

``macro_depth`` (64): macros expanding inside macros (bodies rescanned, arguments
expanded). C sets no bound; p4c's programs nest 2 deep; each level is a few Python frames
of the expander, and ``F(F(F(...)))`` 20,000 deep is generated text, not a program.

``nesting`` (256): how deep statements, expressions and types nest in one another, as the
checker descends into them (``if`` in ``if``, ``(`` in ``(``, the left side of ``a + b +
c``, ``tuple<`` in ``tuple<``), and how deep struct types (through their fields) and
parser or control instances (through their types) nest. p4c's programs reach 16 (4 for
instances, 5 for types), this repository's 12; C asks compilers for at least 127 nested
blocks and 63 nested parentheses. The passes recurse per level, so the front end runs
them with room for this many levels (``dataplane.lang.bounded``), where Python's default
of 1000 frames ran out at 160 nested ``if`` statements. A program far past the limit is
stopped by the parser already (``parser.STATES_PER_LEVEL``), without reading the rest.

``type_fields`` (262,144): the scalar fields of one type, those of nested types counted out
in full. A value of the type is laid out field by field (by the engine: every packet's
headers and metadata), so ``typedef tuple<t0, t0> t1;`` repeated 40 times (2**40 fields,
a few lines of text) is refused where it is written. p4c's programs reach 359;
``gen_big_program``'s 10,000 headers 50,000.

``inline_nodes`` (262,144): the IR nodes the inliner copies, every copy of a sub-parser's
or sub-control's body counted in full (a control that applies an instance twice, whose
type does the same, 40 levels down, copies the innermost body 2**40 times). p4c's
programs copy at most 10,297 (``switch_p4_16.p4``); reaching the limit takes the inliner
about 3 s (it walks what it copied again at every level above).

``seconds`` (none): a wall-clock budget for the whole front end, looked at as it goes
(every 64 lines preprocessed, 4096 tokens parsed, 4096 statements and expressions checked,
and per block inlined and declaration linted). A program on the command line is its
user's own and the other limits already bound the work, so there is none by default; a
server compiling what clients send should set one.
"""
from __future__ import annotations

from dataclasses import dataclass

from dataplane.errors import NO_SPAN, Diagnostic, Span

MAX_WIDTH = 2048
MAX_VARBIT_WIDTH = 2**31 - 1   # p4c: a varbit's width need only fit an int (Type_Varbits::get)
MAX_CONSTANT_BITS = 2 * MAX_WIDTH

MiB = 1 << 20


def too_wide(subject: str) -> str:
    """The message for ``subject`` (a type, a shift amount, a slice bound) over ``MAX_WIDTH``."""
    return f"{subject} is too large: widths are limited to {MAX_WIDTH} bits"


def too_big_constant(subject: str, bits: int) -> str:
    """The message for a constant (a literal, a folded value) needing ``bits`` bits, over ``MAX_CONSTANT_BITS``."""
    return f"{subject} needs {bits} bits: compile-time integers are limited to {MAX_CONSTANT_BITS} bits"


@dataclass(frozen=True)
class CompileLimits:
    """What one compile may use; the module docstring says why each default is what it is.
    ``seconds`` None means no wall-clock budget."""

    source_bytes: int = 16 * MiB
    expansion_bytes: int = 16 * MiB
    line_expansion_bytes: int = 1 * MiB
    macro_depth: int = 64
    nesting: int = 256
    type_fields: int = 1 << 18
    inline_nodes: int = 1 << 18
    seconds: float | None = None

    def __post_init__(self) -> None:
        for name in ("source_bytes", "expansion_bytes", "line_expansion_bytes", "macro_depth", "nesting", "type_fields",
                     "inline_nodes"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"CompileLimits.{name} must be a positive integer, got {value!r}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"CompileLimits.seconds must be more than 0 (or None), got {self.seconds!r}")


DEFAULT_LIMITS = CompileLimits()


class LimitExceeded(Exception):
    """A program crossed one of its ``CompileLimits``; ``span`` is where. The front end turns it
    into a ``limit`` diagnostic and stops: going on would only cross it again."""

    def __init__(self, message: str, span: Span = NO_SPAN, source_line: str | None = None):
        super().__init__(message)
        self.span = span
        self.source_line = source_line      # when the text of span.line is known nowhere else

    def diagnostic(self, source_line: str | None = None) -> Diagnostic:
        return Diagnostic(str(self), self.span, code="limit", source_line=source_line or self.source_line)


def size_text(n: int) -> str:
    """``n`` bytes as a person writes it in a message: 16 MiB, 1 KiB, 100 bytes."""
    for unit, size in (("GiB", 1 << 30), ("MiB", MiB), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} byte{'s' if n != 1 else ''}"
