"""Timeouts of one fixed delay of which only one at a time waits in the event heap (``Timeouts``).

An app that sets a timeout for every packet it sends and cancels nearly all of them (``InaWorker``:
one per chunk, cancelled when the chunk's result comes back) would, with ``Host.timer``, leave each
cancelled timer in the heap until its time, where it runs and does nothing: a k=16 fat-tree's 1,024
workers keep some 600,000 of them pending, a fifth of the events run are theirs, and every other
event's push and pop climbs a heap ten times larger than the work in flight.

Here every ``set`` takes its key from the running actor exactly as ``Simulator.schedule`` would
(so no other event's key changes), and goes into a queue in the order set. All have the same delay
and, if set by one actor, come in order of (time, key); so only the first of the queue needs an
event, at that (time, key): when it runs, the cancelled timeouts after it are dropped and the
next one still set gets its event, at its own (time, key). A timeout that fires therefore runs at
the same place in the order of events as its own event would have, and the run is the same event
for event, less the no-op events of cancelled timeouts:

- *the count of events*: a dropped timeout counts as run (``Simulator.elided``), so
  ``events_run`` and the report's count are those of the run with one event per timeout;
- *the end of the run*: when every timeout left in the queue is cancelled, the last of them
  keeps its event (a no-op), so the run's last event, and the clock after an open-ended run, are
  those of the run with one event per timeout; pending work (``Simulator.pending``) is never
  nil while a timeout's event would have been.

A ``set`` by another actor than the one the queue is for (``actor``) gets its own event, as
``Host.timer`` gives it: its key may order it before timeouts already queued.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Callable

from dataplane.net.core.sim import SimulationTimeError, Simulator


class Timeout:
    """A timeout set on ``Timeouts``; ``cancel()`` makes it do nothing when its time comes."""

    __slots__ = ("time", "key", "args", "cancelled")

    def __init__(self, time_ns: int, key: int, args: tuple):
        self.time, self.key, self.args, self.cancelled = time_ns, key, args, False

    def cancel(self) -> None:
        self.cancelled = True


class Timeouts:
    """``fn(*args)`` ``delay_ns`` after each ``set(*args)`` unless cancelled; set as ``actor``
    (a node: the host of the app) they share one pending event (module docstring)."""

    __slots__ = ("sim", "delay_ns", "fn", "_actor", "_queue", "_armed")

    def __init__(self, sim: Simulator, delay_ns: int, fn: Callable[..., Any], actor: int):
        if delay_ns < 0:
            raise SimulationTimeError(f"a timeout cannot be {delay_ns} ns: it would be in the past")
        self.sim, self.delay_ns, self.fn, self._actor = sim, delay_ns, fn, actor
        self._queue: deque[Timeout] = deque()     # set, not yet run nor dropped, in order of (time, key)
        self._armed = False                       # the queue's first has its event in the heap

    def set(self, *args: Any) -> Timeout:
        """Run ``fn(*args)`` ``delay_ns`` from now unless the returned timeout is cancelled first."""
        sim = self.sim
        actor = sim.actor
        keys = sim._keys
        keys[actor] = key = keys[actor] + 1
        t = Timeout(sim.now + self.delay_ns, key, args)
        if actor != self._actor:
            # Another actor's key does not follow the queue's order: an event of its own, as
            # Simulator.schedule would push it (it runs as the world, as Host.timer's does).
            if actor:
                sim._push(sim._heap, (t.time, key, self._fire, (t,), actor))
            else:
                keys[actor] -= 1     # schedule takes the key again (and places it on several ranks)
                sim.schedule(self.delay_ns, self._fire, t)
            return t
        q = self._queue
        q.append(t)
        if not self._armed:
            self._armed = True
            sim._push(sim._heap, (t.time, key, self._due, (t,), actor))
        elif len(q) > 2:
            # Cancelled ones right behind the first (a result came back) go now: the last one
            # set stays, so something in the queue is as late as they were.
            while q[1].cancelled and len(q) > 2:
                del q[1]
                sim.elided += 1
        return t

    def __len__(self) -> int:
        """Timeouts set and neither run nor dropped yet (cancelled ones included)."""
        return len(self._queue)

    def _fire(self, t: Timeout) -> None:
        if not t.cancelled:
            self.fn(*t.args)

    def _due(self, t: Timeout) -> None:
        """The queue's first timeout's time: hand the event on, then run it unless cancelled."""
        q = self._queue
        q.popleft()                      # t: only the first of the queue is ever armed
        sim = self.sim
        last = None
        while q and q[0].cancelled:
            last = q.popleft()
            sim.elided += 1
        if q:
            nxt = q[0]
            sim._push(sim._heap, (nxt.time, nxt.key, self._due, (nxt,), self._actor))
        else:
            self._armed = False
            if last is not None:
                # All left were cancelled: the last of them keeps its (no-op) event, so the run
                # ends where it would have.
                sim.elided -= 1
                sim._push(sim._heap, (last.time, last.key, _nothing, (), self._actor))
        if not t.cancelled:
            self.fn(*t.args)


def _nothing() -> None:
    """A cancelled timeout's event (module docstring: the end of the run)."""
