"""Read topology files into a ``TopologySpec``.

Two formats:

* YAML in the shape of containerlab (``name``, ``topology.nodes``, ``topology.links`` with
  ``endpoints: ["s1:p1", "h1:eth0"]``), with an optional ``defaults:`` section (top level
  or under ``topology:``) for link, switch and program defaults::

      name: basic
      defaults: {bandwidth: 10Gbps, latency: 1us, queue: 64p}
      topology:
        nodes:
          s1: {kind: switch, program: ipv4_router, entries: basic/s1-runtime.json}
          h1: {kind: host, ip: 10.0.1.1/24, mac: "08:00:00:00:01:11", gateway: 10.0.1.10,
               arp: {10.0.1.10: "08:00:00:00:01:00"}}
        links:
          - endpoints: ["s1:p1", "h1:eth0"]
            bandwidth: 1Gbps

  Node fields: ``kind`` (``switch`` | ``dpu`` | ``host``); switches: ``program`` (a .p4 path relative
  to the YAML file, or a built-in program name), ``entries`` (runtime JSON or
  simple_switch_CLI file, relative path), ``controller`` (``file.py:Class`` or
  ``module:Class``), ``processing_latency``, ``detection_delay``, ``write_latency``,
  ``params`` (free-form mapping), ``cpu_port``, ``pfc`` (``{xoff: 64KB, xon: 32KB}`` or
  ``true``: see ``dataplane.net.devices.pfc``; stored as ``params["pfc"]``), ``queues``
  (traffic classes, ``{count: 4, scheduler: dwrr, weights: [1, 1, 2, 4]}``: see
  ``dataplane.net.topology.tclass_spec``; stored as ``params["queues"]``); DPUs (a PNA program behind
  the cost model of ``dataplane.net.devices.dpu_node``): ``program`` (required), ``entries``, ``rate``
  (400Gbps), ``packet_rate`` (150Mpps), ``latency`` (2us), ``queue`` (1024p, or bytes),
  ``host_ports`` / ``net_ports`` (lists of ports; by default ports linked to a host are host
  ports, the rest net ports; one list makes the other the rest); hosts: ``mac``, ``ip`` (``a.b.c.d/len``,
  /24 when the length is left out), ``gateway``, ``arp`` (``{ip: mac}``), ``xdp`` (an eBPF/XDP program
  on the NIC and its cost: ``dataplane.net.topology.xdp``), ``netns`` (true: a Linux network
  namespace when the run is real time, ``dataplane.net.netns``), ``queues`` (traffic classes on
  the NIC, as a switch's; one queue by default) and ``trust`` (``dscp`` or ``pcp``: how the NIC
  reads a frame's priority; ``dataplane.net.hosts.host_classes``). Link fields:
  ``endpoints`` plus ``bandwidth``, ``latency``, ``queue``, ``mtu``, ``loss``,
  ``corruption``, ``overhead`` (``ethernet``, the default: a frame's line time counts the
  preamble/SFD, FCS and inter-frame gap and the 64-byte minimum; ``none``: its captured bytes
  alone; ``dataplane.net.devices.link.wire_bytes``). ``defaults`` takes ``bandwidth``,
  ``latency``, ``queue``, ``mtu``, ``loss``, ``corruption``, ``overhead``, ``processing``,
  ``detection``, ``write_latency``, ``program``, ``kind``, ``pfc`` and ``queues`` (for every
  switch that does not set its own).

  Switch and DPU ports are written ``pN``, ``ethN``, ``portN`` or ``N`` (port N, 0..510; BMv2's
  511 is the drop port); a host has one interface, ``eth0`` (port 0), which may be left
  out (``"h1"``). Hosts without ``ip`` get the lowest free 10.0.0.N/24 in file order;
  hosts without ``mac`` get ``02:00:`` followed by the four bytes of their IPv4 address.

* The P4 tutorials' ``topology.json`` (``hosts`` / ``switches`` / ``links``), read by
  ``dataplane.net.topology.tutorials`` (its docstring describes the format).

Every problem raises ``ConfigError`` naming the file, the line and the field, e.g.
``topo.yaml:14: error: topology.links[2].endpoints: unknown node 'h9'``.
"""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

