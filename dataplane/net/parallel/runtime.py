"""One rank's part of a partitioned run: a simulator that keeps only its own nodes' events and
runs in conservative time windows, trading the packets that cross the cut once per window.

Every rank builds the whole network from the same files and runs the same setup (so every
actor's event count, and with it every event key, is what one process would have), but keeps
only the events of the nodes the partition gives it, plus the world's (failures run on every
rank: both ends of a failed cut link must see it). A frame sent over a cut link goes into that
port's outbox instead of the heap (``Port._out``). Granted time windows, as in ns-3's distributed
simulator: all ranks agree on the earliest pending event time T, run every event before
T + lookahead (the smallest latency of a cut link, so nothing sent in the window can arrive in
it), then trade outboxes and the next earliest time in one ``alltoall``. An arrival keeps the key
its sender gave it, so it sorts among the receiver's events exactly as in one process.

Observers (``QueueSampler``) run as the world on every rank and count as background work
(``Simulator.background``): the run ends when no rank has anything else left, as one process
ends when only background work is. Where one process's observer would have stopped itself
(at its first sample with nothing else pending anywhere) is settled after the run: each
observer notes, at every sample, how many other events this rank had run (``observer_mark``),
and ``_settle`` finds the first sample after which no rank ran anything else. A node's background
poller (the PFC watchdog, ``track_poller``) runs on its node's rank only, so it is cut by time:
``_settle`` finds the last event other than a background tick on any rank, as (time, key), and
the poller keeps its polls up to the first one after it.
"""
from __future__ import annotations

import time
from bisect import bisect_left
from heapq import heapify, heappush
from typing import Any, Callable

from dataplane.errors import DataplaneError
from dataplane.net.core.eventheap import heappop
from dataplane.net.core.sim import Simulator, owner_of
from dataplane.net.devices.link import Port

_INF = float("inf")


class ParallelError(DataplaneError):
    """Something a partitioned run cannot do, or a rank that failed."""


