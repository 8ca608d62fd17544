"""Watching a network while it runs, for the report: cumulative port and host counters sampled
at a period that doubles as the run grows (so a sample series stays under ``2 * BUCKETS`` points
whatever the length), table hits and misses counted by a trace object, and frame by frame what
each port put on its wire and what arrived at hosts, per flow (``dataplane.report.wire``).

A sample only reads counters and the frame taps only read frames, so the run is the same with
and without a recorder; its events are taken back out of ``sim.events_run`` when it stops.

On several MPI ranks (``dataplane.net.parallel``) the sampler runs as the world on every rank,
each rank sampling its own ports, hosts and nodes (and, of other ranks' ports, the far ends of
its own ports' links, for the frames lost in flight towards them). Whether work is left
anywhere is not known inside a rank's window, so it samples on to the end of the run and the
simulator cuts the samples after it where one process's sampler would have stopped (``keep``,
undoing a thinning made past that point); ``dataplane.report.ranks`` then merges every rank's
part on rank 0.
"""
from __future__ import annotations

from array import array
from bisect import bisect_left
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from dataplane.report.wire import Arrivals, PortLine

BUCKETS = 200
FIRST_PERIOD_NS = 1_000


class TableCounts:
    """A packet trace that only counts: hits and misses per table, runs per action.

    Handed to the pipelines as their trace (``Node.trace``); every other hook does nothing.
    ``counts_only``: a switch's decision cache may tell it of a packet's lookups without
    running the pipeline (``dataplane.arch.v1model_decisions.replay``)."""

    counts_only = True

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        self.misses: dict[str, int] = {}
        self.actions: dict[str, int] = {}

    def table(self, name: str, key: tuple, entry: Any, where: str = "") -> None:
        counts = self.hits if entry.hit else self.misses
        counts[name] = counts.get(name, 0) + 1

    def action(self, name: str, args: tuple, where: str = "") -> None:
        self.actions[name] = self.actions.get(name, 0) + 1

    def _ignore(self, *args: Any) -> None:
        pass

    packet_in = packet_out = state = extract = parser_error = log = drop = extern = _ignore


#: per port: the cumulative counters a sample reads, in this order
PORT_FIELDS = ("tx_bytes", "drops", "lost", "pause_tx")


def _serialized_bytes(port: Any, now: int) -> int:
    """Bytes the port has put on the wire by ``now``: ``tx_bytes`` counts a frame whole when its
    serialization starts, so the part still to go is taken off. Without this, a rate over
    intervals of a few frame times swings by a frame per interval (a sawtooth, not a rate)."""
    sent = port.stats.tx_bytes
    link = port.link
    if link is not None and port.free_at > now:
        # The line time left, less the overhead that follows the frame's last byte (FCS and gap
        # on Ethernet), is the part of the frame still to go.
        left = (port.free_at - now) * link.rate_bps // 8_000_000_000 - link.wire_tail
        if left > 0:
            sent -= left
    return sent


