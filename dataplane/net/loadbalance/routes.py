"""Routes of a generated fabric for a load-balancing scheme, with some links failed.

``reroute(gen, hash_stride, down)`` recomputes ``gen.entries`` (``GeneratedTopology.
compute_entries``: ECMP over every shortest path) after taking the ``down`` links out of the
switches' port maps, as a control plane does once it has converged after a failure: no group
keeps a member whose link is down, and a switch that lost its only shortest path routes around
(a fat-tree aggregation switch cut from an edge switch goes down through another edge switch
of its pod, and the switches above it stop sending that way). ``hash_stride`` False gives every
switch groups of one select per member (the schemes that do not hash need no stride).

``weighted`` makes them WCMP routes (Zhou et al., EuroSys 2014), told of the ``slow`` links'
rates as a control plane is told of a port's new speed: each next hop weighs what it can carry
to the destination, the least of its own link's rate and the maximum flow from it to the
destination's edge switch over the shortest paths (``CapacityWeights``). A fat-tree source edge
whose first aggregation switch has a half-rate link down to the destination's edge then sends
it one packet in seven, and each of the others two. On an even fabric the weights are equal
and the routes are ECMP's, entry for entry.
"""
from __future__ import annotations

from collections import deque
from math import gcd

from dataplane.net.core.units import parse_rate
from dataplane.net.topology.generated import GeneratedTopology

__all__ = ["reroute", "uplinks", "TIERS", "CapacityWeights", "apportion"]

#: how high a switch role sits (uplinks go from a lower to a higher tier)
TIERS = {"edge": 0, "leaf": 0, "agg": 1, "spine": 1, "core": 2}
#: a weighted group's selects per member stride at most (adaptive.p4 compares 8 members)
MAX_SELECTS = 8


def reroute(gen: GeneratedTopology, hash_stride: bool = True, down: tuple[tuple[str, str], ...] = (),
            weighted: bool = False, slow: tuple[tuple[str, str, float], ...] = ()) -> None:
    """Recompute ``gen``'s routes without the ``down`` links, weighted by capacity with the
    ``slow`` links (a, b, fraction of their rate) when ``weighted`` (module docstring)."""
    if not down and hash_stride and not weighted:
        return
    for a, b in down:
        if a not in gen.switches or b not in gen.switches:
            raise ValueError(f"link {a}-{b}: only a link between two switches can be failed")
        ports = [p for p, (peer, _) in gen.switches[a].ports.items() if peer == b]
        if not ports:
            raise ValueError(f"link {a}-{b}: the fabric has no such link")
        for p in ports:
            _, peer_port = gen.switches[a].ports.pop(p)
            gen.switches[b].ports.pop(peer_port, None)
    if not hash_stride:
        for sw in gen.switches.values():
            sw.hash_stride = 1
    gen.compute_entries(CapacityWeights(gen, slow) if weighted else None)


