"""Generated fabrics: leaf-spine, k-ary fat-tree and dragonfly, addressed and routed.

Each generator returns a ``GeneratedTopology``: the switches, hosts and links, plus one
runtime JSON per switch for the built-in ``ecmp_router`` program (``programs/ecmp_router.p4``)
that routes every host along all shortest paths with ECMP. ``write(dir)`` saves
``dir/<name>.yaml`` (containerlab-style, read by ``dataplane.net.topology.load.load_topology``)
and ``dir/<name>/<switch>-runtime.json``.

Shapes (switch ports start at 1; hosts always use eth0):

* ``leaf_spine(leaves, spines, hosts_per_leaf)``: every leaf connects to every spine.
  Switches ``spine1..``, ``leaf1..``; leaf ports 1..H go to its hosts, H+1..H+S to
  spine1..spineS; spine port i goes to leaf i. Links: L*S + L*H.
* ``fat_tree(k)`` (Al-Fares et al., SIGCOMM'08), k even: k pods of k/2 edge + k/2
  aggregation switches, (k/2)^2 core switches, k/2 hosts per edge switch: k^3/4 hosts,
  5k^2/4 switches, k^3/4 host links + k^3/4 edge-aggregation links + k^3/4
  aggregation-core links (k=4: 16 hosts, 20 switches, 48 links). Switches ``core1..``,
  ``agg<pod>_<i>``, ``edge<pod>_<i>`` (pods and i from 1). Edge ports 1..k/2 hosts,
  k/2+1..k aggregation switches; aggregation ports 1..k/2 edge switches, k/2+1..k cores;
  aggregation switch i of every pod connects to cores (i-1)*k/2+1 .. i*k/2; core port p
  goes to pod p.
* ``dragonfly(groups, routers_per_group, hosts_per_router, global_links_per_router)``
  (Kim, Dally, Scott, Abts, ISCA'08) with a = routers per group, p = hosts per router,
  h = global links per router: routers in a group are fully connected, router radix
  p + (a-1) + h, a*p hosts per group. Each group has a*h global ports, numbered j = 0..a*h-1
  and spread across routers (port j is on router j mod a). Global links are laid
  round-robin over the group pairs (1,2), (1,3), ..., (g-1,g), each time joining the next
  free global port of both groups, until no pair has free ports on both sides. With the
  default g = a*h + 1 groups (the maximum: every pair of groups joined by exactly one
  link) all ports are used: g*a routers, g*a*p hosts, g*a(a-1)/2 local links, g(g-1)/2 =
  g*a*h/2 global links. Fewer groups give parallel links between pairs (a port may stay
  unused when the count does not divide); more than a*h + 1 groups is refused. Routers
  ``g<group>r<router>``. Example (a, p, h) = (4, 2, 2): 9 groups, 36 routers, 72 hosts,
  54 local + 36 global + 72 host links.

Addressing (deterministic): the hosts of edge switch (leaf ``i`` / pod ``p`` edge ``e`` /
group ``g`` router ``r``) share the /24 ``10.0.i.0`` / ``10.p.e.0`` / ``10.g.r.0``; host n of
that switch (n from 1) is ``.n+1``; the gateway is ``.1``, answered by the edge switch with
the MAC of its port to the host (hosts get a static ARP entry for it and for their
same-subnet neighbours). Hosts are ``h1..hN`` in switch order. Host MAC ``02:00:`` + the
four IPv4 bytes; switch s (numbered from 1 in the YAML order) port q has MAC
``02:fe:SS:SS:QQ:QQ``.

The fabric model, its routes and its files: ``generated``.
"""
from __future__ import annotations

from typing import Callable

from dataplane.errors import DataplaneError
from dataplane.net.topology.generated import (
    PROGRAM,
    GeneratedTopology,
    GenHost,
    GenSwitch,
    host_mac,
    runtime_json_text,
    switch_port_mac,
)


