"""Read the P4 tutorials' ``topology.json`` into a ``TopologySpec``.

The file holds ``hosts`` / ``switches`` / ``links``: hosts take their gateway and static ARP
entries from their ``commands`` (``route add default gw IP ...``, ``ip route add default via
IP``, ``arp [-i eth0] -s IP MAC``); switches their ``runtime_json`` or ``cli_input``; links are
``[a, b]`` or ``[a, b, latency, bandwidth]`` with switch ports written ``s1-p3`` (latency: a
number or a bare-number string is milliseconds, other strings are read as times; bandwidth is
Mbit/s). A switch runs the program it names (``build/firewall.json`` stands for the source
``firewall.p4``, which is looked up) or a ``--program`` (``load_topology(path, program=...)``):
the one of the same name, or one for the switches that name none
(``dataplane.net.topology.programs``). Relative file names are looked up next to the topology
file, then in its parent directory (the exercise directory the tutorials run from), then in the
working directory.

Every problem raises ``ConfigError`` naming the file, the line and the field.
``dataplane.net.topology.load.load_topology`` reads ``.json`` files with this module.
"""
from __future__ import annotations

import math
import re
import shlex
from pathlib import Path
from typing import Any, Sequence

from dataplane.control.config_errors import ConfigError
from dataplane.net.core.units import parse_rate, parse_time
from dataplane.net.topology.addresses import (
    check_host_mac,
    format_ipv4,
    format_mac,
    parse_interface,
    parse_ipv4,
    parse_mac,
)
from dataplane.net.topology.programs import ProgramArgs, as_list
from dataplane.net.topology.reader import (
    MAX_PORT,
    JsonObject,
    PortBook,
    Reader,
    known_nodes,
    load_json_text,
    self_link,
    show,
    suggest,
)
from dataplane.net.topology.spec import DEFAULT_BANDWIDTH_BPS, HostSpec, LinkSpec, SwitchSpec, TopologySpec

__all__ = ["load_tutorials_topology"]

_GW_RE = [re.compile(r"^route\s+add\s+default\s+gw\s+(\S+)"), re.compile(r"^ip\s+route\s+add\s+default\s+via\s+(\S+)")]
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?")
_TUT_SWITCH_FIELDS = {"runtime_json", "cli_input", "program", "cpu_port", "priority_queues"}
_TUT_HOST_FIELDS = {"ip", "mac", "commands"}


