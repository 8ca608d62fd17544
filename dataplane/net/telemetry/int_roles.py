"""INT roles on the switches of a network that run ``programs/int.p4``, from its topology.

``configure_int(net, collector)`` writes, on every switch whose program has int.p4's tables:

* ``int_transit``: node id (the switch's place in the network's switches, from 1) and the MTU
  (the smallest IP MTU of its links), so every INT switch adds its hop;
* ``int_source``: for every port cabled to a host, the UDP packets entering there (all of them,
  or the ``flows`` given) get INT with ``instructions`` and ``max_hops``;
* ``int_sink``: every port cabled to a host takes INT off what leaves there;
* ``int_report`` and clone session ``REPORT_SESSION`` (switches with host ports): reports go
  to ``collector`` on ``report_port``, leaving on the port the switch's own routes pick for the
  collector's address (``ipv4_lpm``, and ``ecmp_nhop``'s first member for an ECMP route), with
  ``report_source_ip(node id)`` as their source address. Without a collector, sinks strip and
  report nothing.

The host ports being both sources and sinks, every UDP flow between two hosts is an INT flow
whose stack holds every switch of its path, source and sink included.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from dataplane.net.hosts.packets import ip_str, mac_str, parse_ip
from dataplane.net.telemetry.int_wire import (
    INSTRUCTIONS,
    INT_UDP_PORT,
    REPORT_UDP_PORT,
    RESERVED_BITS,
    hop_words,
    instruction_bitmap,
)
from dataplane.records import record

__all__ = ["DEFAULT_INSTRUCTIONS", "REPORT_SESSION", "IntDeployment", "configure_int", "int_switches",
           "report_source_ip"]

#: node id, level 1 ports, hop latency, queue, ingress and egress timestamps, egress tx bytes: 9 words
DEFAULT_INSTRUCTIONS = instruction_bitmap("node_id", "level1_port_ids", "hop_latency", "queue", "ingress_timestamp",
                                          "egress_timestamp", "egress_tx")
REPORT_SESSION = 500              # programs/int.p4's INT_REPORT_SESSION
TRANSIT_TABLE = "MyEgress.int_transit"
MAX_STACK_WORDS = 252             # the shim's 8-bit length less the 3-word INT-MD header


@record(slots=True)
class IntDeployment:
    """What ``configure_int`` set: node ids by switch, the host ports, where reports go."""

    node_ids: dict
    host_ports: dict                 # switch -> [ports cabled to hosts]
    instructions: int
    max_hops: int
    collector: Optional[str]
    collector_ip: Optional[int]
    report_port: int

    @property
    def node_names(self) -> dict[int, str]:
        return {i: name for name, i in self.node_ids.items()}


def report_source_ip(node_id: int) -> int:
    """The source address of a switch's reports: 10.255.x.y from its node id."""
    return 0x0AFF0000 | (node_id & 0xFFFF)


def int_switches(net: Any) -> list[Any]:
    """The switches of ``net`` whose program has int.p4's tables, in the network's order."""
    return [node for node in net.switches.values() if TRANSIT_TABLE in node.api.table_names()]


