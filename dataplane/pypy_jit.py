"""PyPy's JIT, tuned for a simulated network: compiling sooner, and some calls left out of line.

The first ``Simulator.run`` of a process calls ``tune``. On PyPy it sets the JIT's parameters
(``pypyjit.set_param``): compiling sooner than PyPy's defaults and without unrolling loops
(``PARAMS``; ``DATAPLANE_PYPY_JIT`` replaces them, empty or ``off`` keeps PyPy's own and leaves
every call as PyPy would). A network's event handlers are many, and with PyPy's thresholds a run
of a few seconds spends much of its time interpreting them before they are compiled, and
compiling them takes about as long again.

It then marks the functions given to ``not_inlined`` so that traces call them instead of
copying them in (``pypyjit.dont_trace_here``). PyPy traces the event loop through whatever an
event calls; where a branch of that trace later goes the other way, it compiles a bridge that
holds its own copy of the rest of the event. A function that every path of a hop ends in (the
wire's ``Port._wire``, which also searches the event list) is then copied into dozens of
bridges, each traced and compiled again: out of line, it is compiled once, and each bridge calls
it (docs/speed/simulator.md, "Calls out of line"). On CPython nothing here does anything.
"""
from __future__ import annotations

import os
import sys
from types import CodeType
from typing import Any, Callable

#: PyPy's defaults are threshold 1039, function_threshold 1619, trace_eagerness 200 and every
#: optimisation. ``unroll`` (peeling a loop's first iteration to hoist what does not change) is
#: left out: the loop that matters runs a different handler each turn, so it hoists little, and
#: without it compiling, half of a run of a few seconds, costs up to a third less.
PARAMS = ("threshold=200,function_threshold=300,trace_eagerness=50,"
          "enable_opts=intbounds:rewrite:virtualize:string:pure:earlyforce:heap")

tuned = False
_pypyjit: Any = None                 # the module, once ``tune`` has set the parameters
_not_inlined: list[Any] = []         # code objects to mark


def not_inlined(*functions: Callable) -> None:
    """Have PyPy's traces call ``functions`` rather than copy them in, from ``tune`` on (at once
    if it has run). Functions not written in Python (the mypyc build's, built-ins) are skipped."""
    for fn in functions:
        code = getattr(fn, "__code__", None)
        if not isinstance(code, CodeType) or code in _not_inlined:    # not Python code (CPython's
            continue                                                   # mypyc build, PyPy's built-ins), or named already
        _not_inlined.append(code)
        if _pypyjit is not None:
            _pypyjit.dont_trace_here(0, False, code)


def tune() -> bool:
    """Once per process, on PyPy: set ``DATAPLANE_PYPY_JIT`` or ``PARAMS`` as the JIT's parameters
    and mark the ``not_inlined`` functions; True if it did."""
    global tuned, _pypyjit
    if tuned:
        return False
    tuned = True
    params = os.environ.get("DATAPLANE_PYPY_JIT", PARAMS).strip()
    if not params or params.lower() == "off":
        return False
    try:
        import pypyjit  # type: ignore[import-not-found]
    except ImportError:
        return False
    try:
        pypyjit.set_param(params)
    except ValueError:
        sys.stderr.write(f"dataplane: PyPy's JIT refused the parameters {params!r} (DATAPLANE_PYPY_JIT sets "
                         "them); it keeps its own\n")
        return False
    _pypyjit = pypyjit
    for code in _not_inlined:
        pypyjit.dont_trace_here(0, False, code)
    return True
