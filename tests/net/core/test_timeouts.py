"""``Timeouts`` (one pending event for a queue of fixed-delay timeouts) runs as one event per
timeout would: the same callbacks at the same times in the same order against other actors'
events at the same nanosecond, the same event count, the same end of the run, and pending work
at the same moments. The reference is ``Host.timer``'s way: a ``Timer`` and an event of its own."""
from __future__ import annotations

import random
from typing import Any

import pytest

from dataplane.net.core.sim import SimulationTimeError, Simulator
from dataplane.net.core.timeouts import Timeouts
from dataplane.net.hosts.timer import Timer

DELAY = 100


class OwnEvents:
    """The reference: every timeout an event of its own (``Host.timer``)."""

    def __init__(self, sim: Simulator, delay: int, fn: Any, actor: int):
        self.sim, self.delay, self.fn = sim, delay, fn

    def set(self, *args: Any) -> Timer:
        t = Timer(self.fn, args)
        self.sim.schedule(self.delay, t._fire)
        return t


def drive(kind: type, seed: int, steps: int = 400, cancel_p: float = 0.03, until: int | None = None,
          progress: bool = False) -> dict[str, Any]:
    """Actor 2 sets a timeout every few ns and at each step cancels each one still set with
    probability ``cancel_p`` (so not in order);
    a fired one sets another (a retransmission); actors 1 and 3 log events that tie with the
    deadlines. Returns the log, the event count, the clock at the end and pending work seen."""
    sim = Simulator()
    for _ in range(3):
        sim.add_actor()
    rng = random.Random(seed)
    log: list[tuple] = []
    live: list = []
    pending_seen: list[bool] = []

    def fired(i: int) -> None:
        log.append(("fired", sim.now, sim.actor, i))
        if rng.random() < 0.5:
            live.append(q.set(i + 10_000))

    q = kind(sim, DELAY, fired, 2)

    def host_step(i: int) -> None:
        live.append(q.set(i))
        for t in list(live):
            if rng.random() < cancel_p:
                t.cancel()
                live.remove(t)
        pending_seen.append(sim.pending > 0)
        if i < steps:
            sim.schedule(rng.choice((0, 1, 3, 7)), host_step, i + 1)

    def other(tag: str, i: int) -> None:
        log.append((tag, sim.now, sim.actor, i))
        pending_seen.append(sim.pending > 0)
        if i < steps // 2:
            sim.schedule(rng.choice((1, 2, 5, DELAY)), other, tag, i + 1)

    sim.schedule_for(2, 0, host_step, 0)
    sim.schedule_for(1, DELAY, other, "low", 0)
    sim.schedule_for(3, DELAY, other, "high", 0)
    hook = (lambda now: log.append(("progress", now, sim.events_run))) if progress else None
    if until is not None:
        while sim.pending:
            sim.run(until_ns=sim.now + until, on_progress=hook, progress_every=50)
            log.append(("window", sim.now))
        sim.run(on_progress=hook, progress_every=50)   # the clock after an open-ended run
    else:
        sim.run(on_progress=hook, progress_every=50)
    return {"log": log, "events": sim.events_run, "now": sim.now, "pending": pending_seen}


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("cancel_p", [0.0, 0.03, 1.0])
def test_the_run_is_the_one_with_an_event_per_timeout(seed: int, cancel_p: float) -> None:
    """Fired callbacks (time, actor, order among ties), the count, the end and pending work agree."""
    ref = drive(OwnEvents, seed, cancel_p=cancel_p)
    got = drive(Timeouts, seed, cancel_p=cancel_p)
    assert any(e[0] == "fired" for e in ref["log"]) == (cancel_p < 1.0)
    assert got == ref


def test_the_same_in_windows_and_with_progress_reports() -> None:
    """Runs cut at ``until_ns`` (the clock and what ran by then) and the counting loop's reports
    give the same totals."""
    ref = drive(OwnEvents, 4, until=37, progress=True)
    got = drive(Timeouts, 4, until=37, progress=True)
    assert got["now"] == ref["now"] and got["events"] == ref["events"] and got["pending"] == ref["pending"]
    # The counting loop's reports come every 50 events it pops: fewer pop here, so they differ.
    fired = [e for e in ref["log"] if e[0] != "progress"]
    assert [e for e in got["log"] if e[0] != "progress"] == fired and any(e[0] == "window" for e in fired)


def test_fewer_events_wait_when_nearly_all_are_cancelled() -> None:
    """The point of it: cancelled timeouts do not wait in the heap (one per queue does)."""
    sims = []
    for kind in (OwnEvents, Timeouts):
        sim = Simulator()
        sim.add_actor()
        q = kind(sim, DELAY, lambda: None, 1)

        def step(i: int, q: Any = q, sim: Simulator = sim) -> None:
            q.set().cancel() if i % 2 else q.set()      # every other timeout cancelled at once
            if i < 50:
                sim.schedule(1, step, i + 1)
        sim.schedule_for(1, 0, step, 0)
        sim.run(until_ns=50)
        sims.append(sim.pending)
    assert sims[0] == 51 + 0 and sims[1] <= 27


@pytest.mark.parametrize("n", [1, 2, 3])
def test_all_cancelled_the_run_ends_at_the_last_deadline(n: int) -> None:
    """One, two or three timeouts, all cancelled: the run's last event is the last one's time, and
    it counts n events, as n no-op timers would."""
    sim = Simulator()
    sim.add_actor()
    q = Timeouts(sim, DELAY, lambda: None, 1)

    def start() -> None:
        for i in range(n):
            sim.schedule(i, lambda: q.set().cancel())
    sim.schedule_for(1, 0, start)
    sim.run()
    assert sim.now == DELAY + n - 1 and sim.events_run == 1 + n + n and sim.pending == 0


def test_another_actor_gets_an_event_of_its_own_in_its_place() -> None:
    """A timeout set by the world or another node is ordered by its own key, as Host.timer's."""
    for kind in (OwnEvents, Timeouts):
        sim = Simulator()
        sim.add_actor()
        sim.add_actor()
        seen: list = []
        q = kind(sim, DELAY, lambda tag, seen=seen, sim=sim: seen.append((tag, sim.now, sim.actor)), 2)
        sim.schedule_for(2, 0, q.set, "node 2")
        sim.schedule_for(1, 0, q.set, "node 1")      # lower actor: before node 2's at the same time
        q.set("world")
        sim.run()
        assert seen == [("world", DELAY, 0), ("node 1", DELAY, 1), ("node 2", DELAY, 2)], kind


def test_a_negative_delay_is_refused() -> None:
    with pytest.raises(SimulationTimeError, match="-1 ns"):
        Timeouts(Simulator(), -1, lambda: None, 0)
    assert Timeouts(Simulator(), 0, lambda: None, 0) is not None
