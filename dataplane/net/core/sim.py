"""The discrete-event core: an integer nanosecond clock, a heap of callbacks, a seeded RNG.

Nothing reads the wall clock, so a run repeats exactly for the same inputs and seed, and the
order of events at the same nanosecond does not depend on how the network is split over
processes (``dataplane.net.parallel``): every event carries the **actor** it runs as (a node,
or 0, the world: setup code, failures) and a key ``source actor << 40 | the source's count of
events it has scheduled``. The heap orders by ``(time, key)``: at one nanosecond, events
scheduled by lower-numbered actors first, each actor's own in the order it scheduled them.
An actor's count depends only on what that actor ran, so the key of an event is the same
whichever process schedules it. An entry is ``(time, key, fn, args, actor)``, kept in a list
that is sorted while short and a heap while long (``eventheap``); whoever adds one calls
``sim._push(list, entry)``, which is the function for the list's form. ``Port._wire`` (link.py)
pushes its arrivals in that form itself, the hottest call of a run.

Code running as the world (before ``run``, in a failure event) schedules for the node that owns
the callable (``owner_of``: a node, a port's node, an app's host, a controller handle's switch);
``schedule_for`` names the actor outright.

On PyPy the first ``run`` of a process tunes the JIT (``pypy_jit``).
"""
from __future__ import annotations

import heapq
import random
from typing import Any, Callable

from dataplane import pypy_jit
from dataplane.net.core import eventheap
from dataplane.net.core.errors import SimulationTimeError
from dataplane.net.core.eventheap import heappop as _heappop
from dataplane.net.core.eventheap import insort_by_time_key as _insort
from dataplane.net.core.mypyc_attr import mypyc_attr
from dataplane.progress import sim_hook

_heappush = heapq.heappush

ACTOR_SHIFT = 40   # an actor may schedule 2**40 events before its keys reach the next actor's
WORLD = 0


def owner_of(fn: Callable) -> int:
    """The actor a callable scheduled by the world runs as: found through the bound object's
    ``actor`` (nodes; the network is the world), or its ``node`` or ``host``; else the world."""
    obj = getattr(fn, "__self__", None)
    for _ in range(3):
        if obj is None:
            return WORLD
        actor = getattr(obj, "actor", None)
        if type(actor) is int:
            return actor
        obj = getattr(obj, "node", None) or getattr(obj, "host", None)
    return WORLD


