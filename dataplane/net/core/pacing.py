"""Simulated time paced to the wall clock, and how far behind it the simulator fell.

``run --serve`` (``dataplane.net.devices.live``) and ``run --realtime``
(``dataplane.net.netns.realtime``) share this loop: at every step the simulator runs every
event up to the wall-clock time elapsed since the start, then waits (for the next event, for
a tick, or for packets from outside). A step that ends later than the time it ran to was
late by the difference: its events ran that much after the wall clock said they happen.
The pacer keeps that **lag** for every step that ran events (idle steps would fill the p99
with zeros) and counts the packets the switches took in, so a run can say what packet rate
it sustained in real time and whether it kept up.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class PaceReport:
    """What a paced run measured."""
    wall_s: float                # wall-clock time from the start to the end of the run
    sim_ns: int                  # simulated time reached
    steps: int                   # steps that ran events
    max_lag_ns: int
    p99_lag_ns: int
    packets: int                 # packets the switches (and DPUs) took in
    busiest: str | None          # the switch that took in the most of them

    @property
    def packet_rate(self) -> float:
        """Packets per wall-clock second through the switches."""
        return self.packets / self.wall_s if self.wall_s > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"wall_s": round(self.wall_s, 3), "sim_ns": self.sim_ns, "busy_steps": self.steps,
                "max_lag_ns": self.max_lag_ns, "p99_lag_ns": self.p99_lag_ns, "packets": self.packets,
                "packet_rate_pps": round(self.packet_rate, 1), "busiest_switch": self.busiest}


class WallClockPacer:
    """Runs ``step(target_ns)`` (which must run the simulator up to ``target_ns``) at wall-clock pace.

    ``warn_lag_ns``: ``on_late(lag_ns, sim_ns)`` is called the first time a step is later than
    this, and again each time the lag doubles, so a run that cannot keep up says so while it runs.
    """

    def __init__(self, net: Any, step: Callable[[int], None], *, warn_lag_ns: int = 1_000_000,
                 on_late: Callable[[int, int], None] | None = None):
        self.net = net
        self.step = step
        self.warn_lag_ns = warn_lag_ns
        self.on_late = on_late
        self.lags: list[int] = []
        self.started_at: float | None = None     # time.monotonic() of simulated time 0
        self.ended_at: float | None = None
        self._next_warning = warn_lag_ns
        self._began = 0.0
        self._packets0: dict[str, int] = {}

    def elapsed_ns(self) -> int:
        """Wall-clock nanoseconds since the start (0 before it)."""
        if self.started_at is None:
            return 0
        return int((time.monotonic() - self.started_at) * 1e9)

    def next_event_ns(self) -> int | None:
        """Simulated time of the next pending event, or None when nothing is pending."""
        heap = self.net.sim._heap
        return heap[0][0] if heap else None

    def run(self, until_ns: int | None, wait: Callable[[float], None], stopped: Callable[[], bool],
            on_progress: Callable[[int], None] | None = None, max_wait_s: float = 0.05) -> bool:
        """Pace until ``until_ns`` (None: until stopped). Between steps ``wait(seconds)`` sleeps
        at most until the next event is due (and at most ``max_wait_s``); it may return early
        (packets arrived). Returns True if the run reached ``until_ns``, False if stopped.
        Simulated time goes on from where it is: the wall clock of the start is its ``now``."""
        sim = self.net.sim
        self._began = time.monotonic()
        self._packets0 = self._packets()
        self.started_at = self._began - sim.now / 1e9
        try:
            while not stopped():
                target = self.elapsed_ns()
                if until_ns is not None:
                    target = min(target, until_ns)
                before = sim.events_run
                self.step(target)
                if sim.events_run != before:
                    self._note_lag(self.elapsed_ns() - target, target)
                if on_progress is not None:
                    on_progress(sim.now)
                if until_ns is not None and sim.now >= until_ns:
                    return True
                due = self.next_event_ns()
                pause = max_wait_s if due is None else min(max_wait_s, (due - self.elapsed_ns()) / 1e9)
                if pause > 0:
                    wait(pause)
            return False
        finally:
            self.ended_at = time.monotonic()

    def _note_lag(self, lag: int, sim_ns: int) -> None:
        lag = max(lag, 0)
        self.lags.append(lag)
        if lag >= self._next_warning and self.on_late is not None:
            self.on_late(lag, sim_ns)
            while self._next_warning <= lag:
                self._next_warning *= 2

    def _packets(self) -> dict[str, int]:
        """Packets each switch and DPU has taken in so far."""
        counts = {name: node.packets_in for name, node in self.net.switches.items()}
        for name, dpu in getattr(self.net, "dpus", {}).items():
            counts[name] = dpu.stats.processed
        return counts

    def report(self) -> PaceReport:
        """The lag and packet figures of the run so far."""
        ordered = sorted(self.lags)
        counts = self._packets()
        # nearest rank: the ceil(0.99 N)-th smallest lag (at least 99% of the steps are at or below it)
        p99 = ordered[-(-len(ordered) * 99 // 100) - 1] if ordered else 0
        counts = {name: n - self._packets0.get(name, 0) for name, n in counts.items()}
        busiest = max(counts, key=counts.get) if counts and max(counts.values()) else None
        end = self.ended_at or time.monotonic()
        wall = end - self._began if self.started_at is not None else 0.0
        return PaceReport(wall_s=wall, sim_ns=self.net.sim.now, steps=len(ordered),
                          max_lag_ns=ordered[-1] if ordered else 0, p99_lag_ns=p99,
                          packets=sum(counts.values()), busiest=busiest)
