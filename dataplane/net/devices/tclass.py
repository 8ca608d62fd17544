"""Traffic classes: egress ports with up to 8 queues and a scheduler between them.

A switch whose ``queues`` setting (``dataplane.net.topology.tclass_spec.QueueConfig``) has
more than one queue gets a :class:`ClassPort` for every linked port: the port's ``queue``
is a :class:`QueueSet` (one FIFO per queue, looking like one deque to ``Port``) and a
packet's queue is its class, as BMv2 simple_switch's priority queues choose it:

* v1model: ``standard_metadata.priority`` (bit<3>) is the queue id (``qid``); a priority
  at or above the number of queues is dropped ("priority out of range", as BMv2 logs
  and drops it); with one queue (BMv2 built without priority queues) priority is ignored;
* PSA: ``class_of_service`` from the ingress output metadata, the same way.

(A host with ``queues`` gets one too, its frames classed by priority:
``dataplane.net.hosts.host_classes``.) The queue the scheduler last served is
``QueueSet.last_qid`` when the node's ``dequeue`` runs.

The queue's depth is what egress reads: ``enq_qdepth`` is the depth of the packet's own
queue when it was queued, ``deq_qdepth`` when it left (BMv2 reads
``egress_buffers.size(port, priority)``), the ``queue_bytes`` register holds its own
queue's bytes, and a user metadata field annotated ``@alias("queueing_metadata.qid")``
gets the queue id (BMv2 writes that field when the program has it).

Schedulers, chosen per switch: ``strict`` serves the highest non-empty queue (qid
``count - 1`` first, as BMv2's priority queues); ``dwrr`` is deficit weighted round robin
(Shreedhar and Varghese, SIGCOMM 1995): a queue's turn adds ``weight x quantum`` bytes of
credit (quantum = the link's largest frame, so every turn can send at least one packet),
and it sends head packets while they fit in its credit; an emptied queue loses its credit.
Under ``dwrr`` the ``strict`` queues go first (802.1Qaz ETS with strict-priority classes).

PFC (802.1Qbb) pauses queues one by one: a pause frame pauses queue i for class i's time
when the frame enables class i (``receive_control``); the scheduler skips paused queues and
the port wakes when the first pause ends. A PFC watchdog
(``dataplane.net.devices.pfc_watchdog``) may mark a queue stormed: its pause frames are then
ignored, and with the ``drop`` action what it holds and what arrives for it is discarded.

Per-queue counters (``QueueStats``) land in the port's metrics as ``queues``.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from dataplane.net.devices.link import Port
from dataplane.net.devices.pfc import parse_pfc, quanta_ns
from dataplane.net.topology.tclass_spec import QueueConfig

__all__ = ["QueueStats", "QueueSet", "ClassPort", "v1model_class", "psa_class", "ce_marked"]


@dataclass(eq=False)
class QueueStats:
    tx_packets: int = 0
    tx_bytes: int = 0
    drops: int = 0            # tail drops at this queue
    max_qdepth: int = 0       # packets
    max_bytes: int = 0
    ce_marked: int = 0        # frames sent from this queue with ECN = CE (IPv4/IPv6)
    pause_rx: int = 0         # pause frames that paused (or resumed) this queue
    paused_ns: int = 0        # time paused, a pause still running counted to its end
    storms: int = 0           # times a PFC watchdog found this queue stormed
    storm_drops: int = 0      # packets the watchdog's drop action discarded
    # (time ns, depth) at each change, flat, as PortStats.qdepth_flat
    qdepth_flat: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {"tx_packets": self.tx_packets, "tx_bytes": self.tx_bytes, "drops": self.drops,
                "max_qdepth": self.max_qdepth, "max_bytes": self.max_bytes, "ce_marked": self.ce_marked,
                "pause_rx": self.pause_rx, "paused_ns": self.paused_ns, "storms": self.storms,
                "storm_drops": self.storm_drops}


class QueueSet:
    """The queues of one port behind the deque interface ``Port`` uses: ``append``,
    ``popleft`` (the scheduler's choice), ``len`` (all queues) and truth (something may be
    sent). ``paused_until[q]`` (ns, 0 = not paused) keeps queue ``q`` from being chosen."""

    def __init__(self, port: "ClassPort", config: QueueConfig):
        n = config.count
        self.port = port
        self.config = config
        self.count = n
        self.queues: list[deque] = [deque() for _ in range(n)]
        self.bytes = [0] * n
        self.stats = [QueueStats() for _ in range(n)]
        self.paused_until = [0] * n
        self.stormed = [False] * n       # a PFC watchdog ignores this queue's pause (and may drop)
        self.dropping = [False] * n      # stormed with the drop action
        self.pause_seen = [0] * n        # when a pause (non-zero time) for the class last arrived
        self.total = 0
        self.last_qid = 0
        strict = config.strict if config.scheduler == "dwrr" else tuple(range(n))
        self.strict = sorted(strict, reverse=True)
        self.rr = [q for q in range(n) if q not in strict]
        self.weights = config.weights
        self.deficit = [0] * n
        self._ptr = 0
        self._credited = False
        self._quantum = 0

    def __len__(self) -> int:
        return self.total

    def __bool__(self) -> bool:
        if not self.total:
            return False
        now = self.port.sim.now
        pu = self.paused_until
        return any(q and pu[i] <= now for i, q in enumerate(self.queues))

    def append(self, entry: tuple) -> None:
        raise TypeError("ClassPort.enqueue queues entries by class")

    def clear(self) -> None:
        for q in self.queues:
            q.clear()
        self.bytes = [0] * self.count
        self.total = 0

    def next_resume(self) -> int:
        """The earliest time a paused non-empty queue may be served again (0: none is paused)."""
        now = self.port.sim.now
        times = [t for q, t in zip(self.queues, self.paused_until) if q and t > now]
        return min(times) if times else 0

    def popleft(self) -> tuple:
        qid = self._pick()
        q = self.queues[qid]
        entry = q.popleft()
        self.total -= 1
        self.bytes[qid] -= entry[1]
        self.last_qid = qid
        if self.port.record_depth:
            self.stats[qid].qdepth_flat += (self.port.sim.now, len(q))
        return entry

    def _pick(self) -> int:
        queues, pu = self.queues, self.paused_until
        now = self.port.sim.now
        for qid in self.strict:
            if queues[qid] and pu[qid] <= now:
                return qid
        rr = self.rr
        if not any(queues[q] and pu[q] <= now for q in rr):
            raise IndexError("popleft from a QueueSet with nothing to send")
        if not self._quantum:
            link = self.port.link
            self._quantum = (link.mtu + 14) if link is not None else 1514
        deficit = self.deficit
        n = len(rr)
        while True:
            qid = rr[self._ptr]
            q = queues[qid]
            if q and pu[qid] <= now:
                if not self._credited:
                    deficit[qid] += self.weights[qid] * self._quantum
                    self._credited = True
                size = q[0][1]
                if size <= deficit[qid]:
                    deficit[qid] -= size
                    if len(q) == 1:     # emptied: it loses its credit and the turn passes on
                        deficit[qid] = 0
                        self._ptr = (self._ptr + 1) % n
                        self._credited = False
                    return qid
            elif not q:
                deficit[qid] = 0
            self._ptr = (self._ptr + 1) % n
            self._credited = False


class ClassPort(Port):
    """A switch port with a ``QueueSet``; ``classify(item)`` gives a queued item's class."""

    __slots__ = ("classify",)

    def __init__(self, sim: Any, node: Any, number: int, name: str, config: QueueConfig,
                 classify: Callable[[Any], int]):
        super().__init__(sim, node, number, name)
        self.queue = QueueSet(self, config)
        self.classify = classify

    def enqueue(self, item: Any, size: int) -> bool:
        """Queue ``item`` in the queue of its class; False if dropped (class out of range, or
        that queue full)."""
        qs = self.queue
        qid = self.classify(item)
        stats = self.stats
        if qid >= qs.count:
            drop = getattr(self.node, "_drop", None)
            if drop is not None:
                drop(f"priority {qid} out of range ({qs.count} queues)")
            return False
        q = qs.queues[qid]
        depth = len(q)
        cap, kind = qs.config.depth[qid] if qs.config.depth is not None else (self.capacity, self.capacity_kind)
        qst = qs.stats[qid]
        if qs.dropping[qid]:
            qst.storm_drops += 1
            return False
        full = depth >= cap if kind == "packets" else qs.bytes[qid] + size > cap
        if full or self.link is None:
            stats.drops += 1
            qst.drops += 1
            return False
        now = self.sim.now
        q.append((item, size, now, depth))
        qs.total += 1
        qs.bytes[qid] += size
        self.queue_bytes += size
        if qs.total > stats.max_qdepth:
            stats.max_qdepth = qs.total
        if depth >= qst.max_qdepth:
            qst.max_qdepth = depth + 1
        if qs.bytes[qid] > qst.max_bytes:
            qst.max_bytes = qs.bytes[qid]
        if self.record_depth:
            stats.qdepth_flat += (now, qs.total)
            qst.qdepth_flat += (now, depth + 1)
        if not self.busy:
            self._start()
        return True

    def _wire(self, data: bytes, now: int, link: Any) -> None:
        qst = self.queue.stats[self.queue.last_qid]
        qst.tx_packets += 1
        qst.tx_bytes += len(data)
        if ce_marked(data):
            qst.ce_marked += 1
        Port._wire(self, data, now, link)

    def _held(self) -> bool:
        held = Port._held(self)
        qs = self.queue
        now = self.sim.now
        if any(t > now for t in qs.paused_until):
            # Keep the slow path while a class is paused, so an emptied port still wakes.
            self.hold = True
            if not held and qs.total and not qs:
                # Every waiting packet is in a paused queue: wake when the first pause ends.
                until = qs.next_resume()
                if until and self._resume_at != until:
                    self._resume_at = until
                    self.sim.at(until, self._resume)
                return True
        return held

    def receive_control(self, data: bytes) -> None:
        """A PAUSE/PFC frame pauses (or resumes) the queue of each class it enables."""
        times = parse_pfc(data)
        if times is None or self.link is None:
            return
        self.stats.pause_rx += 1
        qs = self.queue
        now = self.sim.now
        rate = self.link.rate_bps
        for qid, quanta in enumerate(times[:qs.count]):
            if quanta:
                qs.pause_seen[qid] = now
            if quanta is None or qs.stormed[qid]:
                continue
            self.pause_queue(qid, quanta_ns(quanta, rate), now)
        if not self.busy and (qs or self.hold):
            self._start()

    def pause_queue(self, qid: int, duration_ns: int, now: int) -> None:
        """Queue ``qid`` starts no transmission for ``duration_ns`` from ``now`` (0: resume)."""
        qs = self.queue
        st = qs.stats[qid]
        st.pause_rx += 1
        old = qs.paused_until[qid]
        if old > now:
            st.paused_ns -= old - now
            self.stats.paused_ns -= old - now
        if duration_ns > 0:
            qs.paused_until[qid] = now + duration_ns
            st.paused_ns += duration_ns
            self.stats.paused_ns += duration_ns
            self.hold = True
            watchdog = getattr(self.node, "pfc_watchdog", None)
            if watchdog is not None:
                watchdog.start()
        else:
            qs.paused_until[qid] = 0

    @property
    def paused_time_ns(self) -> int:
        """Time its queues have spent paused so far, summed over the queues (``Port``'s reads
        the port-wide pause, which a port with classes never has)."""
        now = self.sim.now
        return self.stats.paused_ns - sum(t - now for t in self.queue.paused_until if t > now)

    def queue_metrics(self) -> list[dict[str, int]]:
        """Per-queue counters, queue 0 first (``paused_ns``: the time paused so far)."""
        now = self.sim.now
        out = []
        for i, (st, until) in enumerate(zip(self.queue.stats, self.queue.paused_until)):
            row = dict(qid=i, **st.as_dict())
            row["paused_ns"] -= max(0, until - now)
            out.append(row)
        return out


def v1model_class(item: Any) -> int:
    """A v1model packet's queue: ``standard_metadata.priority``."""
    return item.sm.priority


def psa_class(item: Any) -> int:
    """A PSA packet's queue: the ingress output's ``class_of_service``."""
    return item.ctx.class_of_service


def ce_marked(frame: bytes) -> bool:
    """True if ``frame`` is IPv4 or IPv6 (after up to two VLAN tags) with ECN = CE (3)."""
    off = 12
    while frame[off:off + 2] in (b"\x81\x00", b"\x88\xa8") and len(frame) >= off + 6:
        off += 4
    et = frame[off:off + 2]
    if et == b"\x08\x00" and len(frame) > off + 3:
        return frame[off + 3] & 3 == 3
    if et == b"\x86\xdd" and len(frame) > off + 3:
        return (frame[off + 3] >> 4) & 3 == 3
    return False