class GeneratorError(DataplaneError, ValueError):
    """Generator parameters that do not describe a valid fabric; the message says which and why."""

    code = "topology"


__all__ = ["GeneratedTopology", "GenSwitch", "GenHost", "leaf_spine", "fat_tree", "dragonfly", "GENERATORS",
           "PROGRAM", "host_mac", "switch_port_mac", "runtime_json_text", "GeneratorError"]


def _subnet(a: int, b: int) -> int:
    return (10 << 24) | (a << 16) | (b << 8)


def _check(name: str, value: int, low: int, high: int) -> None:
    if type(value) is not int or not low <= value <= high:
        raise GeneratorError(f"{name} must be a whole number in {low}..{high}, got {value!r}")


def _finish(t: GeneratedTopology, bandwidth: str | None, latency: str | None, queue: str | None) -> GeneratedTopology:
    for k, v in (("bandwidth", bandwidth), ("latency", latency), ("queue", queue)):
        if v is not None:
            t.defaults[k] = str(v)
    t.compute_entries()
    return t


# ---- the generators -------------------------------------------------------------------------------

def leaf_spine(leaves: int = 2, spines: int = 2, hosts_per_leaf: int = 2, *, name: str | None = None,
               bandwidth: str | None = None, latency: str | None = None, queue: str | None = None,
               fabric_bandwidth: str | None = None) -> GeneratedTopology:
    """Two-tier Clos: every leaf to every spine; host n of leaf i is 10.0.i.(n+1)/24.

    ``bandwidth``/``latency``/``queue`` become the YAML defaults (e.g. ``"10Gbps"``, ``"1us"``,
    ``"64p"``); ``fabric_bandwidth`` overrides the bandwidth of leaf-spine links.
    """
    _check("leaves", leaves, 1, 255)
    _check("spines", spines, 1, 255)
    _check("hosts_per_leaf", hosts_per_leaf, 1, 253)
    t = GeneratedTopology(name or "leaf-spine",
                          f"Leaf-spine: {leaves} leaves, {spines} spines, {hosts_per_leaf} hosts per leaf.\n"
                          f"Host n of leaf i is 10.0.i.(n+1)/24, gateway 10.0.i.1; leaf ports 1..{hosts_per_leaf} "
                          f"go to hosts, {hosts_per_leaf + 1}.. to the spines.")
    for s in range(1, spines + 1):
        t.add_switch(f"spine{s}", "spine")
    for i in range(1, leaves + 1):
        t.add_switch(f"leaf{i}", "leaf")
    for i in range(1, leaves + 1):
        t.add_hosts(f"leaf{i}", _subnet(0, i), hosts_per_leaf)
    for i in range(1, leaves + 1):
        for s in range(1, spines + 1):
            t.connect(f"leaf{i}", hosts_per_leaf + s, f"spine{s}", i, bandwidth=fabric_bandwidth)
    return _finish(t, bandwidth, latency, queue)


def fat_tree(k: int = 4, *, name: str | None = None, bandwidth: str | None = None, latency: str | None = None,
             queue: str | None = None) -> GeneratedTopology:
    """k-ary fat tree: k^3/4 hosts, 5k^2/4 switches; host n of edge e in pod p is 10.p.e.(n+1)/24."""
    if type(k) is not int or k < 2 or k % 2 or k > 254:
        raise GeneratorError(f"k must be an even whole number in 2..254, got {k!r}")
    half = k // 2
    t = GeneratedTopology(name or f"fat-tree-k{k}",
                          f"k={k} fat tree: {k} pods of {half} edge + {half} aggregation switches, {half * half} cores,\n"
                          f"{k ** 3 // 4} hosts. Host n of edge e in pod p is 10.p.e.(n+1)/24, gateway 10.p.e.1.")
    for c in range(1, half * half + 1):
        t.add_switch(f"core{c}", "core")
    for p in range(1, k + 1):
        for i in range(1, half + 1):
            t.add_switch(f"agg{p}_{i}", "agg", hash_stride=half)
        for i in range(1, half + 1):
            t.add_switch(f"edge{p}_{i}", "edge")
    for p in range(1, k + 1):
        for e in range(1, half + 1):
            t.add_hosts(f"edge{p}_{e}", _subnet(p, e), half)
    for p in range(1, k + 1):
        for e in range(1, half + 1):
            for a in range(1, half + 1):
                t.connect(f"edge{p}_{e}", half + a, f"agg{p}_{a}", e)
        for a in range(1, half + 1):
            for j in range(1, half + 1):
                core = (a - 1) * half + j
                t.connect(f"agg{p}_{a}", half + j, f"core{core}", p)
    return _finish(t, bandwidth, latency, queue)


