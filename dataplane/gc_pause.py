"""Pause Python's cyclic garbage collector while a compiler pass builds large object graphs.

A compile allocates millions of objects that all stay alive (tokens, trees, IR, generated code),
and the collector, triggered by the count of allocations, keeps walking them: on a program of a
few thousand headers that doubled the front end's time. Nothing a pass builds is cyclic garbage
worth collecting early, so the collector is paused for the pass and the previous state restored.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic collector inside the ``with`` block; re-enable it after if it was on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
