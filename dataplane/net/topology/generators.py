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

Routing: for each destination subnet, a breadth-first search over the switch graph gives
every switch its distance; a switch forwards over all ports to neighbours one hop closer.
The edge switch of the subnet has one /32 ``set_nhop`` entry per host; every other switch
has a /24 entry: ``set_nhop`` for a single next hop, else ``set_ecmp(group, count)``
with ``ecmp_nhop`` entries for ``select`` 0..count-1. Groups are numbered per switch from 1,
one per distinct set of next-hop ports. ``smac`` rewrites the source MAC on every port.

ECMP hashes the same 5-tuple with crc32 on every switch, so two ECMP stages in a row would
pick correlated members (hash polarisation). A switch with a ``hash_stride`` M > 1 (the
fat-tree aggregation layer, M = k/2, the edge fan-out) installs groups of ``count = n*M``
where select s maps to member ``(s // M) mod n``: it decides on a different part of the
hash than the stage before it, so all (k/2)^2 core paths carry traffic. Leaf-spine has one
ECMP stage; dragonfly uses stride 1 everywhere (minimal routing rarely has two ECMP stages
in a row there).
"""
from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from dataplane.errors import DataplaneError, InternalError
from dataplane.net.topology.load import format_ipv4, format_mac


class GeneratorError(DataplaneError, ValueError):
    """Generator parameters that do not describe a valid fabric; the message says which and why."""

    code = "topology"

__all__ = ["GeneratedTopology", "GenSwitch", "GenHost", "leaf_spine", "fat_tree", "dragonfly", "GENERATORS",
           "PROGRAM", "host_mac", "switch_port_mac", "runtime_json_text", "GeneratorError"]

PROGRAM = "ecmp_router"
LPM_TABLE = "MyIngress.ipv4_lpm"
ECMP_TABLE = "MyIngress.ecmp_nhop"
SMAC_TABLE = "MyEgress.smac"


def host_mac(ip: int) -> int:
    return 0x02_00_00_00_00_00 | ip


def switch_port_mac(index: int, port: int) -> int:
    return 0x02_FE_00_00_00_00 | (index & 0xFFFF) << 16 | (port & 0xFFFF)


@dataclass
class GenSwitch:
    name: str
    index: int                                   # 1-based, YAML order; part of the port MACs
    role: str                                    # "leaf", "spine", "edge", "agg", "core", "router"
    ports: dict[int, tuple[str, int]] = field(default_factory=dict)   # port -> (peer node, peer port)
    hash_stride: int = 1

    def mac(self, port: int) -> int:
        return switch_port_mac(self.index, port)


@dataclass
class GenHost:
    name: str
    ip: int
    prefix_len: int
    mac: int
    gateway: int
    switch: str                                  # its edge switch
    port: int                                    # the edge switch's port to it
    static_arp: dict[int, int] = field(default_factory=dict)

    @property
    def subnet(self) -> int:
        return self.ip & ~((1 << (32 - self.prefix_len)) - 1) & 0xFFFFFFFF


@dataclass
class GeneratedTopology:
    """A generated fabric: nodes, links, and the runtime JSON of every switch (``entries``)."""

    name: str
    description: str
    switches: dict[str, GenSwitch] = field(default_factory=dict)
    hosts: dict[str, GenHost] = field(default_factory=dict)
    links: list[tuple[tuple[str, int], tuple[str, int]]] = field(default_factory=list)
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    program: str = PROGRAM
    defaults: dict[str, str] = field(default_factory=dict)            # YAML defaults: bandwidth, latency, queue
    link_params: dict[int, dict[str, str]] = field(default_factory=dict)  # link index -> overrides

    # ---- building ---------------------------------------------------------------------------------
    def add_switch(self, name: str, role: str, hash_stride: int = 1) -> GenSwitch:
        sw = GenSwitch(name, len(self.switches) + 1, role, hash_stride=hash_stride)
        self.switches[name] = sw
        return sw

    def connect(self, a: str, pa: int, b: str, pb: int, **params: str) -> None:
        for node, port in ((a, pa), (b, pb)):
            if node in self.switches:
                if port in self.switches[node].ports:
                    raise InternalError(f"generator bug: port {port} of {node} used twice")
        if a in self.switches:
            self.switches[a].ports[pa] = (b, pb)
        if b in self.switches:
            self.switches[b].ports[pb] = (a, pa)
        if params:
            self.link_params[len(self.links)] = {k: v for k, v in params.items() if v is not None}
        self.links.append(((a, pa), (b, pb)))

    def add_hosts(self, switch: str, subnet: int, count: int, first_port: int = 1) -> None:
        """``count`` hosts on ``switch`` ports first_port.., addressed in ``subnet`` (a /24)."""
        sw = self.switches[switch]
        gateway = subnet | 1
        new = []
        for n in range(1, count + 1):
            ip = subnet | (n + 1)
            port = first_port + n - 1
            h = GenHost(f"h{len(self.hosts) + 1}", ip, 24, host_mac(ip), gateway, switch, port)
            self.hosts[h.name] = h
            self.connect(switch, port, h.name, 0)
            new.append(h)
        for h in new:
            h.static_arp[gateway] = sw.mac(h.port)
            for other in new:
                if other is not h:
                    h.static_arp[other.ip] = other.mac

    # ---- routing ----------------------------------------------------------------------------------
    def peer(self, node: str, port: int) -> tuple[str, int] | None:
        """The (node, port) at the other end of ``node``'s ``port``, or None if unconnected."""
        if node in self.switches:
            return self.switches[node].ports.get(port)
        h = self.hosts[node]
        return (h.switch, h.port) if port == 0 else None

    def compute_entries(self) -> None:
        """Fill ``entries`` with shortest-path ECMP routes to every host subnet."""
        by_subnet: dict[tuple[int, int], list[GenHost]] = {}
        for h in self.hosts.values():
            by_subnet.setdefault((h.subnet, h.prefix_len), []).append(h)
        tables: dict[str, list[dict]] = {name: [] for name in self.switches}
        groups: dict[str, dict[tuple[int, ...], int]] = {name: {} for name in self.switches}
        group_entries: dict[str, list[dict]] = {name: [] for name in self.switches}
        for (subnet, plen), hosts in by_subnet.items():
            edges = {h.switch for h in hosts}
            if len(edges) != 1:
                raise InternalError(f"generator bug: subnet {format_ipv4(subnet)}/{plen} spans switches {sorted(edges)}")
            edge = edges.pop()
            dist = self._distances(edge)
            for h in sorted(hosts, key=lambda x: x.ip):
                tables[edge].append(_lpm(h.ip, 32, "set_nhop", {"dmac": format_mac(h.mac), "port": h.port}))
            for name, sw in self.switches.items():
                if name == edge or name not in dist:
                    continue
                hops = sorted(p for p, (peer, _) in sw.ports.items()
                              if peer in self.switches and dist.get(peer) == dist[name] - 1)
                if len(hops) == 1:
                    port = hops[0]
                    tables[name].append(_lpm(subnet, plen, "set_nhop",
                                             {"dmac": format_mac(self._peer_mac(name, port)), "port": port}))
                    continue
                key = tuple(hops)
                if key not in groups[name]:
                    gid = len(groups[name]) + 1
                    groups[name][key] = gid
                    stride = max(1, sw.hash_stride)
                    for sel in range(len(hops) * stride):
                        port = hops[(sel // stride) % len(hops)]
                        group_entries[name].append({
                            "table": ECMP_TABLE,
                            "match": {"meta.ecmp_group": gid, "meta.ecmp_select": sel},
                            "action_name": "MyIngress.set_nhop",
                            "action_params": {"dmac": format_mac(self._peer_mac(name, port)), "port": port},
                        })
                gid = groups[name][key]
                tables[name].append(_lpm(subnet, plen, "set_ecmp",
                                         {"group": gid, "count": len(hops) * max(1, sw.hash_stride)}))
        for name, sw in self.switches.items():
            smac = [{"table": SMAC_TABLE, "match": {"standard_metadata.egress_port": port},
                     "action_name": "MyEgress.rewrite_smac", "action_params": {"smac": format_mac(sw.mac(port))}}
                    for port in sorted(sw.ports)]
            self.entries[name] = {"target": "bmv2", "table_entries": tables[name] + group_entries[name] + smac}

    def _peer_mac(self, switch: str, port: int) -> int:
        peer, pport = self.switches[switch].ports[port]
        if peer in self.switches:
            return self.switches[peer].mac(pport)
        return self.hosts[peer].mac

    def _distances(self, source: str) -> dict[str, int]:
        dist = {source: 0}
        queue = deque([source])
        while queue:
            node = queue.popleft()
            for peer, _ in self.switches[node].ports.values():
                if peer in self.switches and peer not in dist:
                    dist[peer] = dist[node] + 1
                    queue.append(peer)
        return dist

    # ---- output -----------------------------------------------------------------------------------
    def entries_path(self, switch: str) -> str:
        """Where ``write`` puts a switch's runtime JSON, relative to the YAML file."""
        return f"{self.name}/{switch}-runtime.json"

    def to_yaml(self) -> str:
        q = json.dumps
        lines = [f"# {line}" if line else "#" for line in self.description.splitlines()]
        lines += ["# Generated by dataplane.net.topology.generators; the entries files are for programs/ecmp_router.p4.",
                  f"name: {self.name}"]
        if self.defaults:
            lines.append("defaults:")
            lines += [f"  {k}: {v}" for k, v in self.defaults.items()]
        lines += ["topology:", "  nodes:"]
        for name in self.switches:
            lines.append(f"    {name}: {{kind: switch, program: {self.program}, entries: {q(self.entries_path(name))}}}")
        for name, h in self.hosts.items():
            arp = ", ".join(f"{format_ipv4(ip)}: {q(format_mac(mac))}" for ip, mac in h.static_arp.items())
            lines.append(f"    {name}: {{kind: host, ip: {format_ipv4(h.ip)}/{h.prefix_len}, mac: {q(format_mac(h.mac))}, "
                         f"gateway: {format_ipv4(h.gateway)}, arp: {{{arp}}}}}")
        lines.append("  links:")
        for i, ((a, pa), (b, pb)) in enumerate(self.links):
            ea = f"{a}:p{pa}" if a in self.switches else f"{a}:eth{pa}"
            eb = f"{b}:p{pb}" if b in self.switches else f"{b}:eth{pb}"
            extra = "".join(f", {k}: {v}" for k, v in self.link_params.get(i, {}).items())
            lines.append(f"    - {{endpoints: [{q(ea)}, {q(eb)}]{extra}}}")
        return "\n".join(lines) + "\n"

    def write(self, directory: str | Path) -> Path:
        """Write ``<directory>/<name>.yaml`` and ``<directory>/<name>/<switch>-runtime.json``; return the YAML path."""
        directory = Path(directory)
        (directory / self.name).mkdir(parents=True, exist_ok=True)
        for name in self.switches:
            text = runtime_json_text(self.entries[name])
            (directory / self.entries_path(name)).write_text(text, encoding="utf-8")
        path = directory / f"{self.name}.yaml"
        path.write_text(self.to_yaml(), encoding="utf-8")
        return path

    @property
    def switch_links(self) -> list[tuple[tuple[str, int], tuple[str, int]]]:
        return [lk for lk in self.links if lk[0][0] in self.switches and lk[1][0] in self.switches]


def runtime_json_text(config: dict[str, Any]) -> str:
    """A runtime JSON document with one table entry per line (so errors point at one entry)."""
    head = {k: v for k, v in config.items() if k != "table_entries"}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    entries = config.get("table_entries", [])
    body = ",\n".join(f"    {json.dumps(e)}" for e in entries)
    lines.append('  "table_entries": [' + ("\n" + body + "\n  ]" if entries else "]"))
    return "\n".join(lines) + "\n}\n"


def _lpm(addr: int, plen: int, action: str, params: dict) -> dict:
    return {"table": LPM_TABLE, "match": {"hdr.ipv4.dstAddr": [format_ipv4(addr), plen]},
            "action_name": f"MyIngress.{action}", "action_params": params}


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
