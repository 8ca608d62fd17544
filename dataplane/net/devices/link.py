"""Ports, their egress queues and serializers, and the full-duplex links between them.

A port queues what its node hands it (tail drop at the capacity, in packets or bytes),
serializes one packet at a time at the link's rate, and delivers it to the peer port
after the propagation latency. A node may defer building the bytes until the packet
leaves the queue (a switch runs its egress pipeline then, so queue metadata is real).

Flow control (``dataplane.net.devices.pfc``): a port that receives a PAUSE/PFC frame starts no new
transmission until ``paused_until`` (the frame in service finishes); a quanta-0 frame resumes
it at once. MAC control frames (``send_control``) skip the egress queue and the pause: they
go out as soon as the frame in service ends, are written to the sender's capture, and are
consumed by the receiving port (``receive_control``), never reaching its node. While no
pause or control frame is pending (``hold`` is False) the packet path pays one attribute test.

Ethernet on the wire (``overhead="ethernet"``, the default): a frame occupies the link for
its captured bytes plus the FCS (4 B), padded so frame + FCS is at least 64 B, plus the
preamble and SFD (8 B) and the inter-frame gap (12 B): ``wire_bytes`` (a 60-byte minimum
frame takes 84 B of line time, 6.72 ns at 100 Gb/s). Captures keep the frame as sent (no
FCS, no preamble). ``overhead="none"`` times the captured bytes alone (an abstract link).
``PortStats.tx_wire_bytes`` counts line time in bytes, ``tx_bytes`` the frames.

The serializer costs an event only when something waits for it: a packet that leaves an
empty queue just records when the wire is free again (``free_at``), and the next packet
starts at once if it comes later, or wakes the port at ``free_at`` if it comes sooner.

A frame on the data path is ``bytes`` or a switch's unjoined ``Frame`` (``dataplane.arch.work``),
so those parameters say ``Any``: the compiled build (``dataplane.compiled``) checks annotations
when a function is called.
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from dataplane import pypy_jit
from dataplane.arch.work import Frame
from dataplane.net.core.mypyc_attr import mypyc_attr
from dataplane.net.core.sim import Simulator
from dataplane.net.devices.pfc import parse_pause, quanta_ns

#: Ethernet's per-frame bytes outside the captured frame (IEEE 802.3 clause 4/3): preamble + SFD
#: before it, FCS after it, and the minimum inter-frame gap (96 bit times) before the next one.
PREAMBLE_SFD_BYTES = 8
FCS_BYTES = 4
IFG_BYTES = 12
MIN_FRAME_FCS_BYTES = 64      # frame + FCS; shorter frames are padded
#: overhead name -> (bytes added to the captured frame, minimum line time in bytes)
OVERHEADS = {
    "ethernet": (FCS_BYTES + PREAMBLE_SFD_BYTES + IFG_BYTES, MIN_FRAME_FCS_BYTES + PREAMBLE_SFD_BYTES + IFG_BYTES),
    "none": (0, 0),
}


def wire_bytes(frame_len: int, overhead: str = "ethernet") -> int:
    """Line time, in bytes, of a captured frame of ``frame_len`` bytes (no FCS) on a link with
    ``overhead``: for Ethernet max(frame + FCS, 64) + preamble/SFD + IFG, i.e. max(frame + 24, 84)."""
    extra, least = OVERHEADS[overhead]
    return max(frame_len + extra, least)


@dataclass(eq=False)
class PortStats:
    tx_packets: int = 0
    tx_bytes: int = 0         # frames as captured (no FCS, preamble or gap)
    tx_wire_bytes: int = 0    # line time of those frames, in bytes (with the link's overhead)
    tx_end_ns: int = 0        # when the line finishes the last of those frames (it may lie past the run's end)
    rx_packets: int = 0
    rx_bytes: int = 0
    drops: int = 0            # tail drops at the queue
    lost: int = 0             # lost on the wire (random loss or link down)
    corrupted: int = 0
    max_qdepth: int = 0
    pause_tx: int = 0         # PAUSE/PFC frames sent (not in tx_packets/tx_bytes)
    pause_rx: int = 0         # PAUSE/PFC frames received (not in rx_packets/rx_bytes)
    paused_ns: int = 0        # time paused, a pause still running counted to its end (see Port.paused_time_ns)
    # Queue depth at each change, flat: time ns, depth, time ns, depth, ... (a list of pairs
    # would cost a tuple per sample; qdepth_samples gives the pairs).
    qdepth_flat: list[int] = field(default_factory=list)

    @property
    def qdepth_samples(self) -> list[tuple[int, int]]:
        """(time ns, depth) at each change of the queue depth (a new list from ``qdepth_flat``)."""
        flat = self.qdepth_flat
        return list(zip(flat[0::2], flat[1::2]))


@mypyc_attr(allow_interpreted_subclasses=True)     # traffic classes' and the PFC watchdog's ports
class Port:
    """One end of a link, owned by a node; ``number`` is the P4 port number."""

    __slots__ = ("node", "number", "name", "link", "peer", "queue", "queue_bytes", "capacity", "capacity_kind",
                 "busy", "stats", "sim", "capture", "record_depth", "paused_until", "hold", "control",
                 "_resume_at", "free_at", "_frac", "_arrival", "_out", "_dst")

    def __init__(self, sim: Simulator, node: Any, number: int, name: str):
        self.sim = sim
        self.node = node
        self.number = number
        self.name = name
        self.link: Link | None = None
        self.peer: Port | None = None
        self.queue: deque = deque()
        self.queue_bytes = 0
        self.capacity = 64
        self.capacity_kind = "packets"
        self.busy = False         # building bytes, or a wake-up at free_at is scheduled
        self.free_at = 0          # ns when the frame on the wire has been serialized
        self._frac = 0            # serialization time below 1 ns owed by the last frame (x rate_bps)
        self.stats = PortStats()
        self.capture: Any = None      # a PcapWriter for what this port sends
        self.record_depth = True
        self.paused_until = 0     # ns; 0 when not paused
        self.hold = False         # a pause or a control frame is pending: _start takes the slow path
        self.control: bytes | None = None   # a MAC control frame waiting for the frame in service
        self._resume_at = 0
        self._arrival = self._arrive   # bound once: one per frame sent to this port otherwise
        # Where frames for the peer go: the simulator's heap, or (the peer on another process)
        # that link's outbox (dataplane.net.parallel); and the actor they run as (the peer's node).
        self._out: list = sim._heap
        self._dst = 0

    @property
    def up(self) -> bool:
        return self.link is not None and self.link.up

    @property
    def depth(self) -> int:
        return len(self.queue)

    def enqueue(self, item: Any, size: int) -> bool:
        """Queue ``item`` (``size`` bytes) for transmission; False if tail-dropped."""
        queue = self.queue
        depth = len(queue)
        if self.capacity_kind == "packets":
            full = depth >= self.capacity
        else:
            full = self.queue_bytes + size > self.capacity
        link = self.link
        if full or link is None:
            self.stats.drops += 1
            return False
        now = self.sim.now
        stats = self.stats
        if depth >= stats.max_qdepth:
            stats.max_qdepth = depth + 1
        if self.busy or self.hold or depth or self.free_at > now:
            queue.append((item, size, now, depth))
            self.queue_bytes += size
            if self.record_depth:
                stats.qdepth_flat += (now, depth + 1)
            if not self.busy:
                self._start()
            return True
        # The port is idle and the wire free: what appending and starting at once would do, without
        # the queue round trip (the item is queued and dequeued at the same instant, at depth 0).
        if self.record_depth:
            stats.qdepth_flat += (now, 1, now, 0)
        self.busy = True
        data = self.node.dequeue(self, item, now, 0)
        if data is None or not link.up:
            if data is not None:
                stats.lost += 1
            self._drain(now)     # on with anything the node queued meanwhile, as _start's loop would
            return True
        self._wire(data, now, link)
        return True

    def _start(self) -> None:
        now = self.sim.now
        if self.free_at > now:
            # The wire is still serializing the last frame, sent with nothing queued behind it.
            self.busy = True
            self.sim.at(self.free_at, self._done)
            return
        if self.hold and self._held():
            return
        # Busy while the node builds the bytes, so anything it queues meanwhile waits its turn.
        self.busy = True
        self._drain(now)

    def _drain(self, now: int) -> None:
        """Send the first queued item the node does not drop (the port is busy and the wire free)."""
        link = self.link
        queue = self.queue
        stats = self.stats
        while queue:
            item, size, enq_time, enq_depth = queue.popleft()
            self.queue_bytes -= size
            if self.record_depth:
                stats.qdepth_flat += (now, len(queue))
            data = self.node.dequeue(self, item, enq_time, enq_depth)
            if data is None:
                continue  # the node dropped it at dequeue (e.g. egress pipeline drop)
            if link is None or not link.up:
                stats.lost += 1
                continue
            self._wire(data, now, link)
            return
        self.busy = False
        if self.hold:
            self._held()     # a control frame queued while the node built bytes it then dropped

    def _wire(self, data: Any, now: int, link: "Link") -> None:
        """Serialize ``data`` onto the (up) link from ``now``; the port is busy until it is free."""
        # Whole nanoseconds: the fraction a packet's time is rounded down by is carried to
        # the next packet of a back-to-back train (so a busy link runs at exactly its rate),
        # and forgotten when the wire went idle (so a lone packet's time is easy to check).
        # a switch's unjoined frame (dataplane.engine.decision.frame) is as long as the bytes it came in
        size = len(data) if data.__class__ is not Frame else len(data.base)  # type: ignore[attr-defined]
        wire = size + link.wire_extra
        if wire < link.wire_min:
            wire = link.wire_min
        rate = link.rate_bps
        bits_ns = wire * 8_000_000_000 + (self._frac if self.free_at == now else 0)
        serialize = bits_ns // rate
        self._frac = bits_ns - serialize * rate
        self.free_at = end = now + serialize
        if self.queue or self.hold:
            self.sim.schedule(serialize, self._done)
        else:
            self.busy = False
        stats = self.stats
        stats.tx_packets += 1
        stats.tx_bytes += size
        stats.tx_wire_bytes += wire
        stats.tx_end_ns = end
        if self.capture is not None:
            self.capture.write(now, data)
        if link.loss or link.corruption or size > link.mtu + 14:
            link.carry(self, data, serialize)
        else:
            # Link.carry's common case (up, fits, nothing to draw): the arrival goes straight onto
            # the simulator's heap (or the cut link's outbox), keyed as sim.schedule would key it.
            sim = self.sim
            keys = sim._keys
            actor = sim.actor
            keys[actor] = key = keys[actor] + 1
            sim._push(self._out, (now + serialize + link.latency_ns, key, self.peer._arrival, (data,), self._dst))  # type: ignore[union-attr]

    def _deliver(self, delay_ns: int, fn: Any, args: tuple) -> None:
        """Schedule ``fn(*args)`` (a method of the peer port) for the peer's node, ``delay_ns`` from now."""
        sim = self.sim
        keys = sim._keys
        actor = sim.actor
        keys[actor] = key = keys[actor] + 1
        sim._push(self._out, (sim.now + delay_ns, key, fn, args, self._dst))

    def _arrive(self, data: Any) -> None:
        """A frame the peer sent has arrived (the serialization and the latency have passed)."""
        if not self.link.up:  # type: ignore[union-attr]
            self.peer.stats.lost += 1  # type: ignore[union-attr]  # the link failed while the packet was in flight
            return
        stats = self.stats
        stats.rx_packets += 1
        stats.rx_bytes += len(data) if data.__class__ is not Frame else len(data.base)  # type: ignore[attr-defined]
        self.node.receive(self, data)

    def _arrive_control(self, data: bytes) -> None:
        """A MAC control frame the peer sent has arrived: consumed by this port, never its node."""
        if not self.link.up:  # type: ignore[union-attr]
            self.peer.stats.lost += 1  # type: ignore[union-attr]
            return
        self.receive_control(data)

    def _done(self) -> None:
        self.busy = False
        if self.queue or self.hold:
            self._start()

    # ---- flow control (dataplane.net.devices.pfc) ----------------------------------------------------------
    def _held(self) -> bool:
        """The slow path of ``_start`` (port idle): send a waiting control frame, or stay quiet
        while paused (waking at the end of the pause). True if the port must not start data."""
        data = self.control
        if data is not None:
            self.control = None
            self.hold = self.paused_until != 0
            if self._transmit_control(data):
                return True
        until = self.paused_until
        if until:
            if until > self.sim.now:
                if self.queue and self._resume_at != until:
                    self._resume_at = until
                    self.sim.at(until, self._resume)
                return True
            self.paused_until = 0
        self.hold = False
        return False

    def _resume(self) -> None:
        if not self.busy and (self.queue or self.hold):
            self._start()

    def send_control(self, data: bytes) -> bool:
        """Send a MAC control frame ahead of the queue, as soon as the frame in service ends,
        even while paused; a newer one replaces one still waiting. False if not connected."""
        if self.link is None:
            return False
        if self.busy or self.free_at > self.sim.now:
            self.control = data
            self.hold = True
            if not self.busy:
                self._start()    # schedules the wake-up at free_at
        else:
            self._transmit_control(data)
        return True

    def _transmit_control(self, data: bytes) -> bool:
        link = self.link
        if link is None or not link.up:
            self.stats.lost += 1
            return False
        serialize = (link.wire_bytes(len(data)) * 8 * 1_000_000_000) // link.rate_bps
        self.busy = True
        self.free_at = self.sim.now + serialize
        self.sim.schedule(serialize, self._done)
        self.stats.pause_tx += 1
        if self.capture is not None:
            self.capture.write(self.sim.now, data)
        link.carry_control(self, data, serialize)
        return True

    def receive_control(self, data: bytes) -> None:
        """A MAC control frame arrived: a PAUSE/PFC frame pauses (or resumes) this port."""
        quanta = parse_pause(data)
        if quanta is None or self.link is None:
            return
        self.stats.pause_rx += 1
        self.pause(quanta_ns(quanta, self.link.rate_bps))

    def pause(self, duration_ns: int) -> None:
        """Start no new transmission for ``duration_ns`` from now (0: resume now)."""
        now = self.sim.now
        st = self.stats
        old = self.paused_until
        if old > now:
            st.paused_ns -= old - now          # the part of the old pause that will not happen
        until = now + duration_ns if duration_ns > 0 else 0
        if until:
            st.paused_ns += duration_ns
        self.paused_until = until
        self.hold = bool(until) or self.control is not None
        if not self.busy and (self.queue or self.hold):
            self._start()

    @property
    def paused(self) -> bool:
        return self.paused_until > self.sim.now

    @property
    def paused_time_ns(self) -> int:
        """Time this port has spent paused so far."""
        return self.stats.paused_ns - max(0, self.paused_until - self.sim.now)