from dataplane.control.config_errors import ConfigError, read_text_file
from dataplane.net.core.units import parse_packet_rate, parse_probability, parse_queue, parse_rate, parse_time
from dataplane.net.topology.addresses import (
    format_ipv4,
    format_mac,
    parse_ipv4,
    parse_mac,
)
from dataplane.net.topology.load_hosts import yaml_hosts
from dataplane.net.topology.load_links import read_overhead, yaml_link
from dataplane.net.topology.programs import ProgramArgs, as_list
from dataplane.net.topology.reader import (
    MAX_PORT,
    PortBook,
    Reader,
    YamlSeq,
    load_yaml_text,
    show,
)
from dataplane.net.topology.spec import (
    DEFAULT_BANDWIDTH_BPS,
    DEFAULT_LATENCY_NS,
    DEFAULT_MTU,
    DEFAULT_QUEUE,
    DpuSpec,
    PfcConfig,
    SwitchSpec,
    TopologySpec,
)
from dataplane.net.topology.tclass_spec import QueueConfig
from dataplane.net.topology.tutorials import load_tutorials_topology

__all__ = ["load_topology", "load_yaml_topology", "load_tutorials_topology", "parse_mac", "format_mac",
           "parse_ipv4", "format_ipv4", "MAX_PORT"]

DEFAULT_DETECTION_NS = SwitchSpec.__dataclass_fields__["detection_ns"].default

_SWITCH_KINDS = {"switch"}
_HOST_KINDS = {"host"}
# Worded so that messages written before DPUs existed ("use switch or host") still read true.
_KINDS = "(use switch or host), or dpu for a PNA NIC"
_SWITCH_FIELDS = {"kind", "program", "entries", "controller", "processing_latency", "detection_delay",
                  "write_latency", "params", "cpu_port", "pfc", "queues", "rank"}
_HOST_FIELDS = {"kind", "mac", "ip", "gateway", "arp", "xdp", "rank", "netns", "queues", "trust"}
_DPU_FIELDS = {"kind", "program", "entries", "rate", "packet_rate", "latency", "queue", "host_ports", "net_ports", "rank"}
_LINK_FIELDS = {"endpoints", "bandwidth", "latency", "queue", "mtu", "loss", "corruption", "overhead"}
_DEFAULT_FIELDS = {"bandwidth", "latency", "queue", "mtu", "loss", "corruption", "overhead", "processing", "detection",
                   "write_latency", "program", "kind", "pfc", "queues"}
_TOP_FIELDS = {"name", "defaults", "topology"}
_TOPOLOGY_FIELDS = {"nodes", "links", "defaults"}
# containerlab keys that mean nothing to an emulated node; accepted and ignored.
_IGNORED_NODE_FIELDS = {"image", "labels", "group"}
_IGNORED_TOP_FIELDS = {"mgmt", "prefix"}


# ---- entry point --------------------------------------------------------------------------------------

def load_topology(path: str | Path, program: str | Path | Sequence[str | Path] | None = None) -> TopologySpec:
    """Read a topology file: ``.json`` as the tutorials' topology.json, anything else as YAML.

    ``program`` (a .p4 path or a built-in program name, or several: ``dataplane run --program``)
    replaces the program of the same name where a switch names one, and is the program of the
    switches that name none (``dataplane.net.topology.programs``); most tutorials' switches name
    none, so they need it.
    """
    path = Path(path)
    text = read_text_file(path, "topology file")
    if path.suffix.lower() == ".json":
        return load_tutorials_topology(text, path, program)
    return load_yaml_topology(text, path, program)


# ---- YAML -----------------------------------------------------------------------------------------------

