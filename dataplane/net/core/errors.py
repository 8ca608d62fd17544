"""The event core's errors, apart from ``sim.py`` so that they stay plain Python classes when the
simulator is compiled (``dataplane.compiled``): a compiled subclass would not keep its ``code``."""
from __future__ import annotations

from dataplane.errors import DataplaneError


class SimulationTimeError(DataplaneError, ValueError):
    """An event was scheduled before the current time: the clock never runs backwards."""

    code = "sim-time"
