"""Routes of a generated fabric for a load-balancing scheme, with some links failed.

``reroute(gen, hash_stride, down)`` recomputes ``gen.entries`` (``GeneratedTopology.
compute_entries``: ECMP over every shortest path) after taking the ``down`` links out of the
switches' port maps, as a control plane does once it has converged after a failure: no group
keeps a member whose link is down, and a switch that lost its only shortest path routes around
(a fat-tree aggregation switch cut from an edge switch goes down through another edge switch
of its pod, and the switches above it stop sending that way). ``hash_stride`` False gives every
switch groups of one select per member (the schemes that do not hash need no stride).
"""
from __future__ import annotations

from dataplane.net.topology.generated import GeneratedTopology

__all__ = ["reroute", "uplinks", "TIERS"]

#: how high a switch role sits (uplinks go from a lower to a higher tier)
TIERS = {"edge": 0, "leaf": 0, "agg": 1, "spine": 1, "core": 2}


def reroute(gen: GeneratedTopology, hash_stride: bool = True, down: tuple[tuple[str, str], ...] = ()) -> None:
    """Recompute ``gen``'s routes without the ``down`` links (module docstring)."""
    if not down and hash_stride:
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
    gen.compute_entries()


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