def load_yaml_topology(text: str, path: str | Path = "<topology.yaml>",
                       program: str | Path | Sequence[str | Path] | None = None) -> TopologySpec:
    """Parse containerlab-style YAML (see the module docstring); paths resolve next to ``path``."""
    path = Path(path)
    r = Reader(path)
    top = load_yaml_text(text, r.file)
    if top is None:
        raise ConfigError("the topology file is empty", r.file, 1)
    if not isinstance(top, dict):
        raise ConfigError(f"the topology file must be a mapping with 'name' and 'topology', got {show(top)}",
                          r.file, getattr(top, "line", 1))
    r.no_duplicates(top, "")
    r.unknown(top, _TOP_FIELDS, "", _IGNORED_TOP_FIELDS)
    name = top.get("name", path.stem)
    if not isinstance(name, str) or not name:
        raise r.err(r.line_of(top, "name"), "name", f"must be a non-empty string, got {show(name)}")
    if "topology" not in top:
        raise r.err(top.line, "topology", "missing 'topology' (with 'nodes' and 'links')")
    topo = r.mapping(top["topology"], "topology", r.line_of(top, "topology"))
    r.no_duplicates(topo, "topology")
    r.unknown(topo, _TOPOLOGY_FIELDS, "topology")

    defaults: dict[str, tuple[Any, int, str]] = {}     # key -> (value, line, field)
    for where, m in (("defaults", top), ("topology.defaults", topo)):
        if "defaults" in m:
            d = r.mapping(m["defaults"], where, r.line_of(m, "defaults"))
            r.no_duplicates(d, where)
            r.unknown(d, _DEFAULT_FIELDS, where)
            for k, v in d.items():
                defaults[k] = (v, r.line_of(d, k), f"{where}.{k}")
    dflt = _Defaults(r, defaults)
    programs = ProgramArgs(as_list(program), r)

    spec = TopologySpec(name=name, source=path)
    if "nodes" not in topo:
        raise r.err(topo.line, "topology.nodes", "missing 'nodes'")
    nodes = r.mapping(topo["nodes"], "topology.nodes", r.line_of(topo, "nodes"))
    r.no_duplicates(nodes, "topology.nodes", "node name")
    if not nodes:
        raise r.err(r.line_of(topo, "nodes"), "topology.nodes", "no nodes defined")
    pending_hosts: list[tuple[str, dict, int]] = []
    pending_switches: list[tuple[str, dict, int]] = []
    for node_name, body in nodes.items():
        field = f"topology.nodes.{node_name}"
        line = r.line_of(nodes, node_name)
        if not node_name or any(c in node_name for c in ": \t"):
            raise r.err(line, field, f"bad node name {node_name!r} (no spaces or ':')", node_name)
        body = r.mapping(body, field, line)
        r.no_duplicates(body, field)
        kind = body.get("kind", dflt.kind)
        kline = r.line_of(body, "kind") if "kind" in body else line
        if kind is None:
            raise r.err(line, f"{field}.kind", f"missing 'kind' {_KINDS}")
        if "rank" in body:    # a pin for parallel runs (dataplane.net.parallel.partition)
            rank = body["rank"]
            if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
                raise r.err(r.line_of(body, "rank"), f"{field}.rank",
                            f"must be a whole number >= 0 (an MPI rank), got {show(rank)}", rank)
            spec.ranks[node_name] = (rank, r.line_of(body, "rank"))
        if kind in _SWITCH_KINDS:
            r.unknown(body, _SWITCH_FIELDS, field, _IGNORED_NODE_FIELDS)
            pending_switches.append((node_name, body, line))
        elif kind in _HOST_KINDS:
            r.unknown(body, _HOST_FIELDS, field, _IGNORED_NODE_FIELDS)
            pending_hosts.append((node_name, body, line))
        elif kind == "dpu":
            r.unknown(body, _DPU_FIELDS, field, _IGNORED_NODE_FIELDS)
            spec.dpus[node_name] = _yaml_dpu(r, node_name, body, line)
        else:
            raise r.err(kline, f"{field}.kind", f"unknown kind {show(kind)} {_KINDS}", kind)
    if programs:
        named = {sw: _named(body, dflt.program_text) for sw, body, _ in pending_switches}
        if "program" in defaults:
            value, where, field = defaults["program"]
            programs.plan(named, where, f"{field} names {show(value)} for every switch without its own")
        else:
            programs.plan(named, r.line_of(pending_switches[0][1], "program") if pending_switches else 1)
    for node_name, body, line in pending_switches:
        spec.switches[node_name] = _yaml_switch(r, dflt, programs, node_name, body, line)
    yaml_hosts(r, spec, pending_hosts)

    links = topo.get("links", YamlSeq())
    lline = r.line_of(topo, "links")
    if links is None:
        links = YamlSeq()
    if not isinstance(links, list):
        raise r.err(lline, "topology.links", f"must be a list of links, got {show(links)}")
    ports = PortBook(r, spec)
    for i, body in enumerate(links):
        field = f"topology.links[{i}]"
        if not isinstance(body, dict):
            raise r.err(getattr(body, "line", 0) or lline, field,
                        f"must be a mapping with 'endpoints', got {show(body)}")
        r.no_duplicates(body, field)
        r.unknown(body, _LINK_FIELDS, field)
        spec.links.append(yaml_link(r, dflt, ports, body, field))
    for name in spec.dpus:      # port lists name linked ports, so they are checked after the links
        problem = spec.dpu_port_problem(name)
        if problem is not None:
            key, port, message = problem
            raise r.err(r.line_of(nodes[name], key), f"topology.nodes.{name}.{key}", message, port)
    return spec


