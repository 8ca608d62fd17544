"""Egress queue depth in BYTES for P4 programs, and a time-uniform sampler of it.

v1model gives the egress pipeline the queue depth in packets only (``enq_qdepth``,
``deq_qdepth``). ECN marking profiles (RED/DCQCN, DCTCP) are specified in bytes, and with
mixed packet sizes (1 KB data next to 64-byte CNPs and ACKs) packets times a guessed size is
not the same quantity. So, like ``port_status`` for port liveness, the emulator publishes the
real byte depth through a register the program declares:

    register<bit<32>>(512) queue_bytes;     // indexed by egress port

``attach_queue_bytes(net)`` makes every switch whose program has a register with that name
write, just before the egress pipeline runs for a packet (egress runs when the packet leaves
the queue), the number of bytes still waiting in that packet's egress queue, not counting the
packet itself: the queue a dequeue-time marker sees, as ns-3/HPCC's switch MMU compares
``egress_bytes`` with Kmin/Kmax when a packet is dequeued. Values saturate at the register
width. Switches without the register are left alone.

``SwitchNode`` now does this itself for every switch whose program declares the register,
so ``attach_queue_bytes`` finds nothing left to attach; it stays for callers written
before that.

``QueueSampler`` records (time, bytes) of one port every ``interval_ns``, which is what
time-weighted percentiles and plots of queue depth need.
"""
from __future__ import annotations

from array import array
from typing import Any, Callable

from dataplane.net.devices.link import Port

__all__ = ["attach_queue_bytes", "find_register", "QueueSampler", "percentile"]

QUEUE_BYTES_REGISTER = "queue_bytes"


def find_register(node: Any, name: str) -> Any | None:
    """The register instance called ``name`` (any control, matched on the last name part)."""
    for full, inst in node.dp.instances.items():
        if full.split(".")[-1] == name and hasattr(inst, "values") and hasattr(inst, "width"):
            return inst
    return None


def attach_queue_bytes(net: Any, register: str = QUEUE_BYTES_REGISTER) -> list[str]:
    """Keep ``register[port]`` at the egress byte depth on every switch that declares it.

    Returns the names of the switches it attached to (already attached ones are skipped).
    """
    attached = []
    for node in net.switches.values():
        reg = find_register(node, register)
        if reg is None or getattr(node, "_queue_bytes_register", None) is not None:
            continue
        node._queue_bytes_register = reg
        inner = node.dequeue
        limit = (1 << reg.width) - 1

        def dequeue(port: Port, item: Any, enq_time: int, enq_depth: int, _inner=inner, _reg=reg,
                    _limit=limit) -> bytes | None:
            n = port.number
            if n < _reg.size:
                q = port.queue_bytes
                _reg.values[n] = q if q <= _limit else _limit
            return _inner(port, item, enq_time, enq_depth)

        node.dequeue = dequeue
        attached.append(node.name)
    return attached


class QueueSampler:
    """Samples ``port.queue_bytes`` (and ``tx_bytes``) every ``interval_ns`` from ``start_ns``.

    Time-uniform samples make percentiles time-weighted. Sampling stops when ``stop()`` is
    called, when ``until()`` (if given) returns True, or at ``end_ns``; by default it also stops
    once it is the only thing left in the simulator, so ``net.run()`` without a limit ends.

    It runs as the world (first among the events of its nanosecond). On several MPI ranks it
    runs on every rank, as world events do, and the rank of ``node`` (the port's) holds the
    samples; whether anything is left anywhere is not known inside a rank's window, so it samples
    on and the simulator cuts the samples after the run where one process would have stopped
    (``dataplane.net.parallel.runtime``).
    """

    actor = 0     # the world: the same keys on every rank

    def __init__(self, sim: Any, port: Port, interval_ns: int = 1_000, start_ns: int = 0,
                 end_ns: int | None = None, until: Callable[[], bool] | None = None):
        if interval_ns <= 0:
            raise ValueError("QueueSampler interval_ns must be positive")
        self.sim, self.port, self.interval_ns = sim, port, interval_ns
        self.node = port.node
        self.end_ns, self.until = end_ns, until
        self.times = array("q")
        self.bytes = array("q")
        self.tx_bytes = array("q")
        self._stopped = False
        # Several ranks: the simulator's hooks (None in one process), and at every sample the
        # number of other events this rank had run before it.
        self._mark = getattr(sim, "observer_mark", None)
        self.marks = array("q")
        if self._mark is not None:
            if until is not None:
                raise ValueError("QueueSampler's until() cannot be evaluated on several ranks; use end_ns")
            sim.track_observer(self)
            sim.background += 1
        self._next_ns = start_ns
        sim.at(start_ns, self._sample)

    def stop(self) -> None:
        self._stopped = True

    def _sample(self) -> None:
        if self._mark is not None:
            self._sample_on_ranks()
            return
        if self._stopped:
            return
        now = self.sim.now
        self.times.append(now)
        self.bytes.append(self.port.queue_bytes)
        self.tx_bytes.append(self.port.stats.tx_bytes)
        if (self.end_ns is not None and now >= self.end_ns) or (self.until is not None and self.until()) \
                or self.sim.pending <= self.sim.background:
            self._stopped = True
            return
        self.sim.schedule(self.interval_ns, self._sample)

    def _sample_on_ranks(self) -> None:
        mark = self._mark()
        if self._stopped:
            return
        self.marks.append(mark)
        now = self.sim.now
        self.times.append(now)
        self.bytes.append(self.port.queue_bytes)
        self.tx_bytes.append(self.port.stats.tx_bytes)
        if self._stopped or (self.end_ns is not None and now >= self.end_ns):
            self._stopped = True
            return
        self.sim.background += 1
        self._next_ns = now + self.interval_ns
        self.sim.schedule(self.interval_ns, self._sample)

    def keep(self, count: int, until_ns: int | None) -> tuple[int | None, int]:
        """On several ranks, after the run: keep the first ``count`` samples, where one process
        would have stopped; one more than taken is the sample still pending, taken now (nothing
        has changed since the last event). Returns the last kept sample's time (None: none) and
        how many samples one process took (each an event)."""
        if count <= len(self.times):
            for a in (self.times, self.bytes, self.tx_bytes, self.marks):
                del a[count:]
        elif not self._stopped:
            t = self._next_ns
            if until_ns is None or t <= until_ns:
                self.times.append(t)
                self.bytes.append(self.port.queue_bytes)
                self.tx_bytes.append(self.port.stats.tx_bytes)
        self._stopped = True
        return (self.times[-1] if len(self.times) else None), len(self.times)

    def window(self, t0: int, t1: int) -> list[int]:
        """The byte samples taken in [t0, t1]."""
        return [b for t, b in zip(self.times, self.bytes) if t0 <= t <= t1]


def percentile(values: list[int] | array, p: float) -> int:
    """Nearest-rank percentile (p in 0..100) of ``values``; 0 for none."""
    if not len(values):
        return 0
    s = sorted(values)
    k = max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))
    return int(s[int(k)])
