"""The P4 preprocessor: includes, macros (``dataplane.lang.preprocess.macros``), conditionals, comment removal.

p4c pipes programs through the system C preprocessor; we cannot rely on one
being installed, so this module implements the subset the P4_16 spec asks for.
The output keeps exactly one output line per input line of every file (directive
lines and skipped lines become empty), so ``line_map`` maps each output line back
to its original file and line without needing ``# line`` markers in the text.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

from dataplane.errors import CompileError, Diagnostic, Span
from dataplane.lang.bounded import Deadline, deep_call
from dataplane.lang.limits import DEFAULT_LIMITS, CompileLimits, LimitExceeded
from dataplane.lang.preprocess.expr import ExprError, ExprTooDeep, evaluate_condition
from dataplane.lang.preprocess.lines import splice, strip_comments
from dataplane.lang.preprocess.macros import (
    Budget,
    ExpansionLimit,
    Macro,
    MacroError,
    Unterminated,
    define_problem,
    expand,
    parse_define,
)
from dataplane.lang.preprocess.source import PreprocessedSource, line_of
from dataplane.lang.preprocess.source_budget import SourceBudget
from dataplane.resources import include_dir

MAX_INCLUDE_DEPTH = 50
PREDEFINED = {"__TARGET_BMV2__": "1"}  # p4c-bm2-ss passes -D__TARGET_BMV2__

# A P4 string literal may span lines, and p4c's cpp keeps comments (-C) for its lexer, which reads
# `//` inside such a string as text (SAI P4's multi-line @entry_restriction strings): a string runs
# to its closing quote across lines; a quote never closed is a stray character (as cpp has it).
_DIRECTIVE = re.compile(r"[ \t\f\v]*#[ \t]*([A-Za-z_][A-Za-z0-9_]*|[0-9]+)?")
_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)")
_INCLUDE_ARG = re.compile(r'\s*(?:<([^>]*)>|"([^"]*)")\s*$')
_LINE_ARGS = re.compile(r'\s*([0-9]+)(?:\s+"((?:\\.|[^"\\])*)")?(?:\s+[0-9]+)*\s*$')


def _not_utf8(name: str, exc: UnicodeDecodeError) -> Diagnostic:
    """A located error for a source file that is not UTF-8 (a binary file given as a program)."""
    raw = exc.object
    line = raw.count(b"\n", 0, exc.start) + 1
    col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
    return Diagnostic(f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); is this a P4 source file?",
                      Span(name, line, col), code="encoding")


def preprocess(path: str | Path | None = None, *, text: str | None = None, filename: str | None = None,
               include_dirs: Sequence[Path] = (), defines: Mapping[str, str] | None = None,
               sandboxed: bool = False, limits: CompileLimits = DEFAULT_LIMITS,
               deadline: Deadline | None = None) -> PreprocessedSource:
    """Preprocess a P4 program given as a file ``path`` or as ``text`` (named ``filename`` in messages).

    ``#include <x>`` searches ``include_dirs`` then the bundled ``core.p4``/``v1model.p4``;
    ``#include "x"`` looks next to the including file first. ``defines`` adds or
    overrides macros (``__TARGET_BMV2__`` is predefined). ``limits`` bound the text read
    and what macros make (``deadline``, if given, the time). Raises CompileError
    with every problem found.

    ``sandboxed``: for text from someone else (a P4Runtime client's device config), read no
    file but the bundled architecture includes: any other ``#include`` is an error that names
    it and touches no file (so it cannot tell whether one exists); ``include_dirs`` are unused.
    """
    if (path is None) == (text is None):
        raise TypeError("preprocess() needs exactly one of path or text")
    bad = [problem for n, v in (defines or {}).items() if (problem := define_problem(n, v)) is not None]
    if bad:
        raise CompileError([Diagnostic(f"cannot define a macro: {problem}", code="pp-macro") for problem in bad])
    pp = _Preprocessor([] if sandboxed else [Path(d) for d in include_dirs], {**PREDEFINED, **(defines or {})},
                       limits, deadline or Deadline(limits.seconds), sandboxed)
    try:
        deep_call(lambda: pp.run(path, text, filename), limits.nesting)
    except LimitExceeded as exc:    # a recursion past the room deep_call gives (its backstop)
        pp.diagnostics.append(exc.diagnostic())
    if pp.diagnostics:
        raise CompileError(pp.diagnostics)
    return PreprocessedSource("".join(line + "\n" for line in pp.lines), pp.line_map, pp.files, pp.col_maps,
                              frozenset(pp.system_files))


@dataclass
class _Cond:
    """One open ``#if``-group; ``taken`` is set once a branch was chosen (or the group is inside a skipped one)."""

    loc: tuple[str, int, int]
    directive: str
    active: bool
    taken: bool
    seen_else: bool = False


@dataclass
class _FileState:
    """Per-file state: conditionals must balance within a file, and ``#line`` only renames the rest of it."""

    name: str
    real: Path
    depth: int
    line_name: str
    delta: int = 0
    conds: list[_Cond] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return self.conds[-1].active if self.conds else True


_Include = tuple[str, str, Path, int]  # text, display name, real path, depth


class _Preprocessor:
    """Runs one translation unit; macros and output are shared across the files it includes."""

    def __init__(self, include_dirs: list[Path], macros: dict[str, Macro], limits: CompileLimits, deadline: Deadline,
                 sandboxed: bool = False):
        self.include_dirs = include_dirs
        self.macros = macros
        self.limits = limits
        self.deadline = deadline
        self.sandboxed = sandboxed
        self.budget = Budget(limits)
        self.source = SourceBudget(limits)
        self.lines: list[str] = []
        self.line_map: list[tuple[str, int]] = []
        self.col_maps: dict[int, list[tuple[int, int]]] = {}
        self.files: dict[str, str] = {}
        self.system_files: set[str] = set()
        self.diagnostics: list[Diagnostic] = []
        self._split: dict[str, list[str]] = {}

    def error(self, message: str, loc: tuple[str, int, int], code: str) -> None:
        file, line, col = loc
        source = line_of(self.files, file, line, self._split)
        self.diagnostics.append(Diagnostic(message, Span(file, line, col), code=code, source_line=source))

    def run(self, path: str | Path | None, text: str | None, filename: str | None) -> None:
        """Preprocess the program at ``path`` or the ``text`` named ``filename``; a crossed limit
        ends it with its diagnostic last."""
        try:
            if path is not None:
                name = filename or str(path)
                text = self._read_main(Path(path), name)
                real = Path(path)
            else:
                assert text is not None
                name = filename or "<input>"
                real = Path(name)  # only its directory matters, for quoted includes
                self.source.spend(text, name)
            self.run_file(text, name, real, 0)
        except LimitExceeded as exc:
            self.diagnostics.append(exc.diagnostic(line_of(self.files, exc.span.file, exc.span.line, self._split)))
        except _Stop:
            pass

    def _read_main(self, path: Path, name: str) -> str:
        try:
            data = self.source.read(path)
        except OSError as exc:
            raise CompileError([Diagnostic(f"cannot read '{name}': {exc.strerror or exc}", code="io")]) from None
        self.source.spend(data, name)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CompileError([_not_utf8(name, exc)]) from None

    def run_file(self, text: str, name: str, real: Path, depth: int) -> None:
        """Append the preprocessed lines of one file (and, recursively, of what it includes)."""
        self.files.setdefault(name, text)
        physical = [line.removesuffix("\r") for line in text.split("\n")]
        if physical[-1] == "":
            physical.pop()
        logical = splice(physical)
        code, unterminated = strip_comments("\n".join(line for line, _, _ in logical))
        if unterminated is not None:
            index = code.count("\n", 0, unterminated)
            col = unterminated - code.rfind("\n", 0, unterminated)
            self.error("unterminated comment", (name, logical[index][1] + 1, col), code="unterminated-comment")
        state = _FileState(name, real, depth, name)
        rows = [(first, count, line) for (_, first, count), line in zip(logical, code.split("\n"))]
        i = 0
        while i < len(rows):
            first, count, line = rows[i]
            if not i % 64 and self.deadline.expired():
                self.deadline.check(Span(state.line_name, first + 1 + state.delta, 1))
            while True:
                try:
                    self._line(state, line, first, count)
                    break
                except Unterminated as err:
                    # A macro's arguments may run over several lines: join the next one and retry.
                    if i + 1 >= len(rows) or _DIRECTIVE.match(rows[i + 1][2]):
                        self.error(str(err), (state.line_name, first + 1 + state.delta, err.col), code="pp-macro")
                        self._line(state, "", first, count)
                        break
                    i += 1
                    line, count = line + " " + rows[i][2], count + rows[i][1]
            i += 1
        for cond in state.conds:
            self.error(f"unterminated #{cond.directive} (missing #endif)", cond.loc, code="pp-directive")

    def _line(self, st: _FileState, code: str, first: int, count: int) -> None:
        line_name, line_no = st.line_name, first + 1 + st.delta
        pending: _Include | None = None
        text = ""
        directive = _DIRECTIVE.match(code)
        if directive:
            loc = (line_name, line_no, code.index("#") + 1)
            pending = self._directive(st, directive.group(1), code[directive.end():], loc, first + count)
        elif st.active:
            self.budget.new_line()
            try:
                text, breaks = expand(code.rstrip(), self.macros, budget=self.budget)
            except Unterminated:
                raise
            except ExpansionLimit as err:
                self._over_budget(err, (line_name, line_no, err.col or 1))
                text, breaks = "", []
            except MacroError as err:
                self.error(str(err), (line_name, line_no, err.col or 1), code="pp-macro")
                text, breaks = "", []
            if breaks:
                self.col_maps[len(self.lines)] = breaks
        for k in range(count):  # continuation lines of a splice stay as empty lines
            self.lines.append(text if k == 0 else "")
            self.line_map.append((line_name, line_no + k))
        if pending:
            self.run_file(*pending)

    def _directive(self, st: _FileState, name: str | None, rest: str, loc: tuple[str, int, int],
                   next_line: int) -> _Include | None:
        if name in ("if", "ifdef", "ifndef"):
            value = st.active and self._condition(name, rest, loc)
            st.conds.append(_Cond(loc, name, active=value, taken=value or not st.active))
        elif name in ("elif", "else", "endif"):
            if not st.conds:
                self.error(f"#{name} without #if", loc, code="pp-directive")
            elif name == "endif":
                st.conds.pop()
            elif st.conds[-1].seen_else:
                self.error(f"#{name} after #else", loc, code="pp-directive")
            else:
                cond = st.conds[-1]
                cond.active = not cond.taken and (name == "else" or self._condition("if", rest, loc))
                cond.taken = cond.taken or cond.active
                cond.seen_else = name == "else"
        elif not st.active:
            pass  # only conditionals count inside a skipped group
        elif name == "define":
            self._define(rest, loc)
        elif name == "undef":
            if (m := _NAME.match(rest)) is None:
                self.error("#undef expects a macro name", loc, code="pp-directive")
            else:
                self.macros.pop(m.group(1), None)
        elif name == "include":
            return self._include(st, rest, loc)
        elif name == "line" or (name or "").isdigit():
            self._line_marker(st, rest if name == "line" else name + rest, loc, next_line)
        elif name == "error":
            self.error(f"#error {rest.strip()}".strip(), loc, code="pp-error")
        elif name == "pragma":
            self.error("unsupported: #pragma", loc, code="unsupported")
        elif name == "warning":
            pass
        elif name is None:
            if rest.strip():
                self.error(f"invalid preprocessing directive '#{rest.strip()}'", loc, code="pp-directive")
        else:
            self.error(f"unknown preprocessor directive '#{name}'", loc, code="pp-directive")
        return None

    def _condition(self, kind: str, rest: str, loc: tuple[str, int, int]) -> bool:
        if kind != "if":
            m = _NAME.match(rest)  # like cpp, tolerate extra tokens after the name
            if m is None:
                self.error(f"#{kind} expects a macro name", loc, code="pp-directive")
                return False
            return (m.group(1) in self.macros) == (kind == "ifdef")
        self.budget.new_line()
        try:
            return evaluate_condition(rest, self.macros, self.budget)
        except ExprTooDeep as exc:
            self.error(f"#if expression: {exc}", loc, code="limit")
            return False
        except ExpansionLimit as err:
            self._over_budget(err, loc)
            return False
        except ExprError as exc:
            self.error(f"invalid #if expression: {exc}", loc, code="pp-expression")
            return False

    def _over_budget(self, err: ExpansionLimit, loc: tuple[str, int, int]) -> None:
        """Report a macro expansion past its budget; past the program's, stop preprocessing."""
        self.error(str(err), loc, code="limit")
        if err.whole_unit:
            raise _Stop

    def _define(self, rest: str, loc: tuple[str, int, int]) -> None:
        try:
            name, macro = parse_define(rest)
        except MacroError as err:
            self.error(str(err), loc, code="pp-macro")
            return
        self.macros[name] = macro

    def _include(self, st: _FileState, rest: str, loc: tuple[str, int, int]) -> _Include | None:
        m = _INCLUDE_ARG.match(rest) or _INCLUDE_ARG.match(self._expand_quietly(rest, loc))
        if m is None:
            self.error('#include expects "FILE" or <FILE>', loc, code="pp-include")
            return None
        target, quoted = (m.group(2), True) if m.group(2) is not None else (m.group(1), False)
        if st.depth >= MAX_INCLUDE_DEPTH:
            self.error(f"#include nested too deeply (more than {MAX_INCLUDE_DEPTH} levels)", loc, code="pp-include")
            return None
        if self.sandboxed and target not in bundled_includes():
            shown = f'"{target}"' if quoted else f"<{target}>"
            self.error(f"#include {shown} is refused: a sandboxed compile reads no file but the bundled "
                       f"architecture includes ({', '.join(sorted(bundled_includes()))})", loc, code="pp-include")
            return None
        found = self._find(target, quoted and not self.sandboxed, st)
        if found is None:
            self.error(f"cannot find include file '{target}'", loc, code="pp-include")
            return None
        display, real = found
        try:
            data = self.source.read(real)
            self.source.spend(data, target, loc)
            return data.decode("utf-8"), display, real, st.depth + 1
        except OSError as exc:
            self.error(f"cannot read include file '{target}': {exc.strerror or exc}", loc, code="pp-include")
            return None
        except UnicodeDecodeError as exc:
            self.diagnostics.append(_not_utf8(display, exc))
            return None

    def _find(self, target: str, quoted: bool, st: _FileState) -> tuple[str, Path] | None:
        """Resolve an include target to (name used in messages, real path)."""
        if quoted and (st.real.parent / target).is_file():
            display = os.path.normpath(os.path.join(os.path.dirname(st.name), target))
            if st.name in self.system_files:
                self.system_files.add(display)
            return display, st.real.parent / target
        bundled = include_dir()
        for directory in [*self.include_dirs, bundled]:
            if (directory / target).is_file():
                if directory == bundled:
                    self.system_files.add(target)
                return (target if directory == bundled else str(directory / target)), directory / target
        return None

    def _line_marker(self, st: _FileState, args: str, loc: tuple[str, int, int], next_line: int) -> None:
        m = _LINE_ARGS.match(args)
        if m is None:
            self.error('#line expects a line number and an optional "file"', loc, code="pp-directive")
            return
        if len(m.group(1)) > 10 or int(m.group(1)) > 2147483647:     # cpp's bound: a line number is an int
            self.error("#line number out of range", loc, code="pp-directive")
            return
        st.delta = int(m.group(1)) - (next_line + 1)
        if m.group(2) is not None:
            st.line_name = m.group(2)

    def _expand_quietly(self, text: str, loc: tuple[str, int, int]) -> str:
        self.budget.new_line()
        try:
            return expand(text, self.macros, budget=self.budget)[0]
        except ExpansionLimit as err:
            self._over_budget(err, loc)
            return text
        except MacroError:
            return text


@lru_cache(maxsize=1)
def bundled_includes() -> frozenset[str]:
    """The names ``#include`` reaches in the bundled p4include folder (``bmv2/psa.p4`` with its folder)."""
    root = include_dir()
    return frozenset(p.relative_to(root).as_posix() for p in root.rglob("*.p4"))


class _Stop(Exception):
    """Preprocessing ends here: a limit was crossed and reported."""
