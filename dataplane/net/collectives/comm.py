"""A communicator: hosts that run collectives together, as NCCL's ``ncclComm_t``.

``Communicator(hosts, comm_id=...)`` gives every host a ``CommRank`` (rank r is ``hosts[r]``).
Ranks talk over one queue pair per (peer, channel), numbered by rule so that either end can make
its half when it first needs it (its first send, or the first packet from the peer):
QP number = 0x800000 | comm_id << 16 | peer << 6 | channel (up to 128 communicators, 1,024 ranks
and 64 channels), and the UDP source port, the connection's ECMP entropy, comes from that number.

Each rank runs its collectives one after another, in the order they were submitted (a CUDA
stream's order): ``submit(plan, ...)`` queues one, and it starts when the one before it has
finished on that rank and its start time has come. A message that arrives before the
collective it belongs to has started on the receiving rank waits in that rank's inbox.
``log`` records every collective a rank ran: (label, start ns, end ns, bytes sent, bytes
received), plain data that ``dataplane.net.parallel`` gathers from MPI ranks.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from dataplane.net.collectives.plan import Plan
from dataplane.net.collectives.runner import Key, PlanRun
from dataplane.net.hosts.host import Host
from dataplane.net.rdma import QpStats, QueuePair, RdmaNic, TransportConfig

__all__ = ["Communicator", "CommRank", "CollectiveRecord", "qp_number", "MAX_RANKS", "MAX_CHANNELS", "MAX_COMMS"]

QPN_FLAG = 0x800000
MAX_COMMS, MAX_RANKS, MAX_CHANNELS = 128, 1024, 64


def qp_number(comm_id: int, peer: int, channel: int) -> int:
    """The QP number rank r's host gives its connection to ``peer`` on ``channel``."""
    return QPN_FLAG | comm_id << 16 | peer << 6 | channel


def _source_port(qpn: int) -> int:
    # a multiplicative hash spreads neighbouring QP numbers over 49152..65535
    return 49152 + ((qpn * 2654435761) >> 7) % 16384


@dataclass
class CollectiveRecord:
    """One collective on one rank."""

    label: str
    start_ns: int
    end_ns: int
    bytes_sent: int
    bytes_received: int


