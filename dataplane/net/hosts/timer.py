"""Timers apps set on a host (``Host.timer``), which they can cancel."""
from __future__ import annotations

from typing import Callable


class Timer:
    """A handle for ``Host.timer``; the simulator cannot remove events, so cancelling just
    makes the callback a no-op when its time comes."""
    __slots__ = ("fn", "args", "cancelled")

    def __init__(self, fn: Callable, args: tuple):
        self.fn, self.args, self.cancelled = fn, args, False

    def cancel(self) -> None:
        self.cancelled = True

    def _fire(self) -> None:
        if not self.cancelled:
            self.fn(*self.args)
