"""Running the front end within its limits (dataplane/lang/bounded.py): a wall-clock deadline the
passes look at as they go, and a stack with room for the nesting the checker allows, where a
``RecursionError`` becomes a located ``limit`` error instead of escaping."""
from __future__ import annotations

import sys
import threading

import pytest

from dataplane.errors import CompileError, DiagnosticSink, Span
from dataplane.lang import bounded
from dataplane.lang.bounded import Deadline, deep_call
from dataplane.lang.check.checker import Checker
from dataplane.lang.frontend import compile_source
from dataplane.lang.limits import CompileLimits, LimitExceeded
from dataplane.lang.parser import parse_text
from dataplane.lang.preprocess.directives import preprocess
from dataplane.testing.skeleton import v1model_program as v1model

FILE = "bad.p4"


class Clock:
    """A stand-in for ``time.monotonic`` that moves only when told."""

    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_deadline_holds_until_its_end_and_not_a_moment_after(monkeypatch):
    clock = Clock(100.0)
    monkeypatch.setattr(bounded.time, "monotonic", clock)
    deadline = Deadline(5)
    clock.now = 105.0
    deadline.check(Span(FILE, 3, 4))
    clock.now = 105.000001
    with pytest.raises(LimitExceeded) as info:
        deadline.check(Span(FILE, 3, 4))
    assert "the compile took longer than its limit of 5 s" in str(info.value)
    assert info.value.span == Span(FILE, 3, 4)
    assert not Deadline(None).expired()


def test_a_compile_past_its_time_is_a_located_limit_error():
    """``CompileLimits.seconds``: a budget already spent when the preprocessor first looks (after
    starting its thread) stops the compile at the line it had reached, the first."""
    with pytest.raises(CompileError) as info:
        compile_source(v1model(), FILE, limits=CompileLimits(seconds=1e-9))
    d = info.value.first
    assert d.code == "limit" and (d.span.file, d.span.line) == (FILE, 1)
    compile_source(v1model(), FILE, limits=CompileLimits(seconds=600))


def expired() -> Deadline:
    deadline = Deadline(1)
    deadline.end = 0.0      # long past
    return deadline


def test_the_parser_and_the_checker_look_at_the_clock_as_they_go():
    """Each pass that can run long looks at the deadline every few thousand tokens or visits and
    names the place it had reached: a statement of the program's body, not the start of the file."""
    src = v1model(ingress="meta.x = meta.y;\n" * 3000)
    pre = preprocess(text=src, filename=FILE)
    with pytest.raises(LimitExceeded) as info:
        parse_text(pre.text, pre.locate, pre.source_line, deadline=expired())
    body = range(src[:src.index("meta.x = meta.y;")].count("\n") + 1, src.count("\n"))
    assert info.value.span.file == FILE and info.value.span.line in body
    tree = parse_text(pre.text, pre.locate, pre.source_line)
    with pytest.raises(LimitExceeded) as info:
        Checker(DiagnosticSink(), FILE, deadline=expired()).check_program(tree)
    assert info.value.span.line in body


def recurse(n: int) -> int:
    return 0 if n == 0 else recurse(n - 1) + 1


def test_a_deep_call_has_room_for_its_levels_and_puts_the_recursion_limit_back():
    """Python stops at 1000 frames by default; ``deep_call`` gives 16 frames a level, in a thread
    with a stack for them, and leaves the process's limit as it found it."""
    before = sys.getrecursionlimit()
    assert deep_call(lambda: recurse(5000), levels=256) == 5000
    assert sys.getrecursionlimit() == before


def test_a_recursion_past_the_room_is_a_limit_error_at_the_innermost_source_position():
    """The backstop: a RecursionError (a pass recursing where nothing counted) becomes
    ``LimitExceeded`` at the span of the innermost frame that holds a node."""
    def visit(node: Span) -> int:
        return visit(Span(FILE, node.line + 1, 1))

    with pytest.raises(LimitExceeded) as info:
        deep_call(lambda: visit(Span(FILE, 1, 1)), levels=10)
    assert info.value.span.file == FILE and info.value.span.line > 1000


def test_a_pass_that_recurses_without_end_is_a_compile_error_not_a_crash(monkeypatch):
    """Should a pass recurse where nothing counts (a bug), the compile still ends in a CompileError
    with a ``limit`` diagnostic, from the passes as from the preprocessor."""
    from dataplane.lang import frontend
    from dataplane.lang.preprocess import directives as pp

    def endless(*args):
        return endless(*args)

    monkeypatch.setattr(frontend, "lint_program", endless)
    with pytest.raises(CompileError) as info:
        compile_source(v1model(), FILE)
    assert info.value.first.code == "limit"
    monkeypatch.setattr(pp, "evaluate_condition", endless)
    with pytest.raises(CompileError) as info:
        preprocess(text="#if 1\n#endif\n", filename=FILE)
    assert info.value.first.code == "limit"


def test_a_deep_call_passes_errors_through_and_nests_in_place():
    """An error of the call reaches the caller as it is; a deep call inside one runs in the same thread."""
    with pytest.raises(KeyError):
        deep_call(lambda: {}["x"], levels=4)
    outer = deep_call(lambda: (threading.current_thread(), deep_call(threading.current_thread, levels=4)), levels=4)
    assert outer[0] is outer[1] and outer[0] is not threading.current_thread()


def test_without_a_thread_to_be_had_the_call_runs_in_place(monkeypatch):
    """A process at its limit of threads or address space cannot start the deep thread: the call
    runs where it is, and a recursion past Python's limit still ends as a LimitExceeded."""
    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    assert deep_call(threading.current_thread, levels=4) is threading.current_thread()
    with pytest.raises(LimitExceeded):
        deep_call(lambda: recurse(10 ** 6), levels=4)


def test_compiles_in_threads_at_once_share_the_raised_limit_and_restore_it():
    """Two compiles at once (a server's clients): each has its room while it runs, and the
    process's recursion limit is back to what it was when both have ended."""
    before = sys.getrecursionlimit()
    deep = v1model(ingress="if (meta.x == 1) {\n" * 200 + "meta.y = 1;" + "}\n" * 200)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(3):
                compile_source(deep, FILE)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and sys.getrecursionlimit() == before
