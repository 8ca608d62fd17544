"""Running the front end within its limits (``dataplane.lang.limits``): a wall-clock
``Deadline`` its passes check as they go, and ``deep_call``, which runs a compile on a stack
with room for the nesting it allows.

The passes recurse once or more per level of nesting (statements in statements,
expressions in expressions), and Python stops at 1000 frames by default: 160 nested
``if`` statements. The checker refuses a program nested deeper than ``CompileLimits.nesting``
with a located error, so the passes need room for that many levels, not more: the compile
runs in a thread of its own with a large stack and the recursion limit raised to
``FRAMES_PER_LEVEL`` frames a level. Should some pass still recurse past that (a bug: a
path that recurses without the checker counting it), the ``RecursionError`` becomes a
``limit`` error at the innermost source position found on the stack, never a crash.
"""
from __future__ import annotations

import sys
import threading
import time
from typing import Callable, TypeVar

from dataplane.errors import NO_SPAN, Span
from dataplane.lang.limits import LimitExceeded

R = TypeVar("R")

# Python frames the passes use per level of nesting: the checker's rules take 3 to 6 (an
# ``if``: visit, visit_If, check_scoped, check_stmt, check_block and its generator), the
# inliner and the printers fewer; 16 leaves room for what calls in between.
FRAMES_PER_LEVEL = 16
BASE_FRAMES = 2000          # the passes' own depth below the first level, and the caller's
# The thread's stack. Under CPython 3.11 every program at the nesting limit compiled in 1 MiB
# (Python-to-Python calls take no C stack there), and a recursion through C at every frame
# (``map``) up to the frame limit fit in 32 MiB. It is address space, used only as deep as
# a compile goes.
STACK_BYTES_PER_LEVEL = 128 * 1024
MIN_STACK_BYTES = 32 << 20

_local = threading.local()
_lock = threading.Lock()
_stack_lock = threading.Lock()
_raised: list[int] = []     # recursion limits raised by compiles running now, to restore after the last


class Deadline:
    """The time a compile must end by (``time.monotonic``), or none; ``check`` raises
    ``LimitExceeded`` at ``span`` once it has passed."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.end = time.monotonic() + seconds if seconds is not None else None

    def expired(self) -> bool:
        return self.end is not None and time.monotonic() > self.end

    def check(self, span: Span = NO_SPAN) -> None:
        if self.expired():
            raise LimitExceeded(f"the compile took longer than its limit of {self.seconds:g} s "
                                "(dataplane compile --max-compile-time); it got this far", span)


def deep_call(fn: Callable[[], R], levels: int) -> R:
    """``fn()`` with room for ``levels`` of nesting: in a thread with a large stack and the
    recursion limit raised, unless already inside one. Exceptions pass through; a
    ``RecursionError`` becomes ``LimitExceeded``."""
    if getattr(_local, "deep", False):
        return _guarded(fn)
    frames = BASE_FRAMES + levels * FRAMES_PER_LEVEL
    stack = max(MIN_STACK_BYTES, levels * STACK_BYTES_PER_LEVEL)
    outcome: list = []

    def run() -> None:
        _local.deep = True
        _raise_recursion_limit(frames)
        try:
            outcome.append((True, _guarded(fn)))
        except BaseException as exc:   # handed to the caller's thread, raised there
            outcome.append((False, exc))
        finally:
            _restore_recursion_limit(frames)

    worker = _start(run, stack)
    if worker is None:      # a platform that cannot size a thread's stack: here, the backstop still holds
        return _guarded(fn)
    worker.join()
    ok, value = outcome[0]
    if ok:
        return value
    raise value


def _start(run: Callable[[], None], stack: int) -> threading.Thread | None:
    """A started daemon thread running ``run`` on a stack of ``stack`` bytes, or None if none can have one."""
    with _stack_lock:       # the stack size is the process's setting for the next thread made
        old = threading.stack_size()
        try:
            threading.stack_size(stack)
        except (ValueError, RuntimeError):
            return None
        try:
            worker = threading.Thread(target=run, name="dataplane-compile", daemon=True)
            worker.start()
        except RuntimeError:    # no thread to be had (a process at its limit of address space or threads)
            return None
        finally:
            threading.stack_size(old)
    return worker


def _guarded(fn: Callable[[], R]) -> R:
    try:
        return fn()
    except RecursionError as exc:
        raise LimitExceeded("the program nests too deeply for the compiler (a limit it does not check first: "
                            "please report it)", _innermost_span(exc)) from None


def _innermost_span(exc: BaseException) -> Span:
    """The source position of the innermost frame on ``exc``'s stack that holds one (a span, or a
    node with one)."""
    tb = exc.__traceback__
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for value in frame.f_locals.values():
            try:        # a value may be half made: the recursion stopped its constructor
                span = value if isinstance(value, Span) else getattr(value, "span", None)
                if isinstance(span, Span) and span.line and span.file:
                    return span
            except AttributeError:
                continue
    return NO_SPAN


def _raise_recursion_limit(frames: int) -> None:
    """Raise Python's recursion limit (one per process) to ``frames`` while a compile runs;
    compiles in other threads share it, and the last to end puts back the one before."""
    with _lock:
        if not _raised:
            _raised.append(sys.getrecursionlimit())
        _raised.append(frames)
        if sys.getrecursionlimit() < frames:
            sys.setrecursionlimit(frames)


def _restore_recursion_limit(frames: int) -> None:
    with _lock:
        _raised.remove(frames)
        if len(_raised) == 1:
            sys.setrecursionlimit(_raised.pop())
