"""Ports, their egress queues and serializers, and the full-duplex links between them.

A port queues what its node hands it (tail drop at the capacity, in packets or bytes),
serializes one packet at a time at the link's rate, and delivers it to the peer port
after the propagation latency. A node may defer building the bytes until the packet
leaves the queue (a switch runs its egress pipeline then, so queue metadata is real).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from dataplane.net.sim import Simulator


@dataclass(eq=False)
class PortStats:
    tx_packets: int = 0
    tx_bytes: int = 0
    rx_packets: int = 0
    rx_bytes: int = 0
    drops: int = 0            # tail drops at the queue
    lost: int = 0             # lost on the wire (random loss or link down)
    corrupted: int = 0
    max_qdepth: int = 0
    qdepth_samples: list[tuple[int, int]] = field(default_factory=list)  # (time ns, depth) at each change


class Port:
    """One end of a link, owned by a node; ``number`` is the P4 port number."""

    __slots__ = ("node", "number", "name", "link", "peer", "queue", "queue_bytes", "capacity", "capacity_kind",
                 "busy", "stats", "sim", "capture", "record_depth")

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
        self.busy = False
        self.stats = PortStats()
        self.capture = None       # a PcapWriter for what this port sends
        self.record_depth = True

    @property
    def up(self) -> bool:
        return self.link is not None and self.link.up

    @property
    def depth(self) -> int:
        return len(self.queue)

    def enqueue(self, item: Any, size: int) -> bool:
        """Queue ``item`` (``size`` bytes) for transmission; False if tail-dropped."""
        if self.capacity_kind == "packets":
            full = len(self.queue) >= self.capacity
        else:
            full = self.queue_bytes + size > self.capacity
        if full or self.link is None:
            self.stats.drops += 1
            return False
        self.queue.append((item, size, self.sim.now, len(self.queue)))
        self.queue_bytes += size
        depth = len(self.queue)
        if depth > self.stats.max_qdepth:
            self.stats.max_qdepth = depth
        if self.record_depth:
            self.stats.qdepth_samples.append((self.sim.now, depth))
        if not self.busy:
            self._start()
        return True

    def _start(self) -> None:
        link = self.link
        # Busy while the node builds the bytes, so anything it queues meanwhile waits its turn.
        self.busy = True
        while self.queue:
            item, size, enq_time, enq_depth = self.queue.popleft()
            self.queue_bytes -= size
            if self.record_depth:
                self.stats.qdepth_samples.append((self.sim.now, len(self.queue)))
            data = self.node.dequeue(self, item, enq_time, enq_depth)
            if data is None:
                continue  # the node dropped it at dequeue (e.g. egress pipeline drop)
            if link is None or not link.up:
                self.stats.lost += 1
                continue
            # Whole nanoseconds, rounded down: per-packet times stay easy to check by hand; a
            # link busy back to back therefore runs up to one ns per packet above its rate.
            serialize = (len(data) * 8 * 1_000_000_000) // link.rate_bps
            self.sim.schedule(serialize, self._done)
            self.stats.tx_packets += 1
            self.stats.tx_bytes += len(data)
            if self.capture is not None:
                self.capture.write(self.sim.now, data)
            link.carry(self, data, serialize)
            return
        self.busy = False

    def _done(self) -> None:
        self.busy = False
        if self.queue:
            self._start()


class Link:
    """A full-duplex link: each direction serializes at ``rate_bps`` and takes ``latency_ns``."""

    __slots__ = ("a", "b", "rate_bps", "latency_ns", "mtu", "loss", "corruption", "up", "sim", "name")

    def __init__(self, sim: Simulator, a: Port, b: Port, rate_bps: int, latency_ns: int, mtu: int = 1500,
                 loss: float = 0.0, corruption: float = 0.0):
        self.sim = sim
        self.a, self.b = a, b
        self.rate_bps, self.latency_ns, self.mtu = rate_bps, latency_ns, mtu
        self.loss, self.corruption = loss, corruption
        self.up = True
        self.name = f"{a.name}<->{b.name}"
        a.link = b.link = self
        a.peer, b.peer = b, a

    def carry(self, sender: Port, data: bytes, serialize_ns: int) -> None:
        receiver = sender.peer
        if not self.up or len(data) > self.mtu + 14:  # the MTU counts the Ethernet payload
            sender.stats.lost += 1
            return
        rng = self.sim.rng
        if self.loss and rng.random() < self.loss:
            sender.stats.lost += 1
            return
        if self.corruption and rng.random() < self.corruption:
            bit = rng.randrange(len(data) * 8)
            buf = bytearray(data)
            buf[bit // 8] ^= 0x80 >> (bit % 8)
            data = bytes(buf)
            sender.stats.corrupted += 1
        self.sim.schedule(serialize_ns + self.latency_ns, self._arrive, receiver, data)

    def _arrive(self, receiver: Port, data: bytes) -> None:
        if not self.up:
            receiver.peer.stats.lost += 1  # the link failed while the packet was in flight
            return
        receiver.stats.rx_packets += 1
        receiver.stats.rx_bytes += len(data)
        receiver.node.receive(receiver, data)

    def set_up(self, up: bool) -> None:
        self.up = up
