"""A GPU on a host: it runs its program (``program.gpu_program``), a generator of what to do next.

The program yields commands and the worker carries them out in simulated time, as a GPU's
compute stream with its communicator streams beside it:

* ``Compute(ns, kind)``: busy for ``ns`` (times ``slowdown``: a straggler), recorded as ``kind``;
* ``Submit(comm, plan, label)``: queue a collective on one of the GPU's communicators (its
  ``CommRank``, which runs them in order beside the compute); the program gets a ``Handle`` back;
* ``Wait(handles, kind)``: stalled until they are done (the time is recorded as ``kind``:
  exposed communication, or the pipeline's wait for a neighbour's activations);
* ``Step(number)``: a step starts (the previous one ends).

``timeline`` holds (start ns, end ns, kind) for every compute and every wait; ``step_starts``
when each step began and ``done_ns`` when the program ended: plain data for the report and for
gathering from MPI ranks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generator, Sequence

from dataplane.net.collectives.comm import CommRank
from dataplane.net.collectives.plan import Plan

__all__ = ["Compute", "Submit", "Wait", "Step", "Handle", "GpuWorker"]


@dataclass(frozen=True)
class Compute:
    ns: int
    kind: str


@dataclass(frozen=True)
class Submit:
    comm: CommRank
    plan: Plan
    label: str


@dataclass(frozen=True)
class Wait:
    handles: Sequence["Handle"]
    kind: str


@dataclass(frozen=True)
class Step:
    number: int


class Handle:
    """A submitted collective: ``done`` once this GPU's part of it has finished."""

    __slots__ = ("done", "_waiter")

    def __init__(self) -> None:
        self.done = False
        self._waiter: Callable[[], None] | None = None

    def finish(self, _run: Any = None) -> None:
        self.done = True
        if self._waiter is not None:
            waiter, self._waiter = self._waiter, None
            waiter()


Program = Generator[Any, Any, None]


class GpuWorker:
    """One GPU (module docstring); ``start()`` runs its program from now."""

    def __init__(self, host: Any, gpu: int, program: Program, slowdown: float = 1.0):
        if slowdown <= 0:
            raise ValueError("slowdown must be positive")
        self.host, self.sim, self.gpu = host, host.sim, gpu
        self.slowdown = slowdown
        self.timeline: list[tuple[int, int, str]] = []
        self.step_starts: list[int] = []
        self.done_ns: int | None = None
        self._program = program
        self._waiting: list[Handle] = []
        self._wait_kind = ""
        self._wait_start = 0

    def start(self, at_ns: int = 0) -> None:
        self.sim.schedule_for(self.host.actor, at_ns, self._resume, None)

    def _resume(self, value: Any) -> None:
        program, sim = self._program, self.sim
        while True:
            try:
                cmd = program.send(value)
            except StopIteration:
                self.done_ns = sim.now
                return
            value = None
            if type(cmd) is Compute:
                ns = round(cmd.ns * self.slowdown)
                if ns > 0:
                    self.timeline.append((sim.now, sim.now + ns, cmd.kind))
                    sim.schedule(ns, self._resume, None)
                    return
            elif type(cmd) is Submit:
                handle = Handle()
                cmd.comm.submit(cmd.plan, label=cmd.label, on_done=handle.finish)
                value = handle
            elif type(cmd) is Wait:
                pending = [h for h in cmd.handles if not h.done]
                if pending:
                    self._waiting, self._wait_kind, self._wait_start = pending, cmd.kind, sim.now
                    self._arm()
                    return
            elif type(cmd) is Step:
                self.step_starts.append(sim.now)
            else:
                raise TypeError(f"a GPU program yielded {cmd!r}")

    def _arm(self) -> None:
        while self._waiting and self._waiting[-1].done:
            self._waiting.pop()
        if self._waiting:
            self._waiting[-1]._waiter = self._arm
            return
        now = self.sim.now
        if now > self._wait_start:
            self.timeline.append((self._wait_start, now, self._wait_kind))
        self._resume(None)
