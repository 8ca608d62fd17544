"""The bound of a collective on a topology: the time its busiest link needs at line rate.

Every message of a plan crosses the fabric on shortest paths, shared out as ECMP would in the
ideal: at every node the flow splits evenly over the next hops that are one step closer to its
destination (a fluid model; a real hash can only do worse). Each message costs its wire
bytes: path-MTU packets, each with the RoCEv2 headers (BTH, ICRC, UDP, IPv4, Ethernet) and the
link's overhead (FCS, preamble and inter-frame gap), so the bound is a goodput bound.
Acknowledgements (one 70-byte frame per ``ack_every`` packets, the other way) are left out.

``link_time_ns`` is the lower bound on the collective's time; the busbw it allows is
factor x S / t, what nccl-tests would print if the collective ran at that bound.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Iterable, Sequence

from dataplane.net.devices.link import wire_bytes
from dataplane.net.rdma import wire
from dataplane.net.topology.spec import TopologySpec

__all__ = ["Bound", "message_wire_bytes", "link_bound", "plan_flows"]


def message_wire_bytes(nbytes: int, mtu: int, overhead: str = "ethernet") -> int:
    """Line bytes of one message of ``nbytes`` in ``mtu``-byte packets."""
    full, rest = divmod(nbytes, mtu)
    total = full * wire_bytes(wire.frame_bytes(mtu), overhead)
    if rest or not nbytes:
        total += wire_bytes(wire.frame_bytes(rest), overhead)
    return total


@dataclass(frozen=True)
class Bound:
    """The busiest directed link (``link``: its two ends), its line bytes, and its time."""

    link: tuple[str, str]
    wire_bytes: float
    time_ns: float


def link_bound(spec: TopologySpec, flows: Iterable[tuple[str, str, float]]) -> Bound:
    """The busiest link of ``spec`` when every (source host, destination host, line bytes) of
    ``flows`` spreads over the shortest paths (module docstring)."""
    adjacency: dict[str, list[tuple[str, int]]] = {}
    for link in spec.links:
        a, b = link.a[0], link.b[0]
        adjacency.setdefault(a, []).append((b, link.bandwidth_bps))
        adjacency.setdefault(b, []).append((a, link.bandwidth_bps))
    hosts = set(spec.hosts)
    load: dict[tuple[str, str], float] = {}
    rate: dict[tuple[str, str], int] = {}
    distances: dict[str, dict[str, int]] = {}
    for src, dst, nbytes in flows:
        if src == dst or nbytes <= 0:
            continue
        dist = distances.get(dst)
        if dist is None:
            dist = distances[dst] = _distances(adjacency, dst, hosts)
        if src not in dist:
            raise ValueError(f"no path from {src} to {dst}")
        share = {src: float(nbytes)}
        frontier = [src]
        while frontier:
            nxt_front: dict[str, None] = {}
            for node in frontier:
                amount = share.pop(node)
                if node == dst:
                    continue
                hops = [(n, r) for n, r in adjacency[node] if dist.get(n, -1) == dist[node] - 1]
                part = amount / len(hops)
                for n, r in hops:
                    key = (node, n)
                    load[key] = load.get(key, 0.0) + part
                    rate[key] = r
                    share[n] = share.get(n, 0.0) + part
                    nxt_front[n] = None
            frontier = list(nxt_front)
    if not load:
        return Bound(("", ""), 0.0, 0.0)
    key = max(load, key=lambda k: (load[k] * 8e9 / rate[k], k))
    return Bound(key, load[key], load[key] * 8e9 / rate[key])


def _distances(adjacency: dict[str, list[tuple[str, int]]], dst: str, hosts: set[str]) -> dict[str, int]:
    """Hops to ``dst`` from every node whose path to it crosses no other host."""
    dist = {dst: 0}
    queue = deque([dst])
    while queue:
        node = queue.popleft()
        if node != dst and node in hosts:
            continue                      # hosts do not forward
        for n, _ in adjacency.get(node, ()):
            if n not in dist:
                dist[n] = dist[node] + 1
                queue.append(n)
    return dist


def plan_flows(traffic: dict[tuple[int, int], list[int]], names: Sequence[str], mtu: int,
               overhead: str = "ethernet") -> list[tuple[str, str, float]]:
    """(source, destination, line bytes) of a plan's messages, from their sizes per rank pair."""
    return [(names[a], names[b], float(sum(message_wire_bytes(n, mtu, overhead) for n in sizes)))
            for (a, b), sizes in traffic.items()]
