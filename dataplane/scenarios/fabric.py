"""The AI fabric the collective command and the training scenario run on.

``FabricConfig`` names a topology, either generated (``fat-tree`` with ``k``, ``leaf-spine``
with ``leaves``/``spines``/``hosts_per_leaf``, ``dragonfly``) or a topology file (YAML or the
P4 tutorials' JSON, switches with their own programs and entries). A generated fabric runs
``programs/ecn.p4`` (``program``: another built-in with its tables, ``int`` for INT) on every
switch with the generator's routes (ECMP over all shortest paths),
links of ``bandwidth`` (hosts) and ``fabric_bandwidth`` (between switches, leaf-spine), a byte
buffer per egress port, PFC on every switch when ``pfc`` (XOFF/XON per ingress port: a
lossless fabric, as RoCE runs), and RED/ECN marking from a DCQCN profile when ``ecn``.
``build_fabric`` makes the network (this rank's part under mpiexec) and says which hosts share
a rack (the switch their NIC is cabled to), for hierarchical algorithms and placement.

``lb`` (a ``dataplane.net.loadbalance.schemes.LbConfig``) runs a load-balancing program instead
(``programs/ecmp.p4``, ``flowlet.p4``, ``spray.p4`` or ``adaptive.p4``: the same routes, ECN
marking and PFC, another way to pick a member of an ECMP group; with its ``ack_priority`` every
switch port gets strict-priority queues), each switch's random draws seeded by ``seed`` and
its name. ``down_links`` (pairs of switches of a generated fabric) are
down from the start and the routes are computed without them, as after a failure the control
plane has converged on (``loadbalance.routes``). With the scheme's ``wcmp`` the routes are
weighted by capacity, told of ``build_fabric``'s ``route_rates`` (two switches and a fraction
of the link's rate: a link the caller slows, as a port's new speed reaches the control plane).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dataplane.net.topology.spec import HostSpec, LinkSpec, SwitchSpec, TopologySpec

__all__ = ["FabricConfig", "Fabric", "build_fabric", "GENERATED"]

GENERATED = ("fat-tree", "leaf-spine", "dragonfly")


@dataclass
class FabricConfig:
    """What to build (module docstring). Sizes in bytes, rates and times as unit strings."""

    topology: str = "fat-tree"
    k: int = 4
    leaves: int = 4
    spines: int = 2
    hosts_per_leaf: int = 4
    bandwidth: str = "100Gbps"
    fabric_bandwidth: str | None = None
    latency: str = "1us"
    mtu: int = 9000
    buffer_bytes: int = 16_000_000
    pfc: bool = True
    pfc_xoff_bytes: int = 1_000_000
    pfc_xon_bytes: int = 500_000
    ecn: bool = False
    ecn_profile: str = "dcqcn-paper"
    seed: int = 1
    program: str = "ecn"
    lb: Any = None                                 # a loadbalance.schemes.LbConfig: its program instead
    down_links: tuple[tuple[str, str], ...] = ()

    def describe(self) -> str:
        if self.topology == "fat-tree":
            shape = f"fat-tree k={self.k}"
        elif self.topology == "leaf-spine":
            shape = f"leaf-spine {self.leaves}x{self.spines}, {self.hosts_per_leaf} hosts per leaf"
        else:
            shape = self.topology
        lb = f", {self.lb.describe()}" if self.lb is not None else ""
        down = "".join(f", {a}-{b} down" for a, b in self.down_links)
        return f"{shape}, {self.bandwidth} host links, {self.latency} per link{lb}{down}"


@dataclass
class Fabric:
    """A built fabric: the network, its hosts in order, each host's rack, its topology spec."""

    net: Any
    hosts: list[Any]
    rack_of: dict[str, str]
    spec: TopologySpec
    config: FabricConfig
    notes: list[str] = field(default_factory=list)
    uplinks: list[tuple[str, int]] = field(default_factory=list)     # (switch, port) one tier up, failed ones too

    def racks(self, hosts: list[Any]) -> list[list[int]]:
        """The indexes into ``hosts`` grouped by rack, racks in order of first appearance."""
        groups: dict[str, list[int]] = {}
        for i, h in enumerate(hosts):
            groups.setdefault(self.rack_of.get(h.name, h.name), []).append(i)
        return list(groups.values())


def _generated(cfg: FabricConfig):
    from dataplane.net.topology import generators

    if cfg.topology == "fat-tree":
        return generators.fat_tree(cfg.k, bandwidth=cfg.bandwidth, latency=cfg.latency)
    if cfg.topology == "leaf-spine":
        return generators.leaf_spine(cfg.leaves, cfg.spines, cfg.hosts_per_leaf, bandwidth=cfg.bandwidth,
                                     latency=cfg.latency, fabric_bandwidth=cfg.fabric_bandwidth)
    return generators.dragonfly(bandwidth=cfg.bandwidth, latency=cfg.latency)


