"""Pause CPython's cyclic garbage collector while a compiler pass builds large object graphs.

A compile allocates millions of objects that all stay alive (tokens, IR, generated code), and
the collector, triggered by the count of allocations, keeps walking them: on a program of a few
thousand headers that doubled the front end's time. Reference counting still frees what a pass
drops, and nothing it builds is cyclic garbage worth collecting early, so the collector is
paused for the pass and its previous state restored. PyPy has no reference counting: its
collector is what frees memory at all (pausing it took a 10,000-header compile to 11 GB), so
there the pause does nothing.

A command pauses it the same way while it starts (``pause_for_startup``): imports and a loaded
program are objects that all stay alive, and ``end_startup_pause`` turns it back on once they
are made, with them frozen (``gc.freeze``) out of its walks.
"""
from __future__ import annotations

import gc
import sys
from contextlib import contextmanager
from typing import Iterator

_REFCOUNTED = sys.implementation.name == "cpython"


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector inside the ``with`` block (on CPython); re-enable it after if it was on."""
    if not _REFCOUNTED:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_STARTUP_PAUSE = False   # the collector was turned off by ``pause_for_startup`` (one per process)


def pause_for_startup() -> None:
    """Turn the cyclic collector off (CPython, if it was on) until ``end_startup_pause``."""
    global _STARTUP_PAUSE
    if _REFCOUNTED and gc.isenabled():
        _STARTUP_PAUSE = True
        gc.disable()


def end_startup_pause() -> None:
    """The collector back on after ``pause_for_startup``, what was made while it was off left out
    of its walks (``gc.freeze``); nothing if it was not paused for start-up (or already resumed)."""
    global _STARTUP_PAUSE
    if _STARTUP_PAUSE:
        _STARTUP_PAUSE = False
        gc.freeze()
        gc.enable()
