"""A generated fabric (``GeneratedTopology``): switches, hosts, links, the routes of every switch
for the built-in ``ecmp_router`` program, and the files ``write`` saves (the YAML and one
runtime JSON per switch). ``generators`` builds one per shape.

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

from dataplane.errors import InternalError
from dataplane.net.topology.load import format_ipv4, format_mac

__all__ = ["GeneratedTopology", "GenSwitch", "GenHost", "PROGRAM", "host_mac", "switch_port_mac", "runtime_json_text"]

PROGRAM = "ecmp_router"
LPM_TABLE = "MyIngress.ipv4_lpm"
ECMP_TABLE = "MyIngress.ecmp_nhop"
SMAC_TABLE = "MyEgress.smac"


#: ``compute_entries``' weights: (switch, destination edge switch, next-hop ports, distances to
#: that edge) -> one whole weight per port, or None when they are all equal
Weigher = Callable[[str, str, list[int], dict[str, int]], "list[int] | None"]


def interleave(ports: list[int], weights: list[int]) -> list[int]:
    """``ports`` repeated by ``weights``, spread out (smooth weighted round robin: each turn every
    port gains its weight, the one ahead goes and loses the total; ties to the first), so that a
    round robin or a hash over the list meets the members in proportion all along."""
    total = sum(weights)
    credit = [0] * len(ports)
    out = []
    for _ in range(total):
        for i, w in enumerate(weights):
            credit[i] += w
        best = max(range(len(ports)), key=lambda i: (credit[i], -i))
        credit[best] -= total
        out.append(ports[best])
    return out


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

    def compute_entries(self, weigh: Weigher | None = None) -> None:
        """Fill ``entries`` with shortest-path ECMP routes to every host subnet; with ``weigh``
        (``weigh(switch, edge, hops, dist)``: each next-hop port's whole weight toward the edge
        switch of the subnet, or None for equal ones) weighted routes, WCMP: a group lists each
        member as many times as its weight, interleaved (``interleave``)."""
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
                weights = weigh(name, edge, hops, dist) if weigh is not None else None
                key = tuple(hops) if weights is None else tuple(interleave(hops, weights))
                if key not in groups[name]:
                    gid = len(groups[name]) + 1
                    groups[name][key] = gid
                    stride = max(1, sw.hash_stride)
                    for sel in range(len(key) * stride):
                        port = key[(sel // stride) % len(key)]
                        group_entries[name].append({
                            "table": ECMP_TABLE,
                            "match": {"meta.ecmp_group": gid, "meta.ecmp_select": sel},
                            "action_name": "MyIngress.set_nhop",
                            "action_params": {"dmac": format_mac(self._peer_mac(name, port)), "port": port},
                        })
                gid = groups[name][key]
                tables[name].append(_lpm(subnet, plen, "set_ecmp",
                                         {"group": gid, "count": len(key) * max(1, sw.hash_stride)}))
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


