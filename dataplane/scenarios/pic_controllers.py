"""Control planes for prefix-independent failover: flat FIB, PIC, and data-plane fast reroute.

Three controllers for the ingress switch of ``dataplane scenario pic``, one per mode:

- ``FlatController`` (``programs/flat_fib.p4``): every prefix entry holds its resolved next
  hop. When a port goes down it rewrites every prefix whose next hop used that port, one
  table write per prefix, so convergence = detection + affected prefixes / write rate.
- ``PicController`` (``programs/pic_failover.p4``): prefixes point at a shared path id;
  path rows carry no data-plane backup (backup = primary). When a port goes down it
  rewrites only the path rows that used it: detection + affected paths / write rate.
- ``DataplaneController`` (``programs/pic_failover.p4``): path rows carry the pre-installed
  backup and the program reads the ``port_status`` register per packet, which the emulator
  flips after the detection delay. No write at all: convergence = detection.

All three start from the same routing state, a ``Fib`` (prefixes, the path id of each,
the paths with their primary and backup next hops), which ``preload()`` installs directly
through the Switch API before the run (``dataplane.control.bulk_load``), as if the FIB had
been programmed long before the experiment. Writes after that go through the controller
handle's timing model: each costs ``write_latency_ns`` of simulated time, one after another.

Batching. ``ControllerHandle`` schedules one simulator event per write; for 500,000 writes
that is half a million heap entries and validated ``table_modify`` calls. ``TimedWrites``
keeps the same timing (write k of a burst completes at start + k x latency, the handle's
``busy_until``, ``writes_issued``, ``writes_done`` and ``last_write_ns`` advance as they
would) but applies the writes in at most ``max_events`` chunks: a chunk of c writes takes
effect when its last write completes, so a write can land up to (c - 1) x latency late;
with the default 2,000 events per burst, bursts of up to 2,000 writes are exact (one event
per write) and a 500,000-write burst lands each write at most 249 x 34.5 us = 8.6 ms late
(0.05 % of its 17.2 s), while the last write, which sets the convergence time, is exact.

Detection and write rate come from the switch spec and ``attach_controller``; the defaults
the scenario uses are 1 ms detection (BFD 3 x 50 ms selectable) and 29,000 writes/s (a
published hardware FIB programming rate, NCS5500 external TCAM).
"""
from __future__ import annotations

import time
from array import array
from dataclasses import dataclass, field
from typing import Callable, Sequence

from dataplane.control.bulk_load import action_entry, add_entries, add_lpm, entry_like
from dataplane.errors import DataplaneError
from dataplane.net.devices.controller import Controller, ControllerHandle

__all__ = ["NextHop", "Path", "Fib", "TimedWrites", "FlatController", "PicController", "DataplaneController",
           "CONTROLLERS", "MODE_PROGRAMS", "DEFAULT_DETECTION_NS", "BFD_DETECTION_NS", "DEFAULT_WRITE_RATE",
           "write_latency_ns"]

DEFAULT_DETECTION_NS = 1_000_000          # link-down detection, 1 ms
BFD_DETECTION_NS = 3 * 50_000_000         # BFD, 3 missed hellos at 50 ms
DEFAULT_WRITE_RATE = 29_000               # FIB entries/s (NCS5500 eTCAM, xrdocs.io)

# The program each mode runs on the ingress switch (built-in program names).
MODE_PROGRAMS = {"flat": "flat_fib", "pic": "pic_failover", "dataplane": "pic_failover"}


def write_latency_ns(rate_per_s: float) -> int:
    """Simulated cost of one table write at ``rate_per_s`` writes per second."""
    if rate_per_s <= 0:
        raise ValueError("write rate must be positive")
    return max(1, round(1e9 / rate_per_s))


# ---- routing state -----------------------------------------------------------------------------

@dataclass(frozen=True)
class NextHop:
    port: int
    mac: int


@dataclass(frozen=True)
class Path:
    """A shared path object: one or two equal-cost primaries and a pre-computed backup."""
    primaries: tuple[NextHop, ...]
    backup: NextHop

    def __post_init__(self):
        if not 1 <= len(self.primaries) <= 2:
            raise ValueError("a path has one or two primary next hops")

    def live(self, down: set[int]) -> list[NextHop]:
        """The next hops to use with ``down`` ports failed: live primaries, else the backup."""
        up = [nh for nh in self.primaries if nh.port not in down]
        return up or [self.backup]