def dragonfly(groups: int | None = None, routers_per_group: int = 4, hosts_per_router: int = 2,
              global_links_per_router: int = 2, *, name: str | None = None, bandwidth: str | None = None,
              latency: str | None = None, queue: str | None = None,
              global_bandwidth: str | None = None, global_latency: str | None = None) -> GeneratedTopology:
    """Dragonfly (see the module docstring); ``groups`` defaults to a*h + 1, the fully connected maximum.

    Host n of router r in group g is 10.g.r.(n+1)/24. ``global_bandwidth``/``global_latency``
    override the parameters of the links between groups.
    """
    a, p, h = routers_per_group, hosts_per_router, global_links_per_router
    _check("routers_per_group", a, 1, 255)
    _check("hosts_per_router", p, 1, 253)
    _check("global_links_per_router", h, 0, 255)
    g = a * h + 1 if groups is None else groups
    if type(g) is int and g > a * h + 1:
        raise GeneratorError(f"groups must be at most routers_per_group * global_links_per_router + 1 = {a * h + 1} "
                             f"so that every pair of groups has a global link, got {g}")
    _check("groups", g, 1, 255)
    t = GeneratedTopology(name or "dragonfly",
                          f"Dragonfly: {g} groups of {a} routers (all-to-all), {p} hosts and {h} global links per "
                          f"router.\nHost n of router r in group g is 10.g.r.(n+1)/24, gateway 10.g.r.1. Router ports "
                          f"1..{p} hosts, {p + 1}..{p + a - 1} local, {p + a}..{p + a + h - 1} global.")
    for gi in range(1, g + 1):
        for r in range(1, a + 1):
            t.add_switch(f"g{gi}r{r}", "router")
    for gi in range(1, g + 1):
        for r in range(1, a + 1):
            t.add_hosts(f"g{gi}r{r}", _subnet(gi, r), p)
    for gi in range(1, g + 1):
        for r in range(1, a + 1):
            for s in range(r + 1, a + 1):
                # local port to router s on router r: p + index of s among the other routers
                t.connect(f"g{gi}r{r}", p + s - 1, f"g{gi}r{s}", p + r)
    free = {gi: 0 for gi in range(1, g + 1)}        # next free global port index j per group
    pairs = [(x, y) for x in range(1, g + 1) for y in range(x + 1, g + 1)]
    while pairs:
        progressed = []
        for x, y in pairs:
            if free[x] < a * h and free[y] < a * h:
                ends = []
                for gi in (x, y):
                    j = free[gi]
                    free[gi] += 1
                    ends.append((f"g{gi}r{j % a + 1}", p + a + j // a))
                t.connect(*ends[0], *ends[1], bandwidth=global_bandwidth, latency=global_latency)
                progressed.append((x, y))
        pairs = [pr for pr in progressed if free[pr[0]] < a * h and free[pr[1]] < a * h]
    return _finish(t, bandwidth, latency, queue)


GENERATORS: dict[str, Callable[..., GeneratedTopology]] = {
    "leaf-spine": leaf_spine,
    "fat-tree": fat_tree,
    "dragonfly": dragonfly,
}
