"""The figures a load-balancing run is judged by.

* Goodput: each flow's message bytes over its completion time, summed over the flows
  (``aggregate_goodput``): the sum of the flows' own rates, so a flow held back by a collision
  counts at the rate it got however early the others finished.
* The bisection: the goodput a perfect balancer could give the same flows (``rack_bound``):
  each flow gets the least of its fair shares of four things it must cross: its source's host
  link, its destination's, its source rack's uplinks (shared by the flows leaving the rack) and
  its destination rack's (shared by the flows entering it), at the capacity they have (a failed
  uplink counts 0, a slow one its rate), times the payload's share of the line
  (``payload_efficiency``). For a permutation between racks on a non-blocking fabric that is
  every host's line rate: the full bisection bandwidth. It counts only the racks' uplinks, so
  it is an upper bound where a higher tier is the bottleneck (a fat-tree's pods are
  non-blocking as built).
* Completion times: mean and 99th percentile (nearest rank) of the flows' (or ranks') times,
  and the last one (the collective waits for it).
* Uplink utilisation: each up port's line bytes over its rate and the run's time; the spread is
  the busiest over the mean (1.0: perfectly even).
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

from dataplane.net.collectives.bound import message_wire_bytes

__all__ = ["percentile", "aggregate_goodput", "payload_efficiency", "rack_bound", "utilisation_spread"]


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of ``values``; 0 for none."""
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(len(s) * p / 100) - 1))
    return float(s[k])


def aggregate_goodput(flows: Iterable[tuple[int, int]]) -> float:
    """Sum of bytes x 8 / time over (bytes, completion ns) pairs, in Gb/s."""
    return sum(nbytes * 8 / ns for nbytes, ns in flows if ns > 0)


def payload_efficiency(nbytes: int, mtu: int) -> float:
    """Message bytes per line byte for a message of ``nbytes`` in ``mtu``-byte packets."""
    return nbytes / message_wire_bytes(nbytes, mtu) if nbytes else 0.0


def rack_bound(pairs: Sequence[tuple[int, int]], host_rate: Sequence[float], rack_of: Sequence[str],
               rack_capacity: Mapping[str, float]) -> list[float]:
    """Each flow's fair-share bound in bits/s (module docstring): ``pairs`` of host indexes,
    ``host_rate`` per host, ``rack_of`` each host's rack, ``rack_capacity`` each rack's uplink
    capacity (the same each way). Flows within a rack cross no uplink."""
    out_of: dict[int, int] = {}
    into: dict[int, int] = {}
    leaving: dict[str, int] = {}
    entering: dict[str, int] = {}
    for a, b in pairs:
        out_of[a] = out_of.get(a, 0) + 1
        into[b] = into.get(b, 0) + 1
        if rack_of[a] != rack_of[b]:
            leaving[rack_of[a]] = leaving.get(rack_of[a], 0) + 1
            entering[rack_of[b]] = entering.get(rack_of[b], 0) + 1
    bounds = []
    for a, b in pairs:
        share = min(host_rate[a] / out_of[a], host_rate[b] / into[b])
        if rack_of[a] != rack_of[b]:
            share = min(share, rack_capacity[rack_of[a]] / leaving[rack_of[a]],
                        rack_capacity[rack_of[b]] / entering[rack_of[b]])
        bounds.append(share)
    return bounds


def utilisation_spread(utilisations: Sequence[float]) -> tuple[float, float]:
    """(busiest, busiest / mean) of the uplinks' utilisations; (0, 0) when none carried anything."""
    if not utilisations:
        return 0.0, 0.0
    mean = sum(utilisations) / len(utilisations)
    top = max(utilisations)
    return top, (top / mean if mean > 0 else 0.0)