class ParallelSimulator(Simulator):
    """The event core of one rank (see the module docstring)."""

    __slots__ = ("local", "comm", "rank", "size", "lookahead_ns", "_key", "cut_ports", "ports_by_link",
                 "world_events", "windows", "cut_messages", "busy_s", "busy_cpu_s", "pack_cpu_s", "sync_s", "window_cpu_s", "local_events", "ran", "observers",
                 "observer_runs", "_observer_ids", "gathered", "window_start", "before_ns", "before_key", "last_other_ns",
                 "last_other_key", "_other_mark", "pollers", "tracking")

    def __init__(self, seed: int, local: list[bool], comm: Any, lookahead_ns: int):
        super().__init__(seed)
        # a heap throughout (eventheap): this rank's loop, windows and exchange use heapq's functions
        self._sorted = False
        self._push = heappush
        self.local = local                 # by actor: does this rank run it (the world: yes)
        self.comm = comm
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.lookahead_ns = lookahead_ns
        self._key = 0                      # the key of the running event (ordering the log)
        self.cut_ports: list[tuple[Port, int, int, int]] = []   # local ports of cut links: (port, peer's rank,
        #                                                           link index, the peer's side: 0 a, 1 b)
        self.ports_by_link: dict[tuple[int, int], Port] = {}
        self.world_events = self.local_events = 0
        self.windows = self.cut_messages = 0
        self.busy_s = self.busy_cpu_s = self.sync_s = 0.0   # wall and CPU time running events; wall time trading
        self.pack_cpu_s = 0.0      # CPU time packing and unpacking the frames that cross the cut
        # CPU time of each window's events: the ranks wait for the slowest at every window, so the
        # sum over windows of the largest is the run's time with a core per rank (DATAPLANE_RANK_STATS).
        self.window_cpu_s: list[float] = []
        self.ran = 0               # events run on this rank, observers' included
        self.observers: list = []  # world observers to settle after the run (``track_observer``)
        self._observer_ids: set[int] = set()
        self.observer_runs = 0     # of ``ran``, the observers' samples
        self.gathered: list = []   # results that gather themselves to rank 0 (``track_gathered``)
        self.window_start = 0      # the time the running window started at
        self.before_ns = 0         # the time and key of the event before the running one (kept before
        self.before_key = 0        # world events, and before every event while ``tracking``)
        self.last_other_ns = 0     # the time and key of this rank's last event other than a background
        self.last_other_key = 0    # tick (an observer's sample, a poller's poll)
        self._other_mark = 0       # the mark at the last background tick
        self.pollers: list = []    # this rank's background pollers to settle after the run (``track_poller``)
        self.tracking = False      # keep ``before_ns`` for every event (a poller's tick needs it)

    # ---- scheduling: as Simulator, keeping only this rank's events ------------------------------------
    def schedule(self, delay_ns: int, fn: Callable, *args: Any) -> None:
        actor = self.actor
        keys = self._keys
        keys[actor] = key = keys[actor] + 1
        dst = actor or _strict_owner(fn)
        if self.local[dst]:
            heappush(self._heap, (self.now + delay_ns, key, fn, args, dst))

    def at(self, time_ns: int, fn: Callable, *args: Any) -> None:
        actor = self.actor
        keys = self._keys
        keys[actor] = key = keys[actor] + 1
        dst = actor or _strict_owner(fn)
        if self.local[dst]:
            now = self.now
            heappush(self._heap, (time_ns if time_ns > now else now, key, fn, args, dst))

    def schedule_for(self, actor: int, delay_ns: int, fn: Callable, *args: Any) -> None:
        me = self.actor
        keys = self._keys
        keys[me] = key = keys[me] + 1
        if self.local[actor]:
            heappush(self._heap, (self.now + delay_ns, key, fn, args, actor))

    def unschedule(self, owner: Any) -> int:
        """Drop the pending events of ``owner``'s methods (a poller stopping after the run, as one
        process's would have); returns how many."""
        heap = self._heap
        kept = [e for e in heap if getattr(e[2], "__self__", None) is not owner]
        dropped = len(heap) - len(kept)
        if dropped:
            heap[:] = kept
            heapify(heap)
        return dropped

    def stop(self) -> None:
        raise ParallelError("stopping a run early (sim.stop) is not supported on more than one rank")

    # ---- running ---------------------------------------------------------------------------------------
    def run(self, until_ns: int | None = None, on_progress: Callable[[int], None] | None = None,
            progress_every: int = 200_000) -> None:
        """Run this rank's part in lockstep with the others until ``until_ns`` (inclusive) or until
        no rank has anything left."""
        heap = self._heap
        limit = _INF if until_ns is None else until_ns
        lookahead = self.lookahead_ns if self.size > 1 else _INF
        world = 0
        ran0 = self.ran
        elided0 = self.elided      # events that count as run without running (Simulator.elided)
        next_report = progress_every
        clock = time.perf_counter
        cpu = time.process_time
        start = self._exchange()
        while True:
            if start > limit or start == _INF:      # inf: nothing left anywhere (until_ns may be None)
                if start == _INF or until_ns is None:
                    break
                # Work is left past until_ns only: one process's observers sample on to it.
                end = until_ns + 1
            else:
                end = min(start + lookahead, limit + 1)
            self.window_start = start
            t0 = clock()
            c0 = cpu()
            while heap and heap[0][0] < end:
                t, key, fn, args, actor = heappop(heap)
                if not actor:
                    world += 1
                    self.before_ns = self.now      # for a background tick: the event before it
                    self.before_key = self._key
                elif self.tracking:
                    self.before_ns = self.now
                    self.before_key = self._key
                self.now = t
                self.actor = actor
                self._key = key
                self.ran += 1          # before the call: an observer reads how many ran before it
                fn(*args)
            self.actor = 0
            if start > limit:
                break
            c1 = cpu() - c0
            self.busy_cpu_s += c1
            self.window_cpu_s.append(c1)
            t1 = clock()
            self.busy_s += t1 - t0
            self.windows += 1
            count = self.ran - ran0
            if on_progress is not None and count >= next_report:
                self.events_run = count
                on_progress(self.now)
                next_report = count + progress_every
            start = self._exchange()
            self.sync_s += clock() - t1
        count = self.ran - ran0 + self.elided - elided0
        self.local_events += count
        self.world_events += world
        self.events_run += count
        if self.ran - self.observer_runs > self._other_mark:
            self.last_other_ns = self.now      # events after the last background tick: the last was one
            self.last_other_key = self._key
        last = self._settle(until_ns, start != _INF)
        self.now = until_ns if until_ns is not None else last

    # ---- observers -----------------------------------------------------------------------------------
    def track_observer(self, observer: Any) -> None:
        """Register a world observer (every rank, in the same order): it calls ``observer_mark``
        at each sample and has ``marks`` (an array) and ``keep(count, until_ns)``."""
        self.observers.append(observer)
        self._observer_ids.add(id(observer))

    def observer_mark(self) -> int:
        """Called by an observer at the start of its sample: the events other than background
        ticks this rank has run before it. Its pending event no longer counts as background."""
        self.background -= 1
        return self.background_tick()

    def track_poller(self, poller: Any, actor: int) -> None:
        """Register a background poller of node ``actor`` (the PFC watchdog; on this rank only if
        it runs the node, where its polls run): it calls
        ``background_tick`` at each poll and polls on whatever else is pending (the rank cannot
        tell inside its window whether another rank has work left); after a run that ran out of
        work, ``poller.settle(end, until_ns)`` cuts its polls where one process's poller would
        have stopped: at its first poll after ``end``, the (time, key) of the last event that was
        not a background tick, on any rank. It returns that poll's time (None: no poll) and the
        events it ran more (less, if negative) than this rank did."""
        if self.local[actor]:
            self.pollers.append(poller)
            self.tracking = True

    def background_tick(self) -> int:
        """Called by an observer's sample or a poller's poll as it starts: not an event that keeps
        the run going. Returns how many other events this rank has run before it."""
        mark = self.ran - 1 - self.observer_runs
        self.observer_runs += 1
        if mark > self._other_mark:     # another event ran since the last tick: the one just before
            self._other_mark = mark
            self.last_other_ns = self.before_ns
            self.last_other_key = self.before_key
        return mark

    def track_gathered(self, result: Any) -> None:
        """Register a result that gathers itself (every rank, in the same order): ``Session.gather``
        calls its ``finish()`` before counting events, sends its ``part()`` to rank 0 and there
        calls ``merge(parts)`` with every rank's, in rank order."""
        self.gathered.append(result)

    def uncount_world(self, events: int) -> None:
        """An observer running as the world took ``events`` back out of ``events_run`` (the
        report's sampler): they ran on every rank, so they leave this rank's and the world's counts."""
        self.local_events -= events
        self.world_events -= events

    def _settle(self, until_ns: int | None, work_left: bool) -> int:
        """Cut every observer's samples where one process's would have stopped (module docstring);
        return the time one process's clock would show after an open-ended run (its last event's).
        Work left at ``until_ns``: one process's observers sampled on to the end, as these did."""
        last_poll = 0
        if not work_left:       # (every rank: the pollers may all be on one)
            end = max(self.comm.allgather((self.last_other_ns, self.last_other_key)))
            for poller in self.pollers:
                t, more = poller.settle(end, until_ns)
                self.local_events += more
                if t is not None and t > last_poll:
                    last_poll = t
        last = self.comm.allreduce(max(self.last_other_ns, last_poll), op=_max_op())
        if work_left:
            return last
        done = self.ran - self.observer_runs
        for observer in self.observers:
            marks = observer.marks
            # marks never decrease and never pass ``done``: the first equal one is the first
            # sample after this rank's last other event (none: the sample still pending).
            mine = bisect_left(marks, done)
            taken = len(marks)
            kept, ticks = observer.keep(self.comm.allreduce(mine, op=_max_op()) + 1, until_ns)
            if kept is not None and kept > last:
                last = kept        # one process's last event was this observer's last sample
            # Count the samples one process took, not those this rank took (world events).
            self.local_events += ticks - taken
            self.world_events += ticks - taken
        self.observers.clear()
        self._observer_ids.clear()
        return last

    def _soonest_work(self) -> float:
        """The time of this rank's earliest pending event that is not an observer's sample. A
        window starts there, not at a sample: samples send nothing across the cut, so every
        sample before it runs in that window, and a quiet stretch costs no windows."""
        heap = self._heap
        observers = self._observer_ids
        held = []
        while heap and id(getattr(heap[0][2], "__self__", None)) in observers:
            held.append(heappop(heap))
        soonest = heap[0][0] if heap else _INF
        for entry in held:
            heappush(heap, entry)
        return soonest

    def exchange_cost(self, rounds: int = 200) -> tuple[float, float]:
        """Seconds of one empty window exchange (the collective alone), the fastest and the median
        of ``rounds``: on a busy machine the median is mostly waiting for a descheduled peer."""
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            self.comm.alltoall([([], 0.0, 0)] * self.size)
            times.append(time.perf_counter() - t0)
        times.sort()
        return times[0], times[len(times) // 2]

    def _exchange(self) -> float:
        """Send every outbox to the rank of its link's far end and take in what others sent; return
        the earliest pending event time over all ranks (inf: nothing left anywhere)."""
        c0 = time.process_time()
        outgoing: list[list] = [[] for _ in range(self.size)]
        heap = self._heap
        soonest = heap[0][0] if heap else _INF
        if self.observers and heap:
            soonest = self._soonest_work()
        work = len(heap) - self.background      # events that keep the run going (in flight too)
        for port, peer_rank, link_index, peer_side in self.cut_ports:
            box = port._out
            if box:
                # by name: a compiled Port's bound methods have no __func__ (dataplane.compiled)
                entries = [(t, key, 1 if fn.__name__ == "_arrive_control" else 0, args)
                           for t, key, fn, args, _ in box]
                if box[0][0] < soonest:
                    soonest = box[0][0]       # the outbox is a heap too: its head is its earliest
                outgoing[peer_rank].append((link_index, peer_side, entries))
                self.cut_messages += len(entries)
                work += len(entries)
                box.clear()
        c1 = time.process_time()
        received = self.comm.alltoall([(batch, soonest, work) for batch in outgoing])
        c2 = time.process_time()
        work = 0
        for batch, their_soonest, their_work in received:
            work += their_work
            if their_soonest < soonest:
                soonest = their_soonest
            for link_index, side, entries in batch:
                port = self.ports_by_link[(link_index, side)]
                actor = port.node.actor
                arrive, control = port._arrival, port._arrive_control
                for t, key, kind, args in entries:
                    heappush(heap, (t, key, control if kind else arrive, args, actor))
        self.pack_cpu_s += c1 - c0 + time.process_time() - c2
        return soonest if work else _INF     # only background work left anywhere: the run is over


def _strict_owner(fn: Callable) -> int:
    """``owner_of``, refusing a callable it cannot place: on several ranks it would run on every one."""
    actor = owner_of(fn)
    if actor == 0 and getattr(getattr(fn, "__self__", None), "actor", None) != 0:
        raise ParallelError(f"cannot tell which node runs {getattr(fn, '__qualname__', fn)!r} scheduled at setup: "
                            f"on several ranks, schedule methods of nodes, ports or apps (objects with a "
                            f"'host' or 'node'), not plain functions")
    return actor


def _max_op():
    from mpi4py import MPI

    return MPI.MAX
