"""Traffic that measures load balancing: long flows over the RDMA transport, all starting at once.

* ``permutation(racks, rng)``: every host sends to one host and receives from one, never one in
  its own rack (the pattern on which Al-Fares et al. and Hedera measured ECMP);
* ``all_to_all(n)``: every host to every other host.

``start_flows`` gives each (source, destination) one reliable connection (a queue pair at each
end, QP numbers ``FLOW_QPN | index``; the UDP source port, the flow's ECMP entropy, hashed from
the index) and posts one message of its size at ``start_ns``. A flow completes when its last
byte has reached the receiving application (in order: the transport's rule). What each end
counted is kept in plain records (``FlowSender`` on the source host, ``FlowReceiver`` on the
destination) that ``dataplane.net.parallel.session.gather_results`` brings from MPI ranks.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Sequence

from dataplane.net.rdma import QpStats, QueuePair, RdmaNic, TransportConfig

__all__ = ["permutation", "all_to_all", "start_flows", "FlowSender", "FlowReceiver", "FLOW_QPN", "MAX_FLOWS"]

FLOW_QPN = 0x400000
MAX_FLOWS = 1 << 22


def permutation(racks: Sequence[Sequence[int]], rng: random.Random) -> list[tuple[int, int]]:
    """(source, destination) host indexes: a random permutation in which no host sends to a host
    of its own rack (``racks``: the host indexes of each rack). Needs no rack holding more than
    half the hosts."""
    rack_of = {h: r for r, hosts in enumerate(racks) for h in hosts}
    hosts = sorted(rack_of)
    n = len(hosts)
    if n < 2 or max(len(r) for r in racks) * 2 > n:
        raise ValueError("a permutation between racks needs at least two racks and none holding more than half the hosts")
    dst = hosts[:]
    rng.shuffle(dst)
    # Repair each host that drew its own rack by swapping with one whose swap suits both (one
    # always exists while no rack holds more than half the hosts).
    for i in range(n):
        if rack_of[dst[i]] != rack_of[hosts[i]]:
            continue
        order = list(range(n))
        rng.shuffle(order)
        for j in order:
            if rack_of[dst[j]] != rack_of[hosts[i]] and rack_of[dst[i]] != rack_of[hosts[j]]:
                dst[i], dst[j] = dst[j], dst[i]
                break
        else:                                       # pragma: no cover - excluded by the check above
            raise AssertionError("no swap repairs the permutation")
    return list(zip(hosts, dst))


def all_to_all(n: int) -> list[tuple[int, int]]:
    """Every ordered pair of distinct hosts 0..n-1."""
    return [(a, b) for a in range(n) for b in range(n) if a != b]


def _source_port(index: int, salt: int) -> int:
    # a multiplicative hash spreads neighbouring flow numbers over 49152..65535
    return 49152 + (((index << 1 | salt) * 2654435761) >> 7) % 16384


@dataclass
class FlowSender:
    """What the source of flow ``index`` counted (plain data, on the source host's rank)."""

    host: Any
    index: int
    stats: QpStats = field(default_factory=QpStats)
    acked_ns: int | None = None            # when every byte was acknowledged


@dataclass
class FlowReceiver:
    """Flow ``index`` from host ``src`` to host ``dst`` (indexes) of ``nbytes``: when it started
    and when its last byte reached the application (None: never), and what the receiver counted."""

    host: Any
    index: int
    src: int
    dst: int
    nbytes: int
    start_ns: int
    done_ns: int | None = None
    stats: QpStats = field(default_factory=QpStats)

    @property
    def fct_ns(self) -> int | None:
        return None if self.done_ns is None else self.done_ns - self.start_ns


def start_flows(hosts: Sequence[Any], pairs: Sequence[tuple[int, int]], nbytes: int, transport: TransportConfig,
                start_ns: int = 0) -> tuple[list[FlowSender], list[FlowReceiver]]:
    """One flow of ``nbytes`` per pair of host indexes, all posted at ``start_ns`` (module docstring)."""
    if len(pairs) > MAX_FLOWS:
        raise ValueError(f"at most {MAX_FLOWS} flows, got {len(pairs)}")
    senders, receivers = [], []
    for i, (a, b) in enumerate(pairs):
        src, dst = hosts[a], hosts[b]
        qpn = FLOW_QPN | i
        tx_nic, rx_nic = RdmaNic.of(src), RdmaNic.of(dst)
        rec = FlowReceiver(dst, i, a, b, nbytes, start_ns)

        def arrived(_qp: QueuePair, _data: Any, _n: int, rec: FlowReceiver = rec) -> None:
            rec.done_ns = _qp.sim.now

        tx = tx_nic.add(QueuePair(tx_nic, qpn, dst.ip, qpn, transport, src_port=_source_port(i, 0)))
        rx = rx_nic.add(QueuePair(rx_nic, qpn, src.ip, qpn, transport, src_port=_source_port(i, 1), on_message=arrived))
        sender = FlowSender(src, i, tx.stats)
        rec.stats = rx.stats

        def acked(t: int, sender: FlowSender = sender) -> None:
            sender.acked_ns = t

        senders.append(sender)
        receivers.append(rec)
        # as the source host's event, so that on MPI ranks only the rank that simulates it sends
        src.sim.schedule_for(src.actor, max(0, start_ns - src.sim.now), tx.post_send, nbytes, None, acked)
    return senders, receivers