class Recorder:
    """Samples one network's counters while it runs; ``stop`` ends it (see the module doc)."""

    actor = 0      # the world: on several ranks every rank samples, and its events' keys are alike

    def __init__(self, net: Any) -> None:
        self.net = net
        self.sim = net.sim
        self.period = FIRST_PERIOD_NS
        self.times: list[int] = []
        self.ports = [p for node in net.nodes() for p in node.ports.values()]
        self.sampled = self.ports                              # the ports a sample reads, and their
        self.sampled_index: list[int] | range = range(len(self.ports))   # places in ``ports``
        self.port_samples: list[list[tuple[int, ...]]] = []   # per sample: per port sampled: PORT_FIELDS
        self.depth_samples: list[list[int]] = []               # per sample: per port sampled: queue depth now
        self.hosts = list(net.hosts.values())
        self.ce_samples: list[int] = []                        # per sample: CE-marked packets received by all hosts
        self.program_drop_samples: list[int] = []              # per sample: packets the P4 programs dropped
        self.dropping = [n for n in net.nodes() if isinstance(getattr(n, "drops", None), dict)]
        self.tables: dict[str, TableCounts] = {}               # per node with a pipeline
        self.node_facts: dict[str, Any] | None = None          # several ranks: per node, its owner's tables
        self.events = 0
        self.stopped = False
        # Several ranks: the simulator's hook (None in one process); per tick, the other events
        # this rank had run before it, and its time; per sample, its tick's number; the
        # thinnings made in the running window, to undo past where one process stopped.
        self._mark = getattr(self.sim, "observer_mark", None)
        self.marks = array("q")
        self.tick_times = array("q")
        self.ticks: list[int] = []
        self._undo: list[tuple[int, int, list[list], int]] = []
        self._next_ns = 0
        self._ended = False
        local = getattr(self.sim, "local", None)
        if local is not None:        # each rank sums its own hosts' and nodes' counts; rank 0 adds them up
            self.hosts = [h for h in self.hosts if local[h.actor]]
            self.dropping = [n for n in self.dropping if local[n.actor]]
            # Its own ports, and another rank's port at the far end of one of its links: a frame
            # lost in flight towards its port counts on the sender's (``ranks`` merges them).
            self.sampled_index = [j for j, p in enumerate(self.ports) if local[p.node.actor]
                                  or (p.peer is not None and local[p.peer.node.actor])]
            self.sampled = [self.ports[j] for j in self.sampled_index]
        for node in net.nodes():
            if getattr(node, "api", None) is not None:
                node.trace = self.tables[node.name] = TableCounts()
        # Frame by frame: each port's frames where it sends them (its own rank's), and what
        # arrives at the hosts this process runs; ``line_facts`` (by place in ``ports``) when stopped.
        self.lines = {j: PortLine(p) for j, p in enumerate(self.ports) if local is None or local[p.node.actor]}
        self.line_facts: dict[int, tuple] = {}
        self.arrivals = Arrivals(self.hosts)
        self.sim.background += 1
        self.sim.schedule(0, self._tick)
        if self._mark is not None:
            from dataplane.report.ranks import RecorderOnRanks

            self.sim.track_observer(self)
            self.sim.track_gathered(RecorderOnRanks(self, PORT_FIELDS.index("lost")))

    def _tick(self) -> None:
        self.events += 1
        if self._mark is not None:
            self._tick_on_ranks()
            return
        self.sim.background -= 1
        if self.stopped:
            return
        self._sample(self.sim.now)
        # Only while other work is pending, and as background work: a sampler that counted as
        # work would keep an open-ended run alive, or another sampler that stops when nothing
        # else is left (incast's queue sampler), each waiting for the other.
        if self.sim.pending > self.sim.background:
            self._schedule()

    def _tick_on_ranks(self) -> None:
        mark = self._mark()          # also takes this tick out of the background count
        if self.stopped or self._ended:
            return
        now = self.sim.now
        self.marks.append(mark)
        self.tick_times.append(now)
        self.ticks.append(len(self.marks) - 1)
        self._sample(now)
        self._next_ns = now + self.period
        self._schedule()

    def _schedule(self) -> None:
        self.sim.background += 1
        self.sim.schedule(self.period, self._tick)

    def _series(self) -> tuple[list, ...]:
        return (self.times, self.port_samples, self.depth_samples, self.ce_samples, self.program_drop_samples,
                self.ticks)

    def _sample(self, now: int) -> None:
        if not self.times:
            # The first sample (its tick was scheduled when the network was built, so it runs
            # before what the setup scheduled at t = 0): the setup may have put its own taps
            # or pcap writers in the ports' capture slots since.
            for line in self.lines.values():
                line.adopt()
        self.times.append(now)
        self.port_samples.append([(_serialized_bytes(p, now), p.stats.drops, p.stats.lost, p.stats.pause_tx)
                                  for p in self.sampled])
        self.depth_samples.append([p.depth for p in self.sampled])
        self.ce_samples.append(sum(getattr(h.stats, "ce_received", 0) for h in self.hosts))
        self.program_drop_samples.append(sum(sum(n.drops.values()) for n in self.dropping))
        if len(self.times) >= 2 * BUCKETS:
            if self._mark is not None:
                # Thinnings before this window were made while work was left (one process made
                # them too); this one may be past where one process stops: keep what it drops.
                start = getattr(self.sim, "window_start", 0)
                self._undo = [u for u in self._undo if u[0] >= start]
                self._undo.append((now, len(self.marks), [series[1::2] for series in self._series()], self.period))
            # keep every other sample: the counters are cumulative, so nothing is lost but resolution
            for series in self._series():
                del series[1::2]
            self.period *= 2

    def keep(self, count: int, until_ns: int | None) -> tuple[int | None, int]:
        """Several ranks, after a run that ended with no work left: keep the samples of the
        first ``count`` ticks, where one process's sampler stopped; one more than taken is the
        tick still pending, taken now (nothing has changed since the last event). Returns the
        last kept tick's time (None: none) and how many ticks one process ran."""
        self._ended = True
        taken = len(self.marks)
        if count <= taken:
            while self._undo and self._undo[-1][1] > count:
                _, _, halves, period = self._undo.pop()
                for series, half in zip(self._series(), halves):
                    kept = series[:len(half)]
                    series[:] = [x for pair in zip(kept, half) for x in pair]
                self.period = period
            cut = bisect_left(self.ticks, count)
            for series in self._series():
                del series[cut:]
            del self.marks[count:]
            del self.tick_times[count:]
        elif not self.stopped and (until_ns is None or self._next_ns <= until_ns):
            self.tick_times.append(self._next_ns)
            self.ticks.append(taken)
            self._sample(self._next_ns)
        self.events = len(self.tick_times)      # the ticks one process ran (``stop`` uncounts them)
        return (self.tick_times[-1] if len(self.tick_times) else None), self.events

    def stop(self) -> None:
        """Take a last sample at the end, stop sampling and uncount the sampler's events."""
        if self.stopped:
            return
        if not self.times or self.times[-1] != self.sim.now:
            self._sample(self.sim.now)
        self.stopped = True
        self.line_facts = {j: line.close() for j, line in self.lines.items()}
        self.arrivals.stopped = True
        self.sim.events_run -= self.events
        uncount = getattr(self.sim, "uncount_world", None)
        if uncount is not None:
            uncount(self.events)      # several ranks: its ticks ran as the world on every rank
        for node in self.net.nodes():
            if node.trace is self.tables.get(node.name):
                node.trace = None


@contextmanager
def recording(on_network: Callable[[Any], None] | None = None) -> Iterator[list[Recorder]]:
    """Attach a Recorder to every Network built inside the ``with`` (``Network.from_spec``);
    yields the list they are appended to. ``on_network`` sees each network first (to collect
    the one before it, which has finished, and let it go)."""
    from dataplane.net.fabric import network

    recorders: list[Recorder] = []

    def observe(net: Any) -> None:
        if on_network is not None:
            on_network(net)
        recorders.append(Recorder(net))

    network.observers.append(observe)
    try:
        yield recorders
    finally:
        network.observers.remove(observe)