def configure_int(net: Any, collector: Any = None, *, instructions: int = DEFAULT_INSTRUCTIONS, max_hops: int = 8,
                  report_port: int = REPORT_UDP_PORT, flows: Iterable[dict] = ()) -> IntDeployment:
    """Set the INT roles (module docstring). ``collector``: a host or its name (None: no reports).
    ``flows``: watchlist entries ``{"src": IP, "dst": IP, "dport": port}`` (each key optional);
    none: every UDP packet from a host. ValueError for what cannot be set, before anything is."""
    switches = int_switches(net)
    if not switches:
        raise ValueError("no switch of the network runs programs/int.p4 (tables int_transit, int_source, int_sink)")
    _check_instructions(instructions, max_hops)
    if not 1 <= report_port <= 65535 or report_port == INT_UDP_PORT:
        raise ValueError(f"report port {report_port} must be 1..65535 and not INT's own {INT_UDP_PORT}")
    host = net.host(collector) if isinstance(collector, str) else collector
    watch = [_watch_entry(f) for f in flows] or [(0, 0, 0, 0, 0, 0)]
    order = {name: i + 1 for i, name in enumerate(net.switches)}
    host_ports = {node.name: sorted(n for n, p in node.ports.items() if _is_host_port(p)) for node in switches}
    routes = {node.name: _route(node, host.ip) for node in switches if host is not None and host_ports[node.name]}
    for node in switches:
        api, node_id = node.api, order[node.name]
        api.table_set_default(TRANSIT_TABLE, "MyEgress.int_set_transit", [node_id, _mtu(node)])
        for port in host_ports[node.name]:
            for src, smask, dst, dmask, dport, pmask in watch:
                api.table_add("MyIngress.int_source", "MyIngress.int_set_source",
                              [(port, 0x1FF), (src, smask), (dst, dmask), (dport, pmask)], [max_hops, instructions],
                              priority=1)
            api.table_add("MyEgress.int_sink", "MyEgress.int_set_sink", [port], [])
        if node.name in routes:
            dmac, out_port = routes[node.name]
            api.clone_session_add(REPORT_SESSION, out_port)
            api.table_set_default("MyEgress.int_report", "MyEgress.int_report_to",
                                  [mac_str(dmac), ip_str(report_source_ip(node_id)), ip_str(host.ip), report_port,
                                   report_port])
    return IntDeployment(node_ids={n.name: order[n.name] for n in switches}, host_ports=host_ports,
                         instructions=instructions, max_hops=max_hops,
                         collector=host.name if host is not None else None,
                         collector_ip=host.ip if host is not None else None, report_port=report_port)


def _check_instructions(instructions: int, max_hops: int) -> None:
    if not 0 < instructions <= 0xFFFF or instructions & RESERVED_BITS:
        raise ValueError(f"instruction bitmap {instructions:#x} must be 16 bits with only bits 0-8 and 15 set "
                         f"({', '.join(name for name, _ in INSTRUCTIONS.values())})")
    if not 1 <= max_hops <= 255:
        raise ValueError(f"max_hops {max_hops} must be 1..255")
    words = hop_words(instructions)
    if words * max_hops > MAX_STACK_WORDS:
        raise ValueError(f"{max_hops} hops of {words} words pass the {MAX_STACK_WORDS} words an INT stack may hold "
                         f"(the shim's 8-bit length): at most {MAX_STACK_WORDS // words} hops")


def _watch_entry(flow: dict) -> tuple[int, int, int, int, int, int]:
    unknown = set(flow) - {"src", "dst", "dport"}
    if unknown:
        raise ValueError(f"an INT flow names src, dst and dport only, not {', '.join(sorted(unknown))}")
    src = parse_ip(str(flow["src"])) if flow.get("src") is not None else 0
    dst = parse_ip(str(flow["dst"])) if flow.get("dst") is not None else 0
    dport = flow.get("dport")
    if dport is not None and (isinstance(dport, bool) or not isinstance(dport, int) or not 0 <= dport <= 65535):
        raise ValueError(f"an INT flow's dport must be 0..65535, not {dport!r}")
    return (src, 0xFFFFFFFF if flow.get("src") is not None else 0, dst, 0xFFFFFFFF if flow.get("dst") is not None else 0,
            dport or 0, 0xFFFF if dport is not None else 0)


def _is_host_port(port: Any) -> bool:
    peer = port.peer
    return peer is not None and getattr(peer.node, "kind", None) == "host"


def _mtu(node: Any) -> int:
    """The largest IPv4 packet every link of ``node`` carries (a link's MTU counts the Ethernet payload)."""
    mtus = [p.link.mtu for p in node.ports.values() if p.link is not None]
    return min(min(mtus, default=1500), 0xFFFF)


def _route(node: Any, ip: int) -> tuple[int, int]:
    """(next hop MAC, port) of ``node``'s own route to ``ip``: ipv4_lpm, then ecmp_nhop's select 0."""
    api = node.api
    entry = api.table("MyIngress.ipv4_lpm").match.lookup((ip,))
    if entry is not None and entry.name.endswith("set_ecmp"):
        group = entry.args[0]
        entry = api.table("MyIngress.ecmp_nhop").match.lookup((group, 0))
    if entry is None or not entry.name.endswith("set_nhop"):
        raise ValueError(f"switch {node.name} has no route to the INT collector at {ip_str(ip)} "
                         f"(its ipv4_lpm and ecmp_nhop entries)")
    dmac, port = entry.args[0], entry.args[1]
    return dmac, port
