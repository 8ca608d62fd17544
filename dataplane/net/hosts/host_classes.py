"""Traffic classes on a host's NIC: a queue per 802.1p priority, each paused on its own by PFC.

A host whose topology entry has ``queues:`` (the same setting as a switch's:
``dataplane.net.topology.tclass_spec``; one queue, the default, keeps the NIC one FIFO that a
pause frame stops as a whole) gets a ``ClassPort`` on its interface. The NIC gives each frame
it sends a priority, the way RoCE NICs do, per ``trust``:

* ``dscp`` (the default): the top three bits of the IPv4/IPv6 DSCP (after any VLAN tags),
  i.e. DSCP 8p..8p+7 -> priority p: the default DSCP-to-priority table NIC drivers set up
  for DSCP trust mode (the ``dscp2prio`` table of Linux's DCB netlink interface; RoCE v2
  fabrics usually run PFC on DSCP), and the IP precedence that
  ``programs/tclass_router.p4`` maps to ``priority`` on switches. Frames that are not IP
  (ARP) get priority 0;
* ``pcp``: the outer VLAN tag's PCP (802.1Q); untagged frames get priority 0.

So an app chooses its class with the ``tos`` it sends with (``UdpFlow(..., tos=0x60)`` is
DSCP 24, priority 3). Priority p goes to queue p; a priority at or above the queue count has
no queue and is dropped (``HostStats.dropped_priority``), as a switch drops it; give
``queues: 8`` to carry every priority. The queues share the wire by the setting's scheduler
(``strict`` by default: the highest priority first).

A PFC frame pauses the queue of each priority it enables for that priority's own time
(``ClassPort.receive_control``, 802.1Qbb) and the NIC goes on sending the other queues; XON
(time 0) or the timer's end resumes it. In front of each queue is its own transmit backlog
(``txqueuelen`` frames each, like Linux's mqprio qdisc with one band per class), so frames of
a paused class wait without holding back the others.
"""
from __future__ import annotations

from collections import deque
from typing import Any

from dataplane.net.devices.tclass import ClassPort
from dataplane.net.topology.spec import HOST_TRUSTS as TRUSTS
from dataplane.net.topology.tclass_spec import QueueConfig

__all__ = ["TRUSTS", "frame_priority", "HostClasses"]

_VLAN = (b"\x81\x00", b"\x88\xa8")


def frame_priority(frame: bytes, trust: str = "dscp") -> int:
    """The 802.1p priority (0..7) a NIC trusting ``trust`` gives ``frame`` (module docstring)."""
    if trust == "pcp":
        return frame[14] >> 5 if frame[12:14] in _VLAN and len(frame) >= 16 else 0
    off = 12
    while frame[off:off + 2] in _VLAN and len(frame) >= off + 6:
        off += 4
    et = frame[off:off + 2]
    if et == b"\x08\x00" and len(frame) > off + 3:
        return frame[off + 3] >> 5                       # TOS = DSCP(6) ECN(2)
    if et == b"\x86\xdd" and len(frame) > off + 3:
        return (frame[off + 2] & 0x0F) >> 1              # traffic class = version(4) | TC(8) ...
    return 0


class HostClasses:
    """One host NIC's classes: its ``ClassPort`` (``make_port``) and a transmit backlog per
    queue (``tx``, ``refill``); ``waiting`` counts the frames in the backlogs."""

    def __init__(self, host: Any, config: QueueConfig, trust: str = "dscp"):
        if trust not in TRUSTS:
            raise ValueError(f"trust must be one of {', '.join(TRUSTS)}, got {trust!r}")
        self.host, self.config, self.trust = host, config, trust
        self.backlogs: list[deque[bytes]] = [deque() for _ in range(config.count)]
        self.waiting = 0

    def classify(self, frame: bytes) -> int:
        return frame_priority(frame, self.trust)

    def make_port(self, number: int, name: str) -> ClassPort:
        return ClassPort(self.host.sim, self.host, number, name, self.config, self.classify)

    def tx(self, port: ClassPort, frame: bytes) -> bool:
        """Queue ``frame`` in its class's queue, or behind it in the class's backlog; False if
        dropped (no queue for its priority, or the backlog full)."""
        stats = self.host.stats
        qid = self.classify(frame)
        if qid >= self.config.count:
            stats.dropped_priority += 1
            return False
        size = len(frame)
        backlog = self.backlogs[qid]
        if backlog or self._full(port, qid, size):
            if len(backlog) >= self.host.txqueuelen:
                stats.dropped_txqueue += 1
                return False
            backlog.append(frame)
            self.waiting += 1
        elif not port.enqueue(frame, size):
            return False
        stats.tx_frames += 1
        stats.tx_bytes += size
        return True

    def refill(self, port: ClassPort) -> None:
        """Move frames from the backlogs into their queues while they fit."""
        for qid, backlog in enumerate(self.backlogs):
            while backlog and not self._full(port, qid, len(backlog[0])):
                frame = backlog.popleft()
                self.waiting -= 1
                port.enqueue(frame, len(frame))

    @staticmethod
    def _full(port: ClassPort, qid: int, size: int) -> bool:
        """Whether queue ``qid`` would tail-drop a frame of ``size`` bytes (checked first, so host
        backpressure does not show up as drops in the port's statistics)."""
        qs: Any = port.queue
        cap, kind = qs.config.depth[qid] if qs.config.depth is not None else (port.capacity, port.capacity_kind)
        return len(qs.queues[qid]) >= cap if kind == "packets" else qs.bytes[qid] + size > cap
