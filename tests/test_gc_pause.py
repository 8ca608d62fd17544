"""The collector is paused inside ``paused_gc`` and left as it was found afterwards; a command's
start-up pause ends once, with what was made frozen."""
from __future__ import annotations

import gc
import sys

import pytest

from dataplane.gc_pause import end_startup_pause, pause_for_startup, paused_gc

CPYTHON = sys.implementation.name == "cpython"


def test_collector_is_off_inside_and_back_on_after_even_on_error():
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with paused_gc():
            assert gc.isenabled() is not CPYTHON   # PyPy's collector is its only way to free memory
            raise RuntimeError
    assert gc.isenabled()


def test_a_collector_disabled_by_the_caller_stays_disabled():
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.skipif(not CPYTHON, reason="PyPy's collector is never paused")
def test_the_start_up_pause_ends_once_with_what_was_made_frozen():
    """Off from ``pause_for_startup`` to ``end_startup_pause``, then on, with the objects made
    meanwhile frozen; a second end does nothing (the collector stays as the caller set it)."""
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    try:
        pause_for_startup()
        assert not gc.isenabled()
        kept = [[i] for i in range(1000)]   # noqa: F841  (objects made while paused)
        end_startup_pause()
        assert gc.isenabled() and gc.get_freeze_count() > frozen
        gc.disable()
        end_startup_pause()
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


@pytest.mark.skipif(not CPYTHON, reason="PyPy's collector is never paused")
def test_the_start_up_pause_leaves_a_collector_the_caller_disabled():
    """A collector already off is not the pause's to turn back on."""
    gc.disable()
    try:
        pause_for_startup()
        end_startup_pause()
        assert not gc.isenabled()
    finally:
        gc.enable()