@dataclass
class Fib:
    """Prefixes (``addresses``/``prefix_len``), the path id of each, and the paths."""
    addresses: Sequence[int]
    prefix_len: int
    path_of: Sequence[int]
    paths: list[Path]

    def __post_init__(self):
        if len(self.addresses) != len(self.path_of):
            raise ValueError("Fib: one path id per prefix")

    def __len__(self) -> int:
        return len(self.addresses)

    @classmethod
    def uniform(cls, prefixes: int, paths: Sequence[Path], base: int = 0x10000000, prefix_len: int = 24) -> "Fib":
        """``prefixes`` consecutive prefixes of ``prefix_len`` from ``base``; prefix i uses path i mod len(paths)."""
        step = 1 << (32 - prefix_len)
        if base + prefixes * step > 1 << 32:
            raise ValueError(f"{prefixes} /{prefix_len} prefixes from {base:#x} do not fit in IPv4")
        n_paths = len(paths)
        addresses = array("I", range(base, base + prefixes * step, step))
        if not 1 <= n_paths <= 1 << 16:
            raise ValueError("Fib.uniform: between 1 and 65536 paths")
        path_of = (array("H", range(n_paths)) * (prefixes // n_paths + 1))[:prefixes]
        return cls(addresses, prefix_len, path_of, list(paths))


# ---- writes in simulated time ---------------------------------------------------------------------

class TimedWrites:
    """Bursts of table writes that cost ``write_latency_ns`` each on a ``ControllerHandle``.

    ``issue(n, apply)`` queues n writes behind whatever the handle is still writing and
    calls ``apply(lo, hi)`` to make writes lo..hi-1 take effect, in at most ``max_events``
    chunks (see the module docstring for the timing error). Wall time spent applying is
    added to ``wall_s``.
    """

    def __init__(self, handle: ControllerHandle, max_events: int = 2000):
        self.handle = handle
        self.max_events = max(1, max_events)
        self.wall_s = 0.0

    def issue(self, n: int, apply: Callable[[int, int], None]) -> int:
        """Queue ``n`` writes; returns the simulated time (ns) the last one completes."""
        h = self.handle
        if n <= 0:
            return max(h.now, h.busy_until)
        lat = h.write_latency_ns
        start = max(h.now, h.busy_until)
        h.busy_until = start + n * lat
        h.writes_issued += n
        chunk = -(-n // self.max_events)
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            h.sim.at(start + hi * lat, self._apply, apply, lo, hi)
        return h.busy_until

    def _apply(self, apply: Callable[[int, int], None], lo: int, hi: int) -> None:
        t = time.perf_counter()
        h = self.handle
        try:
            apply(lo, hi)
        except DataplaneError as err:
            h.errors.append(f"{h.name}: {err}")
        h.writes_done += hi - lo
        h.last_write_ns = h.sim.now
        self.wall_s += time.perf_counter() - t


# ---- the three controllers ---------------------------------------------------------------------------

@dataclass
class _Stats:
    preload_wall_s: float = 0.0     # installing the FIB before the run
    update_wall_s: float = 0.0      # reacting to failures: hooks plus applying their writes
    writes: int = 0                 # writes issued after the preload
    updates: list[tuple[int, str, int]] = field(default_factory=list)   # (time ns, event, writes issued)


class _PicBase(Controller):
    """What the three modes share: the FIB, the set of ports seen down, timing of hooks."""

    mode = ""

    def __init__(self, fib: Fib, max_events: int = 2000):
        self.fib = fib
        self.down: set[int] = set()
        self.stats = _Stats()
        self.max_events = max_events
        self._writer: TimedWrites | None = None

    @property
    def writer(self) -> TimedWrites:
        if self._writer is None:
            self._writer = TimedWrites(self.switch, self.max_events)
        return self._writer

    @property
    def update_wall_s(self) -> float:
        return self.stats.update_wall_s + (self._writer.wall_s if self._writer is not None else 0.0)

    def preload(self) -> None:
        """Install the FIB through the Switch API at once (no simulated cost)."""
        t = time.perf_counter()
        self._preload(self.switch.api)
        self.stats.preload_wall_s = time.perf_counter() - t

    def _preload(self, api) -> None:
        raise NotImplementedError

    def on_link_down(self, port: int) -> None:
        self._changed(port, True)

    def on_link_up(self, port: int) -> None:
        self._changed(port, False)

    def _changed(self, port: int, down: bool) -> None:
        t = time.perf_counter()
        before = self.switch.writes_issued
        (self.down.add if down else self.down.discard)(port)
        self._react()
        issued = self.switch.writes_issued - before
        self.stats.writes += issued
        self.stats.updates.append((self.switch.now, f"port {port} {'down' if down else 'up'}", issued))
        self.stats.update_wall_s += time.perf_counter() - t

    def _react(self) -> None:
        raise NotImplementedError


class FlatController(_PicBase):
    """Flat FIB: one ``set_nhop`` entry per prefix; a failure rewrites every affected prefix."""

    mode = "flat"
    table = "ipv4_lpm"

    def _preload(self, api) -> None:
        fib = self.fib
        self.installed = [p.live(set())[0] for p in fib.paths]      # per path: the next hop its prefixes hold
        templates = [self._template(api, nh) for nh in self.installed]
        self.handles = add_lpm(api, self.table, fib.addresses, fib.prefix_len,
                               [templates[p] for p in fib.path_of])

    def _template(self, api, nh: NextHop):
        return action_entry(api, self.table, "set_nhop", {"port": nh.port, "dmac": nh.mac})

    def _react(self) -> None:
        api = self.switch.api
        fib = self.fib
        wanted = [p.live(self.down)[0] for p in fib.paths]
        changed = {pid for pid, nh in enumerate(wanted) if nh != self.installed[pid]}
        if not changed:
            return
        templates = {pid: self._template(api, wanted[pid]) for pid in changed}
        for pid in changed:
            self.installed[pid] = wanted[pid]
        # Best-path per prefix, as a flat FIB's control plane does: every prefix is examined.
        path_of = fib.path_of
        affected = array("I", (i for i in range(len(path_of)) if path_of[i] in changed))
        match = api.table(self.table).match
        get, modify, handles = match.get, match.modify, self.handles

        def apply(lo: int, hi: int) -> None:
            for i in affected[lo:hi]:
                h = handles[i]
                modify(h, entry_like(templates[path_of[i]], get(h).key, h))

        self.writer.issue(len(affected), apply)


class _PathController(_PicBase):
    """pic_failover.p4: ``ipv4_lpm`` -> path id, ``path`` -> (primary 0, primary 1, backup)."""

    def _row(self, path: Path) -> dict:
        raise NotImplementedError

    def _template(self, api, row: tuple[NextHop, NextHop, NextHop]):
        p0, p1, b = row
        return action_entry(api, "path", "use_path", {"port0": p0.port, "mac0": p0.mac, "port1": p1.port,
                                                       "mac1": p1.mac, "backup_port": b.port, "backup_mac": b.mac})

    def _preload(self, api) -> None:
        fib = self.fib
        if len(fib.paths) > 1 << 16:
            raise DataplaneError("pic_failover.p4 path ids are 16 bits: at most 65536 paths")
        ids = [action_entry(api, "ipv4_lpm", "set_path", {"path_id": pid}) for pid in range(len(fib.paths))]
        self.installed = [self._row(p) for p in fib.paths]
        self.path_handles = add_entries(api, "path", ((pid,) for pid in range(len(fib.paths))),
                                        [self._template(api, row) for row in self.installed])
        self.handles = add_lpm(api, "ipv4_lpm", fib.addresses, fib.prefix_len, [ids[p] for p in fib.path_of])


class PicController(_PathController):
    """Hierarchical FIB, control-plane PIC: a failure rewrites only the affected path rows.

    Rows are installed without a data-plane backup (backup = primary), so the data plane
    cannot reroute by itself; the controller holds the backup and writes it in.
    """

    mode = "pic"

    def _row(self, path: Path) -> tuple[NextHop, NextHop, NextHop]:
        live = path.live(self.down)
        return (live[0], live[-1], live[0])

    def _react(self) -> None:
        api = self.switch.api
        changes = []
        for pid, path in enumerate(self.fib.paths):
            row = self._row(path)
            if row != self.installed[pid]:
                self.installed[pid] = row
                changes.append((self.path_handles[pid], self._template(api, row)))
        if not changes:
            return
        match = api.table("path").match
        get, modify = match.get, match.modify

        def apply(lo: int, hi: int) -> None:
            for h, tmpl in changes[lo:hi]:
                modify(h, entry_like(tmpl, get(h).key, h))

        self.writer.issue(len(changes), apply)


class DataplaneController(_PathController):
    """Data-plane fast reroute: rows carry the backup, ``port_status`` picks it; no writes."""

    mode = "dataplane"

    def _row(self, path: Path) -> tuple[NextHop, NextHop, NextHop]:
        return (path.primaries[0], path.primaries[-1], path.backup)

    def _react(self) -> None:
        """Nothing to write: the emulator flips port_status, the program reads it per packet."""


CONTROLLERS: dict[str, type[_PicBase]] = {"flat": FlatController, "pic": PicController,
                                          "dataplane": DataplaneController}
