"""Watching a network while it runs, for the report: cumulative port and host counters sampled
at a period that doubles as the run grows (so a sample series stays under ``2 * BUCKETS`` points
whatever the length), and table hits and misses counted by a trace object.

A sample only reads counters, so the run is the same with and without a recorder; its events
are taken back out of ``sim.events_run`` when the recorder stops.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

BUCKETS = 200
FIRST_PERIOD_NS = 1_000


class TableCounts:
    """A packet trace that only counts: hits and misses per table, runs per action.

    Handed to the pipelines as their trace (``Node.trace``); every other hook does nothing."""

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

    def __init__(self, net: Any) -> None:
        self.net = net
        self.sim = net.sim
        self.period = FIRST_PERIOD_NS
        self.times: list[int] = []
        self.ports = [p for node in net.nodes() for p in node.ports.values()]
        self.port_samples: list[list[tuple[int, ...]]] = []   # per sample: per port: PORT_FIELDS
        self.depth_samples: list[list[int]] = []               # per sample: per port: queue depth now
        self.hosts = list(net.hosts.values())
        self.ce_samples: list[int] = []                        # per sample: CE-marked packets received by all hosts
        self.program_drop_samples: list[int] = []              # per sample: packets the P4 programs dropped
        self.dropping = [n for n in net.nodes() if isinstance(getattr(n, "drops", None), dict)]
        self.tables: dict[str, TableCounts] = {}               # per node with a pipeline
        self.events = 0
        self.stopped = False
        for node in net.nodes():
            if getattr(node, "api", None) is not None:
                node.trace = self.tables[node.name] = TableCounts()
        self.sim.background += 1
        self.sim.schedule(0, self._tick)

    def _tick(self) -> None:
        self.events += 1
        self.sim.background -= 1
        if self.stopped:
            return
        self._sample()
        # Only while other work is pending, and as background work: a sampler that counted as
        # work would keep an open-ended run alive, or another sampler that stops when nothing
        # else is left (incast's queue sampler), each waiting for the other.
        if self.sim.pending > self.sim.background:
            self._schedule()

    def _schedule(self) -> None:
        self.sim.background += 1
        self.sim.schedule(self.period, self._tick)

    def _sample(self) -> None:
        self.times.append(self.sim.now)
        now = self.sim.now
        self.port_samples.append([(_serialized_bytes(p, now), p.stats.drops, p.stats.lost, p.stats.pause_tx)
                                  for p in self.ports])
        self.depth_samples.append([p.depth for p in self.ports])
        self.ce_samples.append(sum(getattr(h.stats, "ce_received", 0) for h in self.hosts))
        self.program_drop_samples.append(sum(sum(n.drops.values()) for n in self.dropping))
        if len(self.times) >= 2 * BUCKETS:
            # keep every other sample: the counters are cumulative, so nothing is lost but resolution
            for series in (self.times, self.port_samples, self.depth_samples, self.ce_samples,
                           self.program_drop_samples):
                del series[1::2]
            self.period *= 2

    def stop(self) -> None:
        """Take a last sample at the end, stop sampling and uncount the sampler's events."""
        if self.stopped:
            return
        if not self.times or self.times[-1] != self.sim.now:
            self._sample()
        self.stopped = True
        self.sim.events_run -= self.events
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