def load_tutorials_topology(text: str, path: str | Path = "<topology.json>",
                            program: str | Path | Sequence[str | Path] | None = None) -> TopologySpec:
    """Parse the P4 tutorials' topology.json (see the module docstring)."""
    path = Path(path)
    r = Reader(path)
    extra = (path.parent.parent, Path.cwd())
    top = load_json_text(text, r.file)
    if not isinstance(top, dict):
        raise ConfigError("topology.json must hold a JSON object with hosts, switches and links", r.file, 1)
    for key in top.duplicates:
        raise r.err(top.line, key, f"duplicate key '{key}'")
    for key in top:
        if key not in ("hosts", "switches", "links"):
            raise r.err(top.line, key, f"unknown key '{key}' (known: hosts, links, switches)"
                                       f"{suggest(key, ['hosts', 'switches', 'links'])}", key)
    programs = ProgramArgs(as_list(program), r)
    spec = TopologySpec(name=path.parent.name or path.stem, source=path)

    def section(key):
        value = top.get(key, JsonObject())
        if not isinstance(value, dict):
            raise r.err(top.line, key, f"must be a JSON object, got {show(value)}")
        for dup in value.duplicates:
            raise r.err(getattr(value, "line", 0) or top.line, key, f"duplicate node name '{dup}'", dup)
        return value

    hosts, switches = section("hosts"), section("switches")
    for name in hosts:
        if name in switches:
            raise r.err(getattr(switches, "line", 0), f"switches.{name}",
                        f"duplicate node name '{name}' (also a host)", name)

    def node(body: Any, parent: JsonObject, field: str, known: set[str]) -> int:
        """Check one node's object and its keys; return the line it starts on."""
        if not isinstance(body, dict):
            raise r.err(parent.line, field, f"must be a JSON object, got {show(body)}")
        r.unknown(body, known, field)
        return getattr(body, "line", 0) or parent.line

    for name, body in switches.items():
        node(body, switches, f"switches.{name}", _TUT_SWITCH_FIELDS)
    if programs:
        programs.plan({name: _named(body) for name, body in switches.items()}, getattr(switches, "line", 0) or top.line)
    for name, body in switches.items():
        field = f"switches.{name}"
        line = getattr(body, "line", 0) or switches.line
        named = _named(body)
        given = programs.instead_of(named) if named else programs.fill
        if given is not None:
            prog = given
        elif named or body.get("program"):
            prog = r.program(body["program"], line, f"{field}.program", extra)
        elif programs:
            raise r.err(line, f"{field}.program", f"switch '{name}' has no program: topology.json names none, and "
                                                  "each --program given replaces a program a switch names; give "
                                                  "one more --program for the switches that name none", name)
        else:
            near = sorted({p.name for d in (path.parent, path.parent.parent) for p in d.glob("*.p4")})
            hint = f" (found {', '.join(near)} nearby)" if near else ""
            raise r.err(line, f"{field}.program", f"switch '{name}' has no program: topology.json does not name one, "
                                                  f"so pass program= (dataplane run --program FILE.p4){hint}", name)
        entries = None
        if body.get("runtime_json") and body.get("cli_input"):
            raise r.err(line, field, "give either 'runtime_json' or 'cli_input', not both")
        for key, what in (("runtime_json", "runtime JSON file"), ("cli_input", "CLI commands file")):
            if body.get(key):
                entries = r.find_file(body[key], line, f"{field}.{key}", what, extra)
        params = {}
        if "cpu_port" in body:
            params["cpu_port"] = r.positive_int(body["cpu_port"], line, f"{field}.cpu_port", 0, MAX_PORT)
        if "priority_queues" in body:
            params["priority_queues"] = r.positive_int(body["priority_queues"], line, f"{field}.priority_queues", 1)
        spec.switches[name] = SwitchSpec(name=name, program=prog, entries=entries, params=params, line=line,
                                         named_program=named, program_given=given is not None)

    ips: dict[int, str] = {}
    macs: dict[int, str] = {}
    for name, body in hosts.items():
        field = f"hosts.{name}"
        line = node(body, hosts, field, _TUT_HOST_FIELDS)
        if "ip" not in body:
            raise r.err(line, f"{field}.ip", "missing 'ip' (e.g. \"10.0.1.1/24\")")
        try:
            ip, plen = parse_interface(body["ip"])
        except ValueError as e:
            raise r.err(line, f"{field}.ip", str(e), body["ip"]) from None
        if ip in ips:
            raise r.err(line, f"{field}.ip", f"IPv4 address {format_ipv4(ip)} is already used by host '{ips[ip]}'")
        ips[ip] = name
        if body.get("mac") is not None:
            try:
                mac = check_host_mac(parse_mac(body["mac"]), body["mac"])
            except ValueError as e:
                raise r.err(line, f"{field}.mac", str(e), body["mac"]) from None
        else:
            mac = 0x020000000000 | ip
        if mac in macs:
            raise r.err(line, f"{field}.mac", f"MAC address {format_mac(mac)} is already used by host '{macs[mac]}'")
        macs[mac] = name
        gateway, arp = _host_commands(r, body.get("commands", []), line, field)
        spec.hosts[name] = HostSpec(name=name, mac=mac, ip=ip, prefix_len=plen, gateway=gateway,
                                    static_arp=arp, line=line)

    links = top.get("links", [])
    if not isinstance(links, list):
        raise r.err(top.line, "links", f"must be a list, got {show(links)}")
    ports = PortBook(r, spec)
    # Ports written explicitly are claimed first; a bare switch name gets the lowest free port from 1.
    parsed = []
    for i, item in enumerate(links):
        field = f"links[{i}]"
        line = getattr(item, "line", 0) or links.line
        if not isinstance(item, list) or not 2 <= len(item) <= 4:
            raise r.err(line, field, f"must be [node1, node2] or [node1, node2, latency, bandwidth], got {show(item)}")
        ends = [_tutorial_endpoint(r, spec, e, line, field) for e in item[:2]]
        if ends[0][0] == ends[1][0]:
            raise r.err(line, field, self_link(ends[0][0], item[0], item[1]), item[0])
        parsed.append((field, line, ends, item))
    explicit = {(n, p) for _, _, ends, _ in parsed for n, p in ends if p is not None}
    for field, line, ends, item in parsed:
        resolved = []
        for node, port in ends:
            if port is None:
                port = 0 if node in spec.hosts else next(
                    p for p in range(1, MAX_PORT + 2) if (node, p) not in ports.used and (node, p) not in explicit)
                if port > MAX_PORT:
                    raise r.err(line, field, f"switch '{node}' has no free port left", node)
            resolved.append((node, port))
        if resolved[0] == resolved[1]:
            raise r.err(line, field, f"both endpoints are port {resolved[0][1]} of '{resolved[0][0]}'")
        for (node, port), text in zip(resolved, item[:2]):
            ports.claim(node, port, line, field, text)
        latency = 0
        if len(item) > 2 and item[2] is not None:
            latency = _tutorial_latency(r, item[2], line, f"{field}[2]")
        bandwidth = DEFAULT_BANDWIDTH_BPS
        if len(item) > 3 and item[3] not in (None, 0, "0", ""):
            bw = item[3]
            if isinstance(bw, bool) or not isinstance(bw, (int, float, str)):
                raise r.err(line, f"{field}[3]", f"bandwidth must be a number of Mbit/s, got {show(bw)}", bw)
            bandwidth = r.unit(parse_rate, _with_unit(bw, "Mbps"), line, f"{field}[3]")
        spec.links.append(LinkSpec(a=resolved[0], b=resolved[1], bandwidth_bps=bandwidth, latency_ns=latency,
                                   line=line))
    return spec


