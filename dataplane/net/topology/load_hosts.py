"""The ``kind: host`` nodes of a YAML topology: addresses checked for clashes, then the
deterministic defaults (10.0.0.N/24 and a MAC made from the IP) for hosts that give none."""
from __future__ import annotations

from typing import Any, Callable

from dataplane.net.topology.addresses import (
    check_host_mac,
    format_ipv4,
    format_mac,
    parse_interface,
    parse_ipv4,
    parse_mac,
)
from dataplane.net.topology.host_queues import read_host_queues
from dataplane.net.topology.reader import Reader, show
from dataplane.net.topology.spec import HostSpec, TopologySpec
from dataplane.net.topology.xdp import read_host_xdp


def _host_field(r: Reader, body: dict, key: str, field: str, parse: Callable[[Any], Any]) -> Any:
    """``parse(body[key])``, a ValueError becoming an error at that key's line."""
    try:
        return parse(body[key])
    except ValueError as e:
        raise r.err(r.line_of(body, key), f"{field}.{key}", str(e), body[key]) from None


def _claim(r: Reader, body: dict, key: str, field: str, seen: dict, value: Any, what: str, name: str,
           line: int) -> None:
    """Record ``value`` as host ``name``'s, or fail if another host has it already."""
    if value in seen:
        other, oline = seen[value]
        raise r.err(r.line_of(body, key), f"{field}.{key}",
                    f"{what} is already used by host '{other}' (line {oline})", body[key])
    seen[value] = (name, line)


def yaml_hosts(r: Reader, spec: TopologySpec, pending: list[tuple[str, dict, int]]) -> None:
    """Add the pending host nodes (name, body, line) to ``spec``, in file order."""
    ips: dict[int, tuple[str, int]] = {}
    macs: dict[int, tuple[str, int]] = {}
    parsed = []
    for name, body, line in pending:
        field = f"topology.nodes.{name}"
        ip = plen = mac = gateway = None
        if body.get("ip") is not None:
            ip, plen = _host_field(r, body, "ip", field, parse_interface)
            _claim(r, body, "ip", field, ips, ip, f"IPv4 address {format_ipv4(ip)}", name, line)
        if body.get("mac") is not None:
            mac = _host_field(r, body, "mac", field, lambda v: check_host_mac(parse_mac(v), v))
            _claim(r, body, "mac", field, macs, mac, f"MAC address {format_mac(mac)}", name, line)
        if body.get("gateway") is not None:
            gateway = _host_field(r, body, "gateway", field, parse_ipv4)
        arp: dict[int, int] = {}
        if body.get("arp") is not None:
            table = r.mapping(body["arp"], f"{field}.arp", r.line_of(body, "arp"))
            r.no_duplicates(table, f"{field}.arp")
            for k, v in table.items():
                kl = r.line_of(table, k) or r.line_of(body, "arp")
                try:
                    arp[parse_ipv4(k)] = parse_mac(v)
                except ValueError as e:
                    raise r.err(kl, f"{field}.arp.{k}", str(e), v) from None
        xdp = read_host_xdp(r, name, body) if body.get("xdp") is not None else None
        netns = body.get("netns", False)
        if not isinstance(netns, bool):
            raise r.err(r.line_of(body, "netns") or line, f"{field}.netns",
                        f"must be true or false, got {show(netns)}", netns)
        queues, trust = read_host_queues(r, name, body, netns)     # traffic classes on the NIC
        parsed.append([name, line, ip, plen, mac, gateway, arp, xdp, netns, queues, trust])
    # Deterministic defaults, in file order, avoiding addresses given explicitly.
    next_n = 1
    for item in parsed:
        name, line, ip, plen, mac, gateway, arp, xdp, netns, queues, trust = item
        if ip is None:
            while (0x0A000000 | next_n) in ips:
                next_n += 1
            if next_n > 254:
                raise r.err(line, f"topology.nodes.{name}.ip", "ran out of default addresses in 10.0.0.0/24; "
                                                               "give this host an 'ip'")
            ip, plen = 0x0A000000 | next_n, 24
            ips[ip] = (name, line)
        if mac is None:
            mac = 0x020000000000 | ip
            while mac in macs:
                mac += 1 << 32
            macs[mac] = (name, line)
        spec.hosts[name] = HostSpec(name=name, mac=mac, ip=ip, prefix_len=plen, gateway=gateway,
                                    static_arp=arp, line=line, xdp=xdp, netns=netns, queues=queues, trust=trust)

