"""Which engine runs a device's packets: ``auto`` (the batch engine when it accepts the program,
else the per-packet engine; always the per-packet engine on PyPy), ``batch`` (refusal is an
error) or ``packet``.

A device's batch pipeline is compiled once and kept (so is a refusal), next to the device. The
first one compiled in a process has glibc keep freed memory for the next batch (``heap``).
"""
from __future__ import annotations

import platform
import weakref
from typing import Any

from dataplane.engine.batch.refuse import BatchUnsupported

ENGINES = ("auto", "batch", "packet")
_compiled: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def batch_pipeline(dp) -> Any:
    """The device's batch pipeline; raises ``BatchUnsupported`` (the same reason every time)."""
    got = _compiled.get(dp)
    if got is None:
        from dataplane.engine.batch.heap import keep_freed_memory
        from dataplane.engine.batch.v1model import BatchV1Model

        keep_freed_memory()
        try:
            got = BatchV1Model(dp)
        except BatchUnsupported as err:
            got = err
        _compiled[dp] = got
    if isinstance(got, BatchUnsupported):
        raise got
    return got


def choose(dp, engine: str) -> tuple[Any, str]:
    """(batch pipeline or None for the per-packet engine, why). ``batch`` raises the refusal."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "packet":
        return None, "per-packet engine, as asked"
    if engine == "auto" and platform.python_implementation() == "PyPy":
        # Measured (tools/bench_pps.py): PyPy's JIT runs the per-packet engine about 4.5 times
        # faster than numpy, which PyPy reaches through its slow C-API layer, runs batches.
        return None, "per-packet engine (on PyPy the JIT-compiled per-packet engine is faster than numpy batches)"
    try:
        return batch_pipeline(dp), "batch engine"
    except BatchUnsupported as err:
        if engine == "batch":
            raise BatchUnsupported(f"--engine batch: the batch engine cannot run this program: {err}") from None
        return None, f"per-packet engine (the batch engine cannot run this program: {err})"
