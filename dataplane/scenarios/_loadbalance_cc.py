"""Congestion control in ``dataplane scenario loadbalance`` (``--cc``): HPCC's transport on the
fabric, the switches' queues, and the flows' completion time slowdowns.

HPCC (``hpcc_transport``): the RDMA transport with HPCC's published parameters
(``dataplane.net.rdma.hpcc``'s default profile), an ACK per packet as HPCC's simulator sends,
the go-back-N receiver (the only one HPCC runs with: its records ride behind the ACK where the
selective receiver puts its blocks), and T, the base RTT, by the simulator's rule (its
``third.cc``: the largest RTT of an idle path, a data packet out and its ACK back): over the
links of the longest of the fabric's host-to-host paths, twice each link's latency plus the line
time of one full data frame (the INT header in it) and of one ACK (the echoed INT header in
it). The switches run ``programs/hpcc.p4`` (ecn.p4's router: ECMP by the crc32 of the
5-tuple, as ``ecmp.p4`` with hash seed 0) and learn their ports' line rates
(``incast_hpcc.set_link_rates``).

Queues (``QueueRecorder``): at every frame a switch port sends, the bytes still waiting in that
port's queue behind it (what hpcc.p4 stamps and ECN marking compares, ``queue_bytes``), counted
per value; p50/p99/max over every frame every switch sent (weighted by frames, not time: the
queue the traffic met).

FCT slowdown (``fct_slowdowns``): a flow's completion time over the time it would take alone
on an idle fabric: its frames back to back at its source's line rate, plus one full data
frame's one-way trip over its shortest path (per link: latency and the frame's line time), as
``incast_hpcc.fct_slowdowns`` defines it after HPCC's paper (section 5).
"""
from __future__ import annotations

from collections import deque
from typing import Any

from dataplane.net.devices.link import wire_bytes
from dataplane.net.rdma import TransportConfig, wire
from dataplane.net.rdma.hpcc import DEFAULT_PROFILE, INT_HEADER_BYTES, get_profile, with_base_rtt

__all__ = ["QueueRecorder", "record_queues", "queue_stats", "hpcc_transport", "fct_slowdowns", "frame_len"]

_ACK_FRAME = wire.frame_bytes(wire.AETH.size + INT_HEADER_BYTES)     # BTH, AETH, the echoed INT header, ICRC


class QueueRecorder:
    """The queue behind every frame one switch sends (module docstring): ``counts[bytes]``."""

    def __init__(self, node: Any):
        self.node = node
        self.counts: dict[int, int] = {}
        inner = node.dequeue
        counts = self.counts

        def dequeue(port: Any, item: Any, enq_time: int, enq_depth: int) -> bytes | None:
            q = port.queue_bytes
            counts[q] = counts.get(q, 0) + 1
            return inner(port, item, enq_time, enq_depth)

        node.dequeue = dequeue


def record_queues(net: Any) -> list[QueueRecorder]:
    """A recorder on every switch, in the network's order (the same on every MPI rank)."""
    return [QueueRecorder(node) for node in net.switches.values()]


def queue_stats(recorders: list[QueueRecorder]) -> dict[str, int]:
    """Nearest-rank p50 and p99 and the maximum of the recorded queues, in bytes."""
    total: dict[int, int] = {}
    for rec in recorders:
        for q, n in rec.counts.items():
            total[q] = total.get(q, 0) + n
    n = sum(total.values())
    out = {"queue_p50_bytes": 0, "queue_p99_bytes": 0, "queue_max_bytes": max(total, default=0)}
    for key, p in (("queue_p50_bytes", 50), ("queue_p99_bytes", 99)):
        rank = max(1, -(-n * p // 100))          # nearest rank: the ceil(n p / 100)-th smallest
        seen = 0
        for q in sorted(total):
            seen += total[q]
            if seen >= rank:
                out[key] = q
                break
    return out


def frame_len(payload: int, hpcc: bool) -> int:
    """Captured bytes of a data frame of ``payload`` message bytes (HPCC's carries its INT header)."""
    return wire.frame_bytes(payload + (INT_HEADER_BYTES if hpcc else 0))


def _path(fabric: Any, a: str, b: str) -> list[tuple[float, int]]:
    """(rate bit/s, latency ns) of each link of a shortest path from host ``a`` to host ``b``,
    failed links left out."""
    down = {frozenset(p) for p in fabric.config.down_links}
    adj: dict[str, list[tuple[str, Any]]] = {}
    for lk in fabric.spec.links:
        x, y = lk.a[0], lk.b[0]
        if frozenset((x, y)) in down:
            continue
        adj.setdefault(x, []).append((y, lk))
        adj.setdefault(y, []).append((x, lk))
    back: dict[str, tuple[str, Any]] = {a: (a, None)}
    todo = deque([a])
    while todo and b not in back:
        x = todo.popleft()
        for y, lk in adj.get(x, ()):
            if y not in back and (y == b or y not in fabric.spec.hosts):     # hosts do not forward
                back[y] = (x, lk)
                todo.append(y)
    if b not in back:
        raise ValueError(f"no path from {a} to {b}")
    links = []
    while b != a:
        b, lk = back[b]
        links.append((float(lk.bandwidth_bps), int(lk.latency_ns)))
    return links[::-1]


def hpcc_transport(fabric: Any, mtu: int) -> TransportConfig:
    """The transport of HPCC's flows on ``fabric`` (module docstring)."""
    names = [h.name for h in fabric.hosts]
    longest = max((_path(fabric, names[0], other) for other in names[1:]), key=len)
    data, ack = wire_bytes(frame_len(mtu, True)), wire_bytes(_ACK_FRAME)
    rtt = round(sum(2 * lat + (data + ack) * 8e9 / rate for rate, lat in longest))
    return TransportConfig(mtu=mtu, receiver="gbn", ack_every=1,
                           hpcc=with_base_rtt(get_profile(DEFAULT_PROFILE), rtt))


def fct_slowdowns(fabric: Any, pairs: list[tuple[int, int]], fcts: list[int], nbytes: int, mtu: int,
                  hpcc: bool) -> dict[str, float]:
    """Mean and p99 (nearest rank) of the flows' FCT slowdowns (module docstring)."""
    names = [h.name for h in fabric.hosts]
    full, rest = divmod(nbytes, mtu)
    line = full * wire_bytes(frame_len(mtu, hpcc)) + (wire_bytes(frame_len(rest, hpcc)) if rest else 0)
    one = wire_bytes(frame_len(min(mtu, nbytes), hpcc))
    slowdowns = []
    for (a, b), fct in zip(pairs, fcts):
        links = _path(fabric, names[a], names[b])
        ideal = line * 8e9 / links[0][0] + sum(lat + one * 8e9 / rate for rate, lat in links)
        slowdowns.append(fct / ideal)
    slowdowns.sort()
    k = max(0, -(-len(slowdowns) * 99 // 100) - 1)
    return {"fct_slowdown_mean": round(sum(slowdowns) / len(slowdowns), 3),
            "fct_slowdown_p99": round(slowdowns[k], 3)}