def _named(body: dict, default: Any = None) -> str | None:
    """The program a switch names, itself or through ``defaults: {program: ...}`` (``default``);
    None when neither names one."""
    value = body.get("program", default)
    return value.strip() if isinstance(value, str) and value.strip() else None


class _Defaults:
    """Values from ``defaults:``, already checked, with the built-in fallbacks."""

    def __init__(self, r: Reader, d: dict[str, tuple[Any, int, str]]):
        def get(k, parse, fallback):
            return r.unit(parse, *d[k]) if k in d else fallback

        self.bandwidth = get("bandwidth", parse_rate, DEFAULT_BANDWIDTH_BPS)
        self.latency = get("latency", parse_time, DEFAULT_LATENCY_NS)
        self.queue = get("queue", parse_queue, DEFAULT_QUEUE)
        self.mtu = r.positive_int(*d["mtu"], 68, 65535) if "mtu" in d else DEFAULT_MTU
        self.loss = get("loss", parse_probability, 0.0)
        self.corruption = get("corruption", parse_probability, 0.0)
        self.overhead = read_overhead(r, *d["overhead"]) if "overhead" in d else "ethernet"
        self.processing = get("processing", parse_time, 0)
        self.detection = get("detection", parse_time, DEFAULT_DETECTION_NS)
        self.write_latency = get("write_latency", parse_time, 0)
        self.kind = d["kind"][0] if "kind" in d else None
        if self.kind is not None and self.kind not in _SWITCH_KINDS | _HOST_KINDS | {"dpu"}:
            raise r.err(d["kind"][1], d["kind"][2], f"unknown kind {show(self.kind)} {_KINDS}")
        self.program = r.program(*d["program"]) if "program" in d else None
        self.program_text = d["program"][0] if "program" in d else None
        self.pfc = _pfc(r, *d["pfc"]) if "pfc" in d else None
        self.queues = _queues(r, *d["queues"]) if "queues" in d else None


