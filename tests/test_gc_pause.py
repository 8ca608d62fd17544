"""The collector is paused inside ``paused_gc`` and left as it was found afterwards."""
from __future__ import annotations

import gc
import sys

import pytest

from dataplane.gc_pause import paused_gc

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
