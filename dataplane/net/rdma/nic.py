"""The RDMA NIC of one host: its queue pairs, and the order in which they reach the wire.

``RdmaNic.of(host)`` makes it once per host. It registers each queue pair with the host's
``RoceEndpoint`` (data and ACKs by QP number, CNPs to the requester) and sends for them from
``Host.set_tx_puller``: each time the port's queue runs low it sends, first, a waiting
acknowledgement, NAK or CNP (``control``), else one packet of the next active queue pair in
round-robin order whose pacing allows it (DCQCN lowers a queue pair's rate: it waits until its
``ready_ns``). When only paced queue pairs wait, a wake-up at the earliest ``ready_ns`` starts
the wire again. ``factory`` makes a queue pair on its first packet (``dataplane.net.collectives``
numbers its connections by rule, so the receiving end need not exist beforehand).
"""
from __future__ import annotations

import math
import weakref
from collections import deque
from typing import Callable

from dataplane.net.apps.dcqcn_wire import ROCE_PORT, RoceEndpoint
from dataplane.net.devices.link import wire_bytes
from dataplane.net.hosts.host import Host
from dataplane.net.rdma import wire
from dataplane.net.rdma.qp import QueuePair

__all__ = ["RdmaNic"]


class RdmaNic:
    """The queue pairs of ``host`` and their share of its port."""

    _nics: "weakref.WeakKeyDictionary[Host, RdmaNic]" = weakref.WeakKeyDictionary()

    @classmethod
    def of(cls, host: Host) -> "RdmaNic":
        nic = cls._nics.get(host)
        if nic is None:
            nic = cls._nics[host] = cls(host)
        return nic

    def __init__(self, host: Host):
        port = host.port
        if port is None or port.link is None:
            raise ValueError(f"{host.name} is not connected: an RDMA NIC needs its link")
        self.host, self.sim = host, host.sim
        self.link = port.link
        self.line_rate_bps = float(port.link.rate_bps)
        self.endpoint = RoceEndpoint.of(host)
        self.endpoint.factory = self._make
        self.qps: dict[int, QueuePair] = {}
        self.factories: list[Callable[[int], QueuePair | None]] = []
        self._active: deque[QueuePair] = deque()
        self._control: deque[tuple[int, int, bytes, int]] = deque()
        self._wake_at: int | None = None
        host.set_tx_puller(self._pull)

    def add(self, qp: QueuePair) -> QueuePair:
        """Register ``qp`` (its number must be free on this host)."""
        if qp.qpn in self.qps or qp.qpn in self.endpoint.receivers:
            raise ValueError(f"{self.host.name}: QP {qp.qpn} is already in use")
        self.qps[qp.qpn] = qp
        self.endpoint.receivers[qp.qpn] = qp
        self.endpoint.senders[qp.qpn] = qp
        return qp

    def _make(self, qpn: int) -> QueuePair | None:
        for factory in self.factories:
            qp = factory(qpn)
            if qp is not None:
                return qp
        return None

    def frame_bits(self, payload_bytes: int) -> int:
        """Line bits of a data packet carrying ``payload_bytes`` on this host's link."""
        frame = wire.frame_bytes(payload_bytes)
        return (self.link.wire_bytes(frame) if self.link is not None else wire_bytes(frame)) * 8

    # ---- sending ----------------------------------------------------------------------------------
    def activate(self, qp: QueuePair) -> None:
        """``qp`` may have packets to send."""
        if not qp.queued:
            qp.queued = True
            self._active.append(qp)
        self.host.kick_tx()

    def control(self, dst_ip: int, src_port: int, payload: bytes, tos: int) -> None:
        """Send an ACK, NAK or CNP ahead of data."""
        self._control.append((dst_ip, src_port, payload, tos))
        self.host.kick_tx()

    def _pull(self) -> bool:
        if self._control:
            dst, sport, payload, tos = self._control.popleft()
            self.host.send_udp(dst, sport, ROCE_PORT, payload, tos)
            return True
        active = self._active
        now = self.sim.now
        wake = math.inf
        for _ in range(len(active)):
            qp = active.popleft()
            if not qp.has_work():
                qp.queued = False
                continue
            if qp.ready_ns > now:
                wake = min(wake, qp.ready_ns)
                active.append(qp)
                continue
            qp.send_one()
            if qp.has_work():
                active.append(qp)
            else:
                qp.queued = False
            return True
        if wake < math.inf:
            at = math.ceil(wake)
            if self._wake_at is None or at < self._wake_at or self._wake_at <= now:
                self._wake_at = at
                self.sim.at(at, self._wake, at)
        return False

    def _wake(self, at: int) -> None:
        if self._wake_at == at:
            self._wake_at = None
        self.host.kick_tx()