def _yaml_switch(r: Reader, dflt: _Defaults, programs: ProgramArgs, name: str, body: dict, line: int) -> SwitchSpec:
    field = f"topology.nodes.{name}"

    def at(k):
        return r.line_of(body, k)

    named = _named(body, dflt.program_text)
    given = programs.instead_of(named) if named else programs.fill
    program, entries = _program_entries(r, name, body, line, "switch", dflt.program, given)
    controller = None
    if body.get("controller") is not None:
        controller = r.controller(body["controller"], at("controller"), f"{field}.controller")

    def t(k, fallback):
        return r.unit(parse_time, body[k], at(k), f"{field}.{k}") if k in body else fallback

    params = {}
    if "params" in body:
        params = dict(r.mapping(body["params"], f"{field}.params", at("params")))
    if "cpu_port" in body:
        params["cpu_port"] = r.positive_int(body["cpu_port"], at("cpu_port"), f"{field}.cpu_port", 0, MAX_PORT)
    # pfc and queues: on the switch, in its params, or from defaults (in that order).
    for key, read in (("pfc", _pfc), ("queues", _queues)):
        if key in body:
            params[key] = read(r, body[key], at(key), f"{field}.{key}")
        elif key in params:
            params[key] = read(r, params[key], r.line_of(body["params"], key), f"{field}.params.{key}")
        elif getattr(dflt, key) is not None:
            params[key] = dict(getattr(dflt, key))
    return SwitchSpec(name=name, program=program, entries=entries, controller=controller,
                      processing_ns=t("processing_latency", dflt.processing),
                      detection_ns=t("detection_delay", dflt.detection),
                      write_latency_ns=t("write_latency", dflt.write_latency),
                      params=params, line=line, named_program=named, program_given=given is not None)


def _program_entries(r: Reader, name: str, body: dict, line: int, kind: str,
                     fallback: Path | None, given: Path | None = None) -> tuple[Path, Path | None]:
    """A switch's or DPU's ``program`` (checked against its kind; ``given``: a --program in its
    place) and ``entries`` file."""
    field = f"topology.nodes.{name}"
    if given is not None:
        program, pline = given, (r.line_of(body, "program") if "program" in body else line)
    elif "program" in body:
        pline = r.line_of(body, "program")
        program = r.program(body["program"], pline, f"{field}.program")
    elif fallback is not None:
        program, pline = fallback, line
    else:
        example = "a PNA .p4 file" if kind == "dpu" else "a .p4 file or a built-in name such as ipv4_router"
        raise r.err(line, f"{field}.program", f"{kind} '{name}' has no program (give 'program:' with {example})",
                    name)
    r.check_architecture(program, kind, pline, f"{field}.program")
    entries = None
    if body.get("entries") is not None:
        entries = r.find_file(body["entries"], r.line_of(body, "entries"), f"{field}.entries", "entries file")
    return program, entries


def _yaml_dpu(r: Reader, name: str, body: dict, line: int) -> DpuSpec:
    """A ``kind: dpu`` node; its port lists are checked against the links later."""
    field = f"topology.nodes.{name}"
    program, entries = _program_entries(r, name, body, line, "dpu", None)   # defaults.program is for switches
    d = DpuSpec(name=name, program=program, entries=entries, line=line)
    for key, attr, parse in (("rate", "rate_bps", parse_rate), ("packet_rate", "packet_rate_pps", parse_packet_rate),
                             ("latency", "latency_ns", parse_time), ("queue", "queue", parse_queue)):
        if key in body:
            setattr(d, attr, r.unit(parse, body[key], r.line_of(body, key), f"{field}.{key}"))
    for key in ("host_ports", "net_ports"):
        if body.get(key) is not None:
            setattr(d, key, r.port_list(body[key], r.line_of(body, key), f"{field}.{key}"))
    return d


def _pfc(r: Reader, value: Any, line: int, field: str) -> dict | None:
    """A switch's PFC setting, checked, as plain data (None when off)."""
    try:
        cfg = PfcConfig.from_value(value)
    except ValueError as err:
        raise r.err(line, field, str(err)) from None
    return None if cfg is None else asdict(cfg)


def _queues(r: Reader, value: Any, line: int, field: str) -> dict | None:
    """A switch's traffic classes (``dataplane.net.topology.tclass_spec``), checked, as plain data."""
    try:
        cfg = QueueConfig.from_value(value)
    except ValueError as err:
        raise r.err(line, field, str(err)) from None
    return None if cfg is None else cfg.as_dict()