def build_fabric(cfg: FabricConfig, route_rates: tuple[tuple[str, str, float], ...] = ()) -> Fabric:
    """Build the network ``cfg`` describes, its WCMP routes told of ``route_rates`` (module docstring)."""
    from dataplane.net.parallel.session import build_network

    if cfg.topology in GENERATED:
        return _build_generated(cfg, route_rates)
    if cfg.lb is not None or cfg.down_links:
        raise ValueError("a load-balancing program and failed links need a generated fabric "
                         f"({', '.join(GENERATED)}), not {cfg.topology!r}")
    from dataplane.net.topology.load import load_topology
    from dataplane.resources import builtin_topology

    path = Path(cfg.topology)
    if not path.exists():
        path = builtin_topology(cfg.topology)
    spec = load_topology(path)
    net = build_network(spec, seed=cfg.seed)
    rack_of = {}
    for link in spec.links:
        for (a, _), (b, _) in ((link.a, link.b), (link.b, link.a)):
            if a in spec.hosts and b not in spec.hosts:
                rack_of[a] = b
    return Fabric(net, [net.host(h) for h in spec.hosts], rack_of, spec, cfg)


def _build_generated(cfg: FabricConfig, route_rates: tuple[tuple[str, str, float], ...] = ()) -> Fabric:
    from dataplane.control.loader import apply_runtime_config
    from dataplane.control.runtime_json import parse_runtime_json
    from dataplane.net.apps.dcqcn_profiles import get_profile
    from dataplane.net.core.units import parse_rate, parse_time
    from dataplane.net.devices.queue_bytes import attach_queue_bytes
    from dataplane.net.loadbalance.routes import reroute, uplinks
    from dataplane.net.loadbalance.schemes import ACK_QUEUES, component_entries, configure, leaf_id, member_entries
    from dataplane.net.parallel.session import build_network
    from dataplane.net.topology.generators import runtime_json_text
    from dataplane.net.topology.tclass_spec import QueueConfig
    from dataplane.resources import builtin_program

    if cfg.ecn and cfg.program != "ecn":
        raise ValueError(f"ECN marking (ecn) is programs/ecn.p4's; the fabric's program is {cfg.program}")
    if cfg.lb is not None and cfg.program != "ecn":
        raise ValueError(f"a load-balancing scheme runs its own program, not {cfg.program}: set one of the two")
    gen = _generated(cfg)
    lb = cfg.lb
    ups = uplinks(gen)          # before the failed links leave the port maps: every uplink built
    reroute(gen, hash_stride=lb is None or lb.hashes, down=tuple(cfg.down_links),
            weighted=lb is not None and lb.wcmp, slow=route_rates)
    program = builtin_program(lb.program if lb is not None else cfg.program)
    spec = TopologySpec(gen.name)
    params = {"pfc": {"xoff": cfg.pfc_xoff_bytes, "xon": cfg.pfc_xon_bytes}} if cfg.pfc else {}
    if lb is not None and lb.ack_priority:
        params["queues"] = QueueConfig.from_value(ACK_QUEUES)
    for name in gen.switches:
        spec.switches[name] = SwitchSpec(name, program, params=dict(params))
    for name, gh in gen.hosts.items():
        spec.hosts[name] = HostSpec(name, gh.mac, gh.ip, gh.prefix_len, gh.gateway, dict(gh.static_arp))
    rate, latency = parse_rate(cfg.bandwidth), parse_time(cfg.latency)
    for i, (a, b) in enumerate(gen.links):
        extra = gen.link_params.get(i, {})
        bw, lat = extra.get("bandwidth"), extra.get("latency")
        spec.links.append(LinkSpec(a, b, parse_rate(bw) if bw else rate, parse_time(lat) if lat else latency,
                                   (cfg.buffer_bytes, "bytes"), cfg.mtu))
    net = build_network(spec, seed=cfg.seed)
    profile = get_profile(cfg.ecn_profile).at_rate(rate) if cfg.ecn else None
    leaves = {gh.switch: leaf_id(gh.ip) for gh in gen.hosts.values()}    # edge switches (adaptive's path mode)
    for name, node in net.switches.items():
        entries = gen.entries[name]
        if lb is not None and lb.compares_loads:
            table = entries["table_entries"]
            extra = member_entries(table, name) + (component_entries(table) if lb.components else [])
            entries = {**entries, "table_entries": table + extra}
        apply_runtime_config(node.api, parse_runtime_json(runtime_json_text(entries), f"<{name}>"))
        if lb is not None:
            configure(node.api, lb, leaves.get(name))
            node.dp.rng.seed(f"{cfg.seed}/{name}")
        if profile is not None:
            node.api.table_set_default("MyEgress.ecn_profile", "MyEgress.ecn_red", {
                "kmin": profile.kmin_bytes, "kmax": profile.kmax_bytes, "pmax": round(profile.pmax * 65536)})
    for node in list(net.switches.values()) + list(net.hosts.values()):
        for port in node.ports.values():
            port.record_depth = False
    attach_queue_bytes(net)
    for a, b in cfg.down_links:
        net.set_link(a, b, up=False, at_ns=0)
    rack_of = {name: gh.switch for name, gh in gen.hosts.items()}
    return Fabric(net, [net.host(h) for h in gen.hosts], rack_of, spec, cfg, uplinks=ups)