def _named(body: Any) -> str | None:
    """The program a switch's object names (``"program": "build/firewall.json"``), or None."""
    value = body.get("program")
    return value.strip() if isinstance(value, str) and value.strip() else None


def _with_unit(value: Any, unit: str) -> Any:
    """A bare number (the tutorials write latencies in ms and bandwidths in Mbit/s) with its
    ``unit`` added; anything else as it is, for the unit parser to read or refuse (an infinite
    or NaN float is refused there, not turned into the text ``infms``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value}{unit}"
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return f"{value.strip()}{unit}"
    return value


def _tutorial_latency(r: Reader, value: Any, line: int, field: str) -> int:
    if isinstance(value, bool):
        raise r.err(line, field, f"latency must be a number of ms or a time such as \"5ms\", got {value!r}")
    return r.unit(parse_time, _with_unit(value, "ms"), line, field)


def _tutorial_endpoint(r: Reader, spec: TopologySpec, text: Any, line: int, field: str) -> tuple[str, int | None]:
    if not isinstance(text, str) or not text:
        raise r.err(line, field, f"an endpoint must be a host name or \"s1-p1\", got {show(text)}", text)
    known = list(spec.switches) + list(spec.hosts)
    if text in spec.hosts:
        return text, 0
    m = re.fullmatch(r"(.+)-p([0-9]+)", text)
    if m and m.group(1) in spec.switches:
        port = int(m.group(2))
        if port > MAX_PORT:
            raise r.err(line, field, f"port {port} of '{m.group(1)}' is out of range 0..{MAX_PORT}", text)
        return m.group(1), port
    if m and m.group(1) in spec.hosts:
        raise r.err(line, field, f"host '{m.group(1)}' has one interface; write just \"{m.group(1)}\"", text)
    if text in spec.switches:
        return text, None
    node = m.group(1) if m else text
    raise r.err(line, field, f"unknown node '{node}'{known_nodes(node, known)}", text)


def _host_commands(r: Reader, commands: Any, line: int, field: str) -> tuple[int | None, dict[int, int]]:
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        raise r.err(line, f"{field}.commands", "must be a list of command strings")
    gateway = None
    arp: dict[int, int] = {}
    for cmd in commands:
        c = " ".join(cmd.split())
        for rx in _GW_RE:
            m = rx.match(c)
            if m:
                try:
                    gateway = parse_ipv4(m.group(1))
                except ValueError as e:
                    raise r.err(line, f"{field}.commands", f"{e} in {cmd!r}", cmd) from None
        try:
            words = shlex.split(c)
        except ValueError:
            continue
        if words and words[0] == "arp" and "-s" in words:
            i = words.index("-s")
            if len(words) < i + 3:
                raise r.err(line, f"{field}.commands", f"'arp -s' needs an IP and a MAC: {cmd!r}", cmd)
            try:
                arp[parse_ipv4(words[i + 1])] = parse_mac(words[i + 2])
            except ValueError as e:
                raise r.err(line, f"{field}.commands", f"{e} in {cmd!r}", cmd) from None
    return gateway, arp
