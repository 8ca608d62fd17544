"""The front end as an ordered list of passes: preprocess, parse, check (which lowers to the program IR),
inline (sub-parsers and sub-controls into the blocks the package uses), lint (warnings).

Each pass stops the pipeline when it reports errors; every diagnostic carries the
original file, line and column and the source line for the caret.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Mapping, Sequence

from dataplane import progress
from dataplane.diagnostics import WarningPolicy
from dataplane.errors import CompileError, Diagnostic, DiagnosticSink
from dataplane.gc_pause import paused_gc
from dataplane.ir.decl import P4Program
from dataplane.ir.program import Program
from dataplane.lang.checker import Checker
from dataplane.lang.compile_result import CompileResult
from dataplane.lang.cp_names import check_action_names
from dataplane.lang.inline import inline_program
from dataplane.lang.lint import lint_program
from dataplane.lang.parser import parse_text
from dataplane.lang.preprocess import PreprocessedSource, preprocess


def compile_file(path: str | Path, *, include_dirs: Sequence[Path] = (),
                 defines: Mapping[str, str] | None = None, warnings: WarningPolicy | None = None) -> CompileResult:
    """Compile the P4 program at ``path``; raise ``CompileError`` with every diagnostic on failure.
    ``warnings`` disables warning codes or makes warnings errors (``--Wno``, ``--Werror``)."""
    start = time.perf_counter()
    with paused_gc():
        _pass(str(path), "preprocess", 1)
        pre = preprocess(path, include_dirs=include_dirs, defines=defines)
        return _compile(pre, str(path), start, warnings or WarningPolicy())


def compile_source(text: str, filename: str = "<input>", *, include_dirs: Sequence[Path] = (),
                   defines: Mapping[str, str] | None = None, warnings: WarningPolicy | None = None) -> CompileResult:
    """Compile P4 source text; quoted includes resolve relative to ``filename``'s directory."""
    start = time.perf_counter()
    with paused_gc():
        _pass(filename, "preprocess", 1)
        pre = preprocess(text=text, filename=filename, include_dirs=include_dirs, defines=defines)
        return _compile(pre, filename, start, warnings or WarningPolicy())


def compile_program(path_or_text: str | Path, **kwargs) -> Program:
    """Convenience: compile a file path (or source text containing a newline) and return the program."""
    if isinstance(path_or_text, str) and "\n" in path_or_text:
        return compile_source(path_or_text, **kwargs).program
    return compile_file(path_or_text, **kwargs).program


def _pass(source: str, name: str, number: int) -> None:
    """Name the pass now running on an open progress line (a large program parses for seconds)."""
    progress.stage(f"compile {Path(source).name}: {name} (pass {number} of 4)")


def _compile(pre: PreprocessedSource, source: str, start: float, policy: WarningPolicy) -> CompileResult:
    timings = {"preprocess": time.perf_counter() - start}
    _pass(source, "parse", 2)
    tree: P4Program = parse_text(pre.text, pre.locate, pre.source_line, timings)
    t = time.perf_counter()
    sink = DiagnosticSink()
    _pass(source, "check", 3)
    program = Checker(sink, source).check_program(tree)
    timings["check"] = time.perf_counter() - t
    if not sink.has_errors():
        t = time.perf_counter()
        _pass(source, "inline", 4)
        program = inline_program(program, sink)
        check_action_names(program, sink)
        timings["inline"] = time.perf_counter() - t
    if not sink.has_errors():
        t = time.perf_counter()
        lint_program(tree, sink, pre.system_files)
        timings["lint"] = time.perf_counter() - t
    for d in sink.diagnostics:
        if d.source_line is None and d.span.line:
            d.source_line = pre.source_line(d.span)
    if sink.has_errors():
        raise CompileError(_dedupe(sink.diagnostics))
    warnings = policy.kept(d for d in sink.diagnostics if d.severity != "error")
    if policy.as_errors and warnings:
        raise CompileError([policy.as_error(w) for w in warnings])
    timings["total"] = time.perf_counter() - start
    return CompileResult(program, warnings, timings)


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen = set()
    out = []
    for d in diags:
        key = (d.span.file, d.span.line, d.span.col, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
