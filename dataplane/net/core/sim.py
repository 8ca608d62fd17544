"""The discrete-event core: an integer nanosecond clock, a heap of callbacks, a seeded RNG.

Events at the same time run in the order they were scheduled (a sequence number breaks
ties), and nothing reads the wall clock, so a run repeats exactly for the same inputs
and seed. The core knows nothing about packets. A heap entry is ``(time, seq, fn, args)``;
``Port._wire`` (link.py) pushes its arrivals in that form itself, the hottest call of a run.
"""
from __future__ import annotations

import heapq
import random
from typing import Any, Callable

from dataplane.errors import DataplaneError

_heappush = heapq.heappush
_heappop = heapq.heappop


class SimulationTimeError(DataplaneError, ValueError):
    """An event was scheduled before the current time: the clock never runs backwards."""

    code = "sim-time"


class Simulator:
    """Clock, event heap and random source shared by everything in one simulated network."""

    __slots__ = ("now", "_heap", "_seq", "rng", "events_run", "_stopped")

    def __init__(self, seed: int = 0):
        self.now = 0
        self._heap: list[tuple[int, int, Callable, tuple]] = []
        self._seq = 0
        self.rng = random.Random(seed)
        self.events_run = 0
        self._stopped = False

    def schedule(self, delay_ns: int, fn: Callable, *args: Any) -> None:
        """Run ``fn(*args)`` ``delay_ns`` nanoseconds from now; a negative delay is refused."""
        if delay_ns < 0:
            raise SimulationTimeError(f"cannot schedule {_name(fn)} {-delay_ns} ns in the past "
                                      f"(delay {delay_ns} ns at t={self.now} ns)")
        self._seq = seq = self._seq + 1
        _heappush(self._heap, (self.now + delay_ns, seq, fn, args))

    def at(self, time_ns: int, fn: Callable, *args: Any) -> None:
        """Run ``fn(*args)`` at absolute time ``time_ns``; a time before now is refused (callers that
        mean "now or later" say ``max(t, sim.now)``)."""
        if time_ns < self.now:
            raise SimulationTimeError(f"cannot schedule {_name(fn)} at t={time_ns} ns: the clock is "
                                      f"already at t={self.now} ns")
        self._seq = seq = self._seq + 1
        _heappush(self._heap, (time_ns, seq, fn, args))

    def stop(self) -> None:
        self._stopped = True

    def run(self, until_ns: int | None = None, on_progress: Callable[[int], None] | None = None,
            progress_every: int = 200_000) -> None:
        """Run events in time order until the heap is empty, ``until_ns`` is passed, or ``stop()``."""
        heap = self._heap
        pop = _heappop
        self._stopped = False
        if on_progress is None:
            # No per-event counting: every event run was in the heap at the start or was
            # scheduled since (each schedule bumps _seq), and is no longer in the heap.
            seq0 = self._seq
            n0 = len(heap)
            if until_ns is None:
                while heap:
                    t, _, fn, args = pop(heap)
                    self.now = t
                    fn(*args)
                    if self._stopped:
                        break
            else:
                while heap:
                    t, seq, fn, args = pop(heap)
                    if t > until_ns:
                        _heappush(heap, (t, seq, fn, args))   # (time, seq) is unique: same place
                        break
                    self.now = t
                    fn(*args)
                    if self._stopped:
                        break
            self.events_run += self._seq - seq0 + n0 - len(heap)
        else:
            count = self.events_run
            limit = float("inf") if until_ns is None else until_ns
            next_report = count + progress_every
            while heap and not self._stopped:
                if heap[0][0] > limit:
                    break
                t, _, fn, args = pop(heap)
                self.now = t
                fn(*args)
                count += 1
                if count >= next_report:
                    self.events_run = count
                    on_progress(t)
                    next_report = count + progress_every
            self.events_run = count
        if until_ns is not None and self.now < until_ns and not self._stopped:
            self.now = until_ns

    @property
    def pending(self) -> int:
        return len(self._heap)


def _name(fn: Callable) -> str:
    """What an event runs, for a message: ``Link._done``, or the callable's repr."""
    return getattr(fn, "__qualname__", None) or repr(fn)