class CapacityWeights:
    """WCMP's weights for ``GeneratedTopology.compute_entries`` (module docstring): a next hop
    weighs the least of its link's rate and the maximum flow from it to the destination's edge
    switch, over the links that bring a packet one hop closer (Edmonds-Karp, per pair, cached)."""

    def __init__(self, gen: GeneratedTopology, slow: tuple[tuple[str, str, float], ...] = ()):
        self.gen = gen
        factor = {frozenset((a, b)): f for a, b, f in slow}
        for a, b, _ in slow:
            if a not in gen.switches or not any(peer == b for peer, _ in gen.switches[a].ports.values()):
                raise ValueError(f"link {a}-{b}: the fabric has no such link between two switches")
        self.rate: dict[tuple[str, int], int] = {}      # (switch, port) -> Mb/s
        for i, ((a, pa), (b, pb)) in enumerate(gen.links):
            text = gen.link_params.get(i, {}).get("bandwidth") or gen.defaults.get("bandwidth", "100Gbps")
            mbps = max(1, round(parse_rate(text) * factor.get(frozenset((a, b)), 1.0) / 1e6))
            self.rate[(a, pa)] = self.rate[(b, pb)] = mbps
        self._flows: dict[tuple[str, str], int] = {}

    def __call__(self, switch: str, edge: str, hops: list[int], dist: dict[str, int]) -> list[int] | None:
        ports = self.gen.switches[switch].ports
        caps = [min(self.rate[(switch, p)], self.max_flow(ports[p][0], edge, dist)) for p in hops]
        if len(set(caps)) == 1:
            return None
        return apportion(caps, MAX_SELECTS if len(hops) <= MAX_SELECTS else len(hops))

    def max_flow(self, source: str, edge: str, dist: dict[str, int]) -> int:
        """Mb/s from ``source`` to ``edge`` over the links toward it (``dist``: hops to ``edge``)."""
        if source == edge:
            return 1 << 62
        key = (source, edge)
        if key not in self._flows:
            self._flows[key] = self._edmonds_karp(source, edge, dist)
        return self._flows[key]

    def _edmonds_karp(self, source: str, sink: str, dist: dict[str, int]) -> int:
        residual: dict[str, dict[str, int]] = {}
        seen, queue = {source}, deque([source])
        while queue:                       # the links one hop closer, from source on, summed per pair
            node = queue.popleft()
            for port, (peer, _) in self.gen.switches[node].ports.items():
                if peer in self.gen.switches and dist.get(peer) == dist[node] - 1:
                    out = residual.setdefault(node, {})
                    out[peer] = out.get(peer, 0) + self.rate[(node, port)]
                    residual.setdefault(peer, {}).setdefault(node, 0)
                    if peer not in seen:
                        seen.add(peer)
                        queue.append(peer)
        total = 0
        while True:
            parent = {source: source}
            queue = deque([source])
            while queue and sink not in parent:
                node = queue.popleft()
                for peer, cap in residual.get(node, {}).items():
                    if cap > 0 and peer not in parent:
                        parent[peer] = node
                        queue.append(peer)
            if sink not in parent:
                return total
            path, node = [], sink
            while node != source:
                path.append((parent[node], node))
                node = parent[node]
            push = min(residual[a][b] for a, b in path)
            for a, b in path:
                residual[a][b] -= push
                residual[b][a] += push
            total += push


def apportion(caps: list[int], limit: int) -> list[int]:
    """Whole weights, at least 1 each and at most ``limit`` in all, closest in share to ``caps``
    (exactly their ratio when it fits: 50 and 100 give 1 and 2): each total from one a member to
    ``limit`` apportioned by largest remainder, the total whose worst share errs least (the
    smallest of equals)."""
    g = 0
    for c in caps:
        g = gcd(g, c)
    exact = [c // g for c in caps]
    if sum(exact) <= limit:
        return exact
    whole = sum(caps)
    best: tuple[float, list[int]] | None = None
    for total in range(len(caps), limit + 1):
        quota = [c * total / whole for c in caps]
        weights = [max(1, int(q)) for q in quota]
        for i in sorted(range(len(caps)), key=lambda i: (int(quota[i]) - quota[i], i)):   # largest remainder first
            if sum(weights) >= total:
                break
            weights[i] += 1
        err = max(abs(w / sum(weights) - c / whole) for w, c in zip(weights, caps))
        if best is None or err < best[0] - 1e-12:
            best = (err, weights)
    assert best is not None
    return best[1]



def uplinks(gen: GeneratedTopology) -> list[tuple[str, int]]:
    """(switch, port) of every port that leads one tier up (edge/leaf to aggregation/spine,
    aggregation to core), in switch order."""
    out = []
    for name, sw in gen.switches.items():
        tier = TIERS.get(sw.role)
        if tier is None:
            continue
        for port, (peer, _) in sorted(sw.ports.items()):
            peer_sw = gen.switches.get(peer)
            if peer_sw is not None and TIERS.get(peer_sw.role, -1) > tier:
                out.append((name, port))
    return out
