"""The front end as a declared, ordered list of passes (``PASSES``), as p4c's ``FrontEnd::run``:
preprocess, parse, check (which lowers to the program IR), inline (sub-parsers and
sub-controls into the blocks the package uses), lint (warnings).

One loop (``run_passes``) runs them: it times each one (``dataplane compile --timings``),
names it on an open progress line, stops after the first that reports errors, and can stop
after any one of them to show what it made (``dataplane compile --dump-after PASS``). Every
diagnostic carries the original file, line and column and the source line for the caret.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, cast

from dataplane import progress
from dataplane.diagnostics import WarningPolicy
from dataplane.errors import CompileError, Diagnostic, DiagnosticSink
from dataplane.gc_pause import paused_gc
from dataplane.ir.decl import P4Program
from dataplane.ir.expr import Expr, TypeRef
from dataplane.ir.node import Node, children
from dataplane.ir.program import Program
from dataplane.ir.stmt import BlockStmt, Stmt
from dataplane.lang.bounded import Deadline, deep_call
from dataplane.lang.check.checker import Checker
from dataplane.lang.compile_result import CompileResult, printed_source  # noqa: F401  (re-exported: cli, testing)
from dataplane.lang.inline.program import inline_program
from dataplane.lang.limits import DEFAULT_LIMITS, CompileLimits, LimitExceeded
from dataplane.lang.lint import lint_program
from dataplane.lang.parser import parse_text
from dataplane.lang.preprocess.directives import PreprocessedSource, preprocess


@dataclass
class FrontEndState:
    """What the passes hand on to each other; each pass fills in its own part."""

    filename: str
    include_dirs: Sequence[Path] = ()
    defines: Mapping[str, str] | None = None
    text: str | None = None                       # source text, or None to read ``filename``
    sandboxed: bool = False                       # read no file but the bundled includes (preprocess)
    sink: DiagnosticSink = field(default_factory=DiagnosticSink)
    timings: dict[str, float] = field(default_factory=dict)
    limits: CompileLimits = DEFAULT_LIMITS
    deadline: Deadline = field(default_factory=lambda: Deadline(None))   # set when the compile starts
    pre: PreprocessedSource | None = None         # after preprocess
    tree: P4Program | None = None                 # after parse
    program: Program | None = None                # after check (inline rewrites it)


@dataclass(frozen=True)
class Pass:
    """One front-end pass: its name (``--timings``, ``--dump-after``), what it does, and the
    function that runs it on the state."""

    name: str
    doc: str
    run: Callable[[FrontEndState], None]


def _preprocess(st: FrontEndState) -> None:
    if st.text is None:
        st.pre = preprocess(st.filename, include_dirs=st.include_dirs, defines=st.defines, sandboxed=st.sandboxed,
                            limits=st.limits, deadline=st.deadline)
    else:
        st.pre = preprocess(text=st.text, filename=st.filename, include_dirs=st.include_dirs, defines=st.defines,
                            sandboxed=st.sandboxed, limits=st.limits, deadline=st.deadline)


# Each pass runs after the ones that fill in what it reads (the asserts say so to a type checker).
def _parse(st: FrontEndState) -> None:
    pre = st.pre
    assert pre is not None
    st.tree = parse_text(pre.text, pre.locate, pre.source_line, st.timings, st.deadline, st.limits.nesting)


def _check(st: FrontEndState) -> None:
    assert st.tree is not None
    st.program = Checker(st.sink, st.filename, st.limits, st.deadline).check_program(st.tree)


def _inline(st: FrontEndState) -> None:
    assert st.program is not None
    st.program = inline_program(st.program, st.sink, st.limits, st.deadline)


def _lint(st: FrontEndState) -> None:
    assert st.tree is not None and st.pre is not None
    lint_program(st.tree, st.sink, st.pre.system_files, st.deadline)


PASSES: tuple[Pass, ...] = (
    Pass("preprocess", "#include, #define and #if, with a map back to the original lines", _preprocess),
    Pass("parse", "lark's LALR parser and the IR builder: the syntax tree (ir.decl/stmt/expr)", _parse),
    Pass("check", "names, types, constant folding and lowering to ir.program.Program", _check),
    Pass("inline", "sub-parsers and sub-controls into the blocks the package uses; control-plane names", _inline),
    Pass("lint", "warnings p4c gives: unused declarations, shadowing, uninitialised reads", _lint),
)
PASS_NAMES = tuple(p.name for p in PASSES)


def run_passes(st: FrontEndState, passes: Sequence[Pass] = PASSES, stop_after: str | None = None) -> FrontEndState:
    """Run ``passes`` in order on ``st``, timing each into ``st.timings`` (the parse pass also
    records its parts); stop after the first that reports an error, or after ``stop_after``.
    Preprocess and parse raise ``CompileError`` themselves (nothing after them could run)."""
    for number, p in enumerate(passes, 1):
        progress.stage(f"compile {Path(st.filename).name}: {p.name} (pass {number} of {len(passes)})")
        t = time.perf_counter()
        try:
            p.run(st)
            if p.name == stop_after == "parse":    # the syntax tree leaves unchecked: bound it here
                _check_syntax_depth(st)
        except LimitExceeded as exc:    # reported like any error; going on would only cross it again
            st.sink.diagnostics.append(exc.diagnostic())
        if p.name not in st.timings:     # the parse pass's parts are already there
            st.timings[p.name] = time.perf_counter() - t
        if st.sink.has_errors() or p.name == stop_after:
            break
    return st


def _check_syntax_depth(st: FrontEndState) -> None:
    """``LimitExceeded`` at the first statement, expression or type nested more than
    ``limits.nesting`` deep in the syntax tree, as the checker counts them; the tree goes
    back to the caller (``--dump-after parse``) without the checker having seen it."""
    assert st.tree is not None
    stack: list[tuple[Node, int, Node | None]] = [(st.tree, 0, None)]
    while stack:
        node, depth, parent = stack.pop()
        # As the checker counts: a statement inside another statement (a declaration's own
        # body or locals are checked with it), a block only inside a block (the body of an
        # if or a case is checked with its statement).
        if isinstance(node, (Expr, TypeRef)) or (isinstance(node, Stmt) and isinstance(parent, Stmt) and
                                                 (isinstance(parent, BlockStmt) or not isinstance(node, BlockStmt))):
            depth += 1
            if depth > st.limits.nesting:
                raise LimitExceeded(f"statements, expressions and types nest more than {st.limits.nesting} levels "
                                    "deep here (the limit of the compiler, lang/limits.py)", node.span)
        stack.extend((child, depth, node) for child in reversed(list(children(node))))


def compile_file(path: str | Path, *, include_dirs: Sequence[Path] = (),
                 defines: Mapping[str, str] | None = None, warnings: WarningPolicy | None = None,
                 stop_after: str | None = None, limits: CompileLimits | None = None) -> CompileResult:
    """Compile the P4 program at ``path``; raise ``CompileError`` with every diagnostic on failure.
    ``warnings`` disables warning codes or makes warnings errors (``--Wno``, ``--Werror``);
    ``stop_after`` names the last pass to run (the result's ``program`` is None before ``check``);
    ``limits`` bound what the compile may use (``lang.limits``: size, nesting, time)."""
    st = FrontEndState(str(path), include_dirs, defines, limits=limits or DEFAULT_LIMITS)
    return _compile(st, warnings or WarningPolicy(), stop_after)


def compile_source(text: str, filename: str = "<input>", *, include_dirs: Sequence[Path] = (),
                   defines: Mapping[str, str] | None = None, warnings: WarningPolicy | None = None,
                   stop_after: str | None = None, sandboxed: bool = False,
                   limits: CompileLimits | None = None) -> CompileResult:
    """Compile P4 source text; quoted includes resolve relative to ``filename``'s directory.
    ``sandboxed``: text from someone else, which may include the bundled architecture files and
    nothing else (``preprocess``); ``limits`` as for ``compile_file``."""
    st = FrontEndState(filename, include_dirs, defines, text, sandboxed=sandboxed, limits=limits or DEFAULT_LIMITS)
    return _compile(st, warnings or WarningPolicy(), stop_after)


def compile_program(path_or_text: str | Path, **kwargs: Any) -> Program:
    """Convenience: compile a file path (or source text containing a newline) and return the program."""
    if isinstance(path_or_text, str) and "\n" in path_or_text:
        return compile_source(path_or_text, **kwargs).program
    return compile_file(path_or_text, **kwargs).program


def compile_preprocessed(pre: PreprocessedSource, filename: str, *, warnings: WarningPolicy | None = None,
                         start: float | None = None, limits: CompileLimits | None = None) -> CompileResult:
    """The passes after ``preprocess`` on a program already preprocessed (the compile cache's
    miss); ``start`` is when preprocessing began (``time.perf_counter()``), for the timings."""
    st = FrontEndState(filename, pre=pre, limits=limits or DEFAULT_LIMITS)
    if start is not None:
        st.timings["preprocess"] = time.perf_counter() - start
    return _compile(st, warnings or WarningPolicy(), None, PASSES[1:], start)


def _compile(st: FrontEndState, policy: WarningPolicy, stop_after: str | None,
             passes: Sequence[Pass] = PASSES, start: float | None = None) -> CompileResult:
    if stop_after is not None and stop_after not in PASS_NAMES:
        raise ValueError(f"no front-end pass named {stop_after!r} (passes: {', '.join(PASS_NAMES)})")
    if start is None:
        start = time.perf_counter()
    st.deadline = Deadline(st.limits.seconds)
    with paused_gc():
        try:
            deep_call(lambda: run_passes(st, passes, stop_after), st.limits.nesting)
        except LimitExceeded as exc:    # a recursion past the room deep_call gives (its backstop)
            st.sink.diagnostics.append(exc.diagnostic())
    pre, sink = st.pre, st.sink
    assert pre is not None   # preprocess raises rather than leave it unset
    for d in sink.diagnostics:
        if d.source_line is None and d.span.line:
            d.source_line = pre.source_line(d.span)
    if sink.has_errors():
        raise CompileError(_dedupe(sink.diagnostics))
    warnings = policy.kept(d for d in sink.diagnostics if d.severity != "error")
    if policy.as_errors and warnings:
        raise CompileError([policy.as_error(w) for w in warnings])
    st.timings["total"] = time.perf_counter() - start
    # program is None only when stop_after names a pass before check (CompileResult says so)
    return CompileResult(cast(Program, st.program), warnings, st.timings, st.tree, pre)


def format_timings(timings: Mapping[str, float]) -> str:
    """One line per pass with its time in ms (the parse pass with its parts), then the total."""
    parts = ("lex", "tokens", "parse", "build")
    lines = []
    for name in PASS_NAMES:
        if name == "parse" and "lex" in timings:
            total = sum(timings.get(k, 0.0) for k in parts)
            detail = ", ".join(f"{k} {timings[k] * 1000:.1f}" for k in parts if k in timings)
            lines.append(f"{name:<11}{total * 1000:8.1f} ms  ({detail})")
        elif name in timings:
            lines.append(f"{name:<11}{timings[name] * 1000:8.1f} ms")
    if "total" in timings:
        lines.append(f"{'total':<11}{timings['total'] * 1000:8.1f} ms")
    return "\n".join(lines)


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen = set()
    out = []
    for d in diags:
        key = (d.span.file, d.span.line, d.span.col, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