@mypyc_attr(allow_interpreted_subclasses=True)     # dataplane.net.parallel's ParallelSimulator
class Simulator:
    """Clock, event heap and random source shared by everything in one simulated network."""

    __slots__ = ("now", "_heap", "_keys", "actor", "seed", "rng", "events_run", "_stopped", "background", "elided",
                 "_sorted", "_push")

    def __init__(self, seed: int = 0):
        self.now = 0
        self._heap: list[tuple[int, int, Callable, tuple, int]] = []
        self._keys = [0]          # per actor: the key of the last event it scheduled
        self.actor = WORLD        # the actor whose event is running (the world outside events)
        self.seed = seed
        self.rng = random.Random(seed)
        self.events_run = 0
        self._stopped = False
        # Pending events of observers that must not keep a run going (the report's sampler):
        # ``pending - background`` is the work left. Observers keep the count themselves.
        self.background = 0
        # Events that took their key and were dropped before their time because they would do
        # nothing (``timeouts``: cancelled timeouts): they count as run, as they would have.
        self.elided = 0
        # Whether ``_heap`` is a sorted list (else a heap), and the push that keeps it so (``eventheap``).
        self._sorted = eventheap.SORTED_MAX > 0
        self._push: Callable[[list, Any], None] = _insort if self._sorted else _heappush

    def _pop_either(self, heap: list) -> Any:
        """The least entry of ``heap``, the simulator's list in whichever form it is (``eventheap``):
        ``pop(0)`` from a sorted list, which becomes a heap (it is one already) once more than
        ``SORTED_MAX`` entries are left; ``heappop`` from a heap, which is sorted again once fewer
        than ``SORTED_MIN`` are left. ``run`` pops with it only where the list may be sorted (PyPy);
        elsewhere with ``heappop`` itself, so CPython's loop is what it was."""
        if self._sorted:
            entry = heap.pop(0)
            if len(heap) > eventheap.SORTED_MAX:
                self._sorted = False
                self._push = _heappush
            return entry
        entry = _heappop(heap)
        if len(heap) < eventheap.SORTED_MIN:
            heap.sort()
            self._sorted = True
            self._push = _insort
        return entry

    def add_actor(self) -> int:
        """A new actor (a node) numbered after the existing ones; returns its number."""
        actor = len(self._keys)
        self._keys.append(actor << ACTOR_SHIFT)
        return actor

    # schedule, at and schedule_for repeat their few lines on purpose: they run once per event,
    # and a shared helper would add a Python call to every one (bench_sim measures it).
    def schedule(self, delay_ns: int, fn: Callable, *args: Any) -> None:
        """Run ``fn(*args)`` ``delay_ns`` nanoseconds from now, as the running actor; a negative
        delay is refused."""
        if delay_ns < 0:
            raise SimulationTimeError(f"cannot schedule {_name(fn)} {-delay_ns} ns in the past "
                                      f"(delay {delay_ns} ns at t={self.now} ns)")
        actor = self.actor
        keys = self._keys
        keys[actor] = key = keys[actor] + 1
        self._push(self._heap, (self.now + delay_ns, key, fn, args, actor or owner_of(fn)))

    def at(self, time_ns: int, fn: Callable, *args: Any) -> None:
        """Run ``fn(*args)`` at absolute time ``time_ns``, as the running actor; a time before now is
        refused (callers that mean "now or later" say ``max(t, sim.now)``)."""
        if time_ns < self.now:
            raise SimulationTimeError(f"cannot schedule {_name(fn)} at t={time_ns} ns: the clock is "
                                      f"already at t={self.now} ns")
        actor = self.actor
        keys = self._keys
        keys[actor] = key = keys[actor] + 1
        self._push(self._heap, (time_ns, key, fn, args, actor or owner_of(fn)))

    def schedule_for(self, actor: int, delay_ns: int, fn: Callable, *args: Any) -> None:
        """Run ``fn(*args)`` ``delay_ns`` from now as ``actor`` (the running actor's key)."""
        if delay_ns < 0:
            raise SimulationTimeError(f"cannot schedule {_name(fn)} {-delay_ns} ns in the past "
                                      f"(delay {delay_ns} ns at t={self.now} ns)")
        me = self.actor
        keys = self._keys
        keys[me] = key = keys[me] + 1
        self._push(self._heap, (self.now + delay_ns, key, fn, args, actor))

    def stop(self) -> None:
        self._stopped = True

    def run(self, until_ns: int | None = None, on_progress: Callable[[int], None] | None = None,
            progress_every: int = 2_000) -> None:
        """Run events in time order until the heap is empty, ``until_ns`` is passed, or ``stop()``;
        ``on_progress(now)`` every ``progress_every`` events (default: an open progress line's, if any)."""
        heap = self._heap
        # a heap throughout (CPython, the parallel runtime) pops with heapq's function itself
        pop = self._pop_either if self._sorted or eventheap.SORTED_MAX else _heappop
        self._stopped = False
        if not pypy_jit.tuned:
            pypy_jit.tune()
        if on_progress is None:
            on_progress = sim_hook()     # None unless a terminal shows progress: then the bare loops below
        if on_progress is None:
            # No per-event counting: every event run was in the heap at the start or was
            # scheduled since (each schedule bumps one actor's key), and is no longer in the heap.
            keys0 = sum(self._keys)
            n0 = len(heap)
            if until_ns is None:
                while heap:
                    t, _, fn, args, self.actor = pop(heap)
                    self.now = t
                    fn(*args)
                    if self._stopped:
                        break
            else:
                while heap:
                    t, key, fn, args, actor = pop(heap)
                    if t > until_ns:
                        self._push(heap, (t, key, fn, args, actor))   # (time, key) is unique: same place
                        break
                    self.now = t
                    self.actor = actor
                    fn(*args)
                    if self._stopped:
                        break
            self.events_run += sum(self._keys) - keys0 + n0 - len(heap)
        else:
            count = self.events_run
            elided0 = self.elided
            limit = float("inf") if until_ns is None else until_ns
            next_report = count + progress_every
            while heap and not self._stopped:
                if heap[0][0] > limit:
                    break
                t, _, fn, args, self.actor = pop(heap)
                self.now = t
                fn(*args)
                count += 1
                if count >= next_report:
                    self.events_run = count + self.elided - elided0
                    on_progress(t)
                    next_report = count + progress_every
            self.events_run = count + self.elided - elided0
        self.actor = WORLD
        if until_ns is not None and self.now < until_ns and not self._stopped:
            self.now = until_ns

    @property
    def pending(self) -> int:
        return len(self._heap)


def _name(fn: Callable) -> str:
    """What an event runs, for a message: ``Link._done``, or the callable's repr."""
    return getattr(fn, "__qualname__", None) or repr(fn)