# Nearly every event of a hop reaches these two: PyPy copying them into each bridge of a trace
# costs more than calling them (dataplane.pypy_jit; docs/speed/simulator.md, "Calls out of line").
pypy_jit.not_inlined(Port._wire, Port.enqueue)


class Link:
    """A full-duplex link: each direction serializes at ``rate_bps`` and takes ``latency_ns``;
    ``overhead`` (``"ethernet"`` or ``"none"``, see ``wire_bytes``) is what a frame costs beyond its bytes."""

    __slots__ = ("a", "b", "rate_bps", "latency_ns", "mtu", "loss", "corruption", "up", "sim", "name", "_rng",
                 "_rng_b", "overhead", "wire_extra", "wire_min", "wire_tail")

    def __init__(self, sim: Simulator, a: Port, b: Port, rate_bps: int, latency_ns: int, mtu: int = 1500,
                 loss: float = 0.0, corruption: float = 0.0, overhead: str = "ethernet"):
        if overhead not in OVERHEADS:
            raise ValueError(f"link overhead must be one of {', '.join(OVERHEADS)}, got {overhead!r}")
        self.overhead = overhead
        self.wire_extra, self.wire_min = OVERHEADS[overhead]
        # line time after a frame's last captured byte (FCS and gap): what a byte count taken
        # mid-frame leaves out (dataplane.report.record)
        self.wire_tail = FCS_BYTES + IFG_BYTES if overhead == "ethernet" else 0
        self.sim = sim
        self.a, self.b = a, b
        self.rate_bps, self.latency_ns, self.mtu = rate_bps, latency_ns, mtu
        self.loss, self.corruption = loss, corruption
        self.up = True
        self.name = f"{a.name}<->{b.name}"
        a.link = b.link = self
        a.peer, b.peer = b, a
        a._dst = getattr(b.node, "actor", 0)
        b._dst = getattr(a.node, "actor", 0)
        # Loss and corruption draw from the link's own streams (seeded by the run's seed and the
        # link's name), one per direction, so what one link loses does not depend on the others'
        # traffic, nor on which process simulates each end (a cut link's ends are on two ranks).
        # Each is made when first drawn from (a stream is its seed's until then): a lossless
        # link never draws, and 2 x 3,072 of them were 16 MB of a k=16 fat-tree (issue 36).
        self._rng: random.Random | None = None      # frames a sends
        self._rng_b: random.Random | None = None    # frames b sends

    @property
    def rng(self) -> random.Random:
        """The loss and corruption stream of the frames ``a`` sends."""
        if self._rng is None:
            self._rng = random.Random(f"{self.sim.seed}/{self.name}")
        return self._rng

    @property
    def rng_b(self) -> random.Random:
        """The loss and corruption stream of the frames ``b`` sends."""
        if self._rng_b is None:
            self._rng_b = random.Random(f"{self.sim.seed}/{self.name}/b")
        return self._rng_b

    def wire_bytes(self, frame_len: int) -> int:
        """Line time, in bytes, of a captured frame of ``frame_len`` bytes on this link."""
        return max(frame_len + self.wire_extra, self.wire_min)

    def serialize_ns(self, frame_len: int) -> int:
        """Time a lone frame of ``frame_len`` captured bytes occupies this link, rounded down to
        whole ns (as a port times it; back-to-back trains carry the remainder)."""
        return self.wire_bytes(frame_len) * 8_000_000_000 // self.rate_bps

    def carry(self, sender: Port, data: Any, serialize_ns: int) -> None:
        if data.__class__ is Frame:
            data = data.join()      # a switch's unjoined frame: loss and corruption draw on bytes
        receiver = sender.peer
        if not self.up or len(data) > self.mtu + 14:  # the MTU counts the Ethernet payload
            sender.stats.lost += 1
            return
        if self.loss or self.corruption:
            rng = self.rng if sender is self.a else self.rng_b
            if self.loss and rng.random() < self.loss:
                sender.stats.lost += 1
                return
            if self.corruption and rng.random() < self.corruption:
                bit = rng.randrange(len(data) * 8)
                buf = bytearray(data)
                buf[bit // 8] ^= 0x80 >> (bit % 8)
                data = bytes(buf)
                sender.stats.corrupted += 1
        sender._deliver(serialize_ns + self.latency_ns, receiver._arrival, (data,))  # type: ignore[union-attr]

    def carry_control(self, sender: Port, data: bytes, serialize_ns: int) -> None:
        """A MAC control frame: lost like data (down, random loss), never corrupted, and handed
        to the receiving port rather than its node."""
        if not self.up or (self.loss and (self.rng if sender is self.a else self.rng_b).random() < self.loss):
            sender.stats.lost += 1
            return
        receiver = sender.peer
        sender._deliver(serialize_ns + self.latency_ns, receiver._arrive_control, (data,))  # type: ignore[union-attr]

    def set_up(self, up: bool) -> None:
        self.up = up