class CommRank:
    """One rank of a communicator on its host (module docstring)."""

    def __init__(self, comm: "Communicator", rank: int, host: Host):
        self.comm, self.rank, self.host, self.sim = comm, rank, host, host.sim
        self.nic = RdmaNic.of(host)
        self.nic.factories.append(self._factory)
        self.qps: dict[Key, QueuePair] = {}
        self.qp_stats: dict[str, QpStats] = {}
        self.inbox: dict[Key, deque] = {}
        self.waiting: deque[tuple[PlanRun, int]] = deque()
        self.active: PlanRun | None = None
        self.log: list[CollectiveRecord] = []

    # ---- connections ------------------------------------------------------------------------------
    def qp(self, peer: int, channel: int) -> QueuePair:
        """The queue pair to ``peer`` on ``channel``, made on first use."""
        qp = self.qps.get((peer, channel))
        if qp is None:
            comm = self.comm
            if not 0 <= peer < len(comm.hosts) or peer == self.rank:
                raise ValueError(f"rank {self.rank} has no peer {peer}")
            if not 0 <= channel < MAX_CHANNELS:
                raise ValueError(f"channel {channel} is out of range (0..{MAX_CHANNELS - 1})")
            qpn = qp_number(comm.comm_id, peer, channel)
            qp = QueuePair(self.nic, qpn, comm.hosts[peer].ip, qp_number(comm.comm_id, self.rank, channel),
                           comm.transport, src_port=_source_port(qpn), keep_data=comm.keep_data,
                           on_message=lambda _qp, data, n, key=(peer, channel): self._on_message(key, data, n))
            self.qps[(peer, channel)] = self.nic.add(qp)
            self.qp_stats[f"{peer}/{channel}"] = qp.stats
        return qp

    def _factory(self, qpn: int) -> QueuePair | None:
        if qpn & ~0xFFFF != QPN_FLAG | self.comm.comm_id << 16:
            return None
        peer, channel = (qpn >> 6) & 0x3FF, qpn & 0x3F
        if peer >= len(self.comm.hosts) or peer == self.rank:
            return None
        return self.qp(peer, channel)

    # ---- collectives ------------------------------------------------------------------------------
    def submit(self, plan: Plan, *, buffers: list[Any] | None = None, at_ns: int = 0, label: str = "",
               on_done: Callable[[PlanRun], None] | None = None) -> PlanRun:
        """Queue this rank's part of ``plan``, to start at ``at_ns`` or when the collectives
        before it are done, whichever is later."""
        def done(run: PlanRun) -> None:
            assert run.start_ns is not None and run.end_ns is not None
            self.log.append(CollectiveRecord(run.label, run.start_ns, run.end_ns, run.bytes_sent, run.bytes_received))
            self.active = None
            if on_done is not None:
                on_done(run)
            self._next()

        run = PlanRun(self, plan.ops[self.rank], plan.elem_bytes, buffers, done, label)
        self.waiting.append((run, at_ns))
        if self.active is None and len(self.waiting) == 1:
            self.sim.schedule_for(self.host.actor, max(0, at_ns - self.sim.now), self._next)
        return run

    def _next(self) -> None:
        if self.active is not None or not self.waiting:
            return
        run, at_ns = self.waiting[0]
        if at_ns > self.sim.now:
            self.sim.at(at_ns, self._next)
            return
        self.waiting.popleft()
        self.active = run
        run.start()

    def _on_message(self, key: Key, data: Any, nbytes: int) -> None:
        run = self.active
        if run is not None and not self.inbox.get(key) and run.wants(key):
            run.deliver(key, data, nbytes)
        else:
            self.inbox.setdefault(key, deque()).append((data, nbytes))

    def drain_inbox(self, run: PlanRun) -> None:
        """Give a starting run the messages that arrived for it early."""
        for key, q in list(self.inbox.items()):
            while q and run.wants(key):
                data, nbytes = q.popleft()
                run.deliver(key, data, nbytes)


class Communicator:
    """The ranks of one group of hosts (module docstring); ``keep_data`` makes messages carry
    the buffers' bytes (for checking results; costs memory at large sizes)."""

    def __init__(self, hosts: Sequence[Host], *, comm_id: int = 0, transport: TransportConfig | None = None,
                 keep_data: bool = False):
        if not 0 <= comm_id < MAX_COMMS:
            raise ValueError(f"comm_id must be in 0..{MAX_COMMS - 1}, got {comm_id}")
        if not 1 <= len(hosts) <= MAX_RANKS:
            raise ValueError(f"a communicator holds 1..{MAX_RANKS} ranks, got {len(hosts)}")
        if len({h.name for h in hosts}) != len(hosts):
            raise ValueError("a host appears twice in the communicator")
        self.hosts = list(hosts)
        self.comm_id = comm_id
        self.transport = transport or TransportConfig()
        self.keep_data = keep_data
        self.ranks = [CommRank(self, r, h) for r, h in enumerate(self.hosts)]

    def submit(self, plan: Plan, *, buffers: Sequence[list[Any]] | None = None, at_ns: int = 0,
               label: str = "") -> list[PlanRun]:
        """``plan`` on every rank (``buffers[r]`` for rank r's data)."""
        if plan.ranks != len(self.ranks):
            raise ValueError(f"the plan is for {plan.ranks} ranks, the communicator has {len(self.ranks)}")
        return [cr.submit(plan, buffers=buffers[r] if buffers is not None else None, at_ns=at_ns, label=label)
                for r, cr in enumerate(self.ranks)]
