"""The event core: time order, ties in scheduling order, stop, limits and the event count."""
import pytest

from dataplane.errors import DataplaneError
from dataplane.net.core.sim import SimulationTimeError, Simulator


def test_ties_run_in_scheduling_order_and_at_now_runs_now():
    sim = Simulator()
    seen = []
    sim.schedule(5, seen.append, "a")
    sim.at(5, seen.append, "b")
    sim.schedule(1, lambda: sim.at(sim.now, seen.append, "now"))   # at the current time: runs at 1
    sim.schedule(5, seen.append, "c")
    sim.schedule(5, sim.schedule, 0, seen.append, "d")             # a zero delay is fine
    sim.run()
    assert seen == ["now", "a", "b", "c", "d"]
    assert sim.events_run == 7 and sim.now == 5 and sim.pending == 0


def test_a_negative_delay_is_refused_and_nothing_is_scheduled():
    """The clock never runs backwards: a negative delay is an error that names the callback."""
    sim = Simulator()
    sim.schedule(3, lambda: None)
    with pytest.raises(SimulationTimeError, match=r"cannot schedule list\.append 2 ns in the past"):
        sim.schedule(-2, [].append, 1)
    assert sim.pending == 1


def test_an_absolute_time_in_the_past_is_refused():
    """``at`` used to clamp a past time to now; it now says what was asked and what the clock reads."""
    sim = Simulator()
    errors = []

    def late():
        try:
            sim.at(4, late)
        except SimulationTimeError as err:
            errors.append(err)
    sim.at(10, late)
    sim.run()
    assert len(errors) == 1 and "at t=4 ns: the clock is already at t=10 ns" in str(errors[0])
    assert isinstance(errors[0], DataplaneError) and errors[0].code == "sim-time"
    assert sim.pending == 0 and sim.now == 10


def test_until_leaves_later_events_in_place_and_counts_only_those_run():
    sim = Simulator()
    seen = []
    for t in (10, 20, 30, 30, 40):
        sim.at(t, seen.append, t)
    sim.run(until_ns=30)
    assert seen == [10, 20, 30, 30] and sim.events_run == 4 and sim.pending == 1 and sim.now == 30
    sim.run(until_ns=35)
    assert sim.events_run == 4 and sim.now == 35
    sim.at(35, seen.append, 35)          # scheduled after the first run: still before 40
    sim.run()
    assert seen == [10, 20, 30, 30, 35, 40] and sim.events_run == 6 and sim.now == 40


def test_stop_ends_the_run_after_the_current_event():
    sim = Simulator()
    seen = []

    def tick(i):
        seen.append(i)
        sim.schedule(1, tick, i + 1)
        if i == 3:
            sim.stop()

    sim.schedule(0, tick, 0)
    sim.run(until_ns=100)
    assert seen == [0, 1, 2, 3] and sim.now == 3 and sim.events_run == 4 and sim.pending == 1


def test_progress_reports_every_n_events_with_the_same_count():
    sim = Simulator()
    for t in range(10):
        sim.at(t, lambda: None)
    reports = []
    sim.run(until_ns=8, on_progress=lambda t: reports.append((t, sim.events_run)), progress_every=3)
    assert reports == [(2, 3), (5, 6), (8, 9)] and sim.events_run == 9 and sim.pending == 1


class _Actor:
    """A stand-in node: an actor number, and a log of what ran as it."""

    def __init__(self, sim, log):
        self.actor = sim.add_actor()
        self.sim, self.log = sim, log

    def ping(self, tag, then=None):
        self.log.append((self.sim.now, self.sim.actor, tag))
        if then is not None:
            then.sim.schedule_for(then.actor, 10, then.ping, f"{tag}>{then.actor}")


def _tie_run(order):
    """Three actors each schedule one event for t=10 at setup, in ``order``; at 10 each sends one
    more event to actor 1 for t=20. Returns what ran."""
    sim = Simulator()
    log = []
    actors = [_Actor(sim, log) for _ in range(3)]
    for i in order:
        sim.at(10, actors[i].ping, f"a{i}", actors[0])
    sim.run()
    return log


def test_ties_order_by_source_actor_not_by_insertion_across_actors():
    """The order at one nanosecond is (source actor, its own count), so the setup order of
    events of different actors does not change it; each event runs as the actor owning it."""
    first = _tie_run([0, 1, 2])
    assert [entry[2] for entry in first[3:]] == ["a0>1", "a1>1", "a2>1"]
    assert first[3:] == _tie_run([2, 0, 1])[3:] == _tie_run([1, 2, 0])[3:]
    assert {(t, actor) for t, actor, _ in first[3:]} == {(20, 1)}
    assert [actor for _, actor, _ in first[:3]] == [1, 2, 3]   # owner_of: the bound object's actor


def test_world_events_keep_their_scheduling_order():
    sim = Simulator()
    seen = []
    for tag in "cab":
        sim.at(7, seen.append, tag)
    sim.run()
    assert seen == ["c", "a", "b"] and sim.actor == 0
