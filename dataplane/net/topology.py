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

  Node fields: ``kind`` (``switch`` | ``host``); switches: ``program`` (a .p4 path relative
  to the YAML file, or a built-in program name), ``entries`` (runtime JSON or
  simple_switch_CLI file, relative path), ``controller`` (``file.py:Class`` or
  ``module:Class``), ``processing_latency``, ``detection_delay``, ``write_latency``,
  ``params`` (free-form mapping), ``cpu_port``; hosts: ``mac``, ``ip`` (``a.b.c.d/len``,
  /24 when the length is left out), ``gateway``, ``arp`` (``{ip: mac}``). Link fields:
  ``endpoints`` plus ``bandwidth``, ``latency``, ``queue``, ``mtu``, ``loss``,
  ``corruption``. ``defaults`` takes ``bandwidth``, ``latency``, ``queue``, ``mtu``,
  ``loss``, ``corruption``, ``processing``, ``detection``, ``write_latency``, ``program``
  and ``kind``.

  Switch ports are written ``pN``, ``ethN``, ``portN`` or ``N`` (port N, 0..510; BMv2's
  511 is the drop port); a host has one interface, ``eth0`` (port 0), which may be left
  out (``"h1"``). Hosts without ``ip`` get the lowest free 10.0.0.N/24 in file order;
  hosts without ``mac`` get ``02:00:`` followed by the four bytes of their IPv4 address.

* The P4 tutorials' ``topology.json`` (``hosts`` / ``switches`` / ``links``): hosts take
  their gateway and static ARP entries from their ``commands`` (``route add default gw
  IP ...``, ``ip route add default via IP``, ``arp [-i eth0] -s IP MAC``); switches their
  ``runtime_json`` or ``cli_input``; links are ``[a, b]`` or ``[a, b, latency,
  bandwidth]`` with switch ports written ``s1-p3`` (latency: a number or a bare-number
  string is milliseconds, other strings are read as times; bandwidth is Mbit/s). The
  program comes from ``load_topology(path, program=...)`` unless a switch names its own.
  Relative file names are looked up next to the topology file, then in its parent
  directory (the exercise directory the tutorials run from), then in the working directory.

Every problem raises ``ConfigError`` naming the file, the line and the field, e.g.
``topo.yaml:14: error: topology.links[2].endpoints: unknown node 'h9'``.
"""
from __future__ import annotations

import bisect
import difflib
import ipaddress
import json
import json.decoder
import json.scanner
import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from dataplane.control.config_errors import ConfigError
from dataplane.net.spec import (
    DEFAULT_BANDWIDTH_BPS, DEFAULT_LATENCY_NS, DEFAULT_MTU, DEFAULT_QUEUE, HostSpec, LinkSpec, SwitchSpec,
    TopologySpec,
)
from dataplane.net.units import UnitError, parse_probability, parse_queue, parse_rate, parse_time

__all__ = ["load_topology", "load_yaml_topology", "load_tutorials_topology", "parse_mac", "format_mac",
           "parse_ipv4", "format_ipv4", "MAX_PORT"]

MAX_PORT = 510                    # BMv2 uses 511 as the drop port
DEFAULT_DETECTION_NS = SwitchSpec.__dataclass_fields__["detection_ns"].default

_SWITCH_KINDS = {"switch"}
_HOST_KINDS = {"host"}
_SWITCH_FIELDS = {"kind", "program", "entries", "controller", "processing_latency", "detection_delay",
                  "write_latency", "params", "cpu_port"}
_HOST_FIELDS = {"kind", "mac", "ip", "gateway", "arp"}
_LINK_FIELDS = {"endpoints", "bandwidth", "latency", "queue", "mtu", "loss", "corruption"}
_DEFAULT_FIELDS = {"bandwidth", "latency", "queue", "mtu", "loss", "corruption", "processing", "detection",
                   "write_latency", "program", "kind"}
_TOP_FIELDS = {"name", "defaults", "topology"}
_TOPOLOGY_FIELDS = {"nodes", "links", "defaults"}
# containerlab keys that mean nothing to an emulated node; accepted and ignored.
_IGNORED_NODE_FIELDS = {"image", "labels", "group"}
_IGNORED_TOP_FIELDS = {"mgmt", "prefix"}

_MAC_RE = re.compile(r"^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(?:\1[0-9a-fA-F]{2}){4}$")
_SWITCH_PORT_RE = re.compile(r"^(?:p|eth|port)?([0-9]+)$", re.IGNORECASE)
_HOST_IF_RE = re.compile(r"^(?:eth)?([0-9]+)$", re.IGNORECASE)


# ---- addresses --------------------------------------------------------------------------------------

def parse_mac(text: Any) -> int:
    """``aa:bb:cc:dd:ee:ff`` (or with ``-``) as an int; raises ValueError with the reason."""
    if not isinstance(text, str) or not _MAC_RE.match(text.strip()):
        raise ValueError(f"bad MAC address {text!r} (write six hex bytes, e.g. \"08:00:00:00:01:11\")")
    return int(re.sub(r"[:-]", "", text.strip()), 16)


def format_mac(value: int) -> str:
    return ":".join(f"{b:02x}" for b in value.to_bytes(6, "big"))


def parse_ipv4(text: Any) -> int:
    """A dotted-quad IPv4 address as an int; raises ValueError with the reason."""
    try:
        return int(ipaddress.IPv4Address(str(text).strip()))
    except (ipaddress.AddressValueError, ValueError):
        raise ValueError(f"bad IPv4 address {text!r} (e.g. 10.0.1.1)") from None


def format_ipv4(value: int) -> str:
    return str(ipaddress.IPv4Address(value))


def _parse_interface(text: Any) -> tuple[int, int]:
    """``a.b.c.d/len`` (or ``a.b.c.d``, /24) as (address, prefix length)."""
    s = str(text).strip()
    if not isinstance(text, str) or s.count("/") > 1:
        raise ValueError(f"bad IPv4 address {text!r} (write a.b.c.d/len, e.g. 10.0.1.1/24)")
    addr, _, plen = s.partition("/")
    ip = parse_ipv4(addr) if addr else None
    if ip is None:
        raise ValueError(f"bad IPv4 address {text!r} (write a.b.c.d/len, e.g. 10.0.1.1/24)")
    if not plen:
        return ip, 24
    if not plen.isdigit() or not 0 <= int(plen) <= 32:
        raise ValueError(f"bad prefix length in {text!r} (0..32)")
    return ip, int(plen)


def _check_host_mac(mac: int, text: Any) -> int:
    if mac >> 40 & 1:
        raise ValueError(f"MAC address {text!r} is a group (multicast/broadcast) address; a host needs a unicast MAC")
    return mac


# ---- YAML with line numbers -------------------------------------------------------------------------

class _Map(dict):
    """A YAML mapping that knows the line of its first key and of each key."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.line = 0
        self.key_lines: dict[str, int] = {}
        self.duplicates: list[tuple[str, int, int]] = []   # (key, line, first line)


class _Seq(list):
    line = 0


class _Loader(yaml.SafeLoader):
    """SafeLoader that records lines, keeps duplicate keys visible and never reads ``a:b:c`` as base 60."""


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    m = _Map()
    m.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if isinstance(key, (list, dict)):
            raise ConfigError("a mapping key must be a plain value", loader.filename, line)
        if key is not None and not isinstance(key, str):
            key = str(key)   # node names like 1: or IP keys stay text
        value = loader.construct_object(value_node, deep=True)
        if key in m:
            m.duplicates.append((key, line, m.key_lines[key]))
            continue
        m[key] = value
        m.key_lines[key] = line
    return m


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> _Seq:
    s = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    s.line = node.start_mark.line + 1
    return s


def _construct_int(loader: _Loader, node: yaml.ScalarNode):
    text = loader.construct_scalar(node)
    if ":" in text:          # YAML 1.1 sexagesimal: 10:00:00:00:01:11 is a MAC, not an integer
        return text
    return yaml.SafeLoader.construct_yaml_int(loader, node)


def _construct_float(loader: _Loader, node: yaml.ScalarNode):
    text = loader.construct_scalar(node)
    if ":" in text:
        return text
    return yaml.SafeLoader.construct_yaml_float(loader, node)


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:omap", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def _load_yaml_text(text: str, filename: str) -> Any:
    loader = _Loader(text)
    loader.filename = filename
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        what = " ".join(x for x in (e.context, e.problem) if x)
        raise ConfigError(f"invalid YAML: {what}", filename, mark.line + 1 if mark else 0) from None
    except yaml.YAMLError as e:
        raise ConfigError(f"invalid YAML: {e}", filename) from None
    finally:
        loader.dispose()


# ---- JSON with line numbers -------------------------------------------------------------------------

class _JObj(dict):
    line = 0
    duplicates: list


class _JList(list):
    line = 0


def _load_json_text(text: str, filename: str) -> Any:
    """json.loads where every object and array knows its line and duplicate keys are kept."""
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    decoder = json.JSONDecoder()

    def line_of(index: int) -> int:
        return bisect.bisect_left(newlines, index) + 1

    def pairs_hook(pairs):
        obj = _JObj()
        obj.duplicates = []
        for k, v in pairs:
            if k in obj:
                obj.duplicates.append(k)
                continue
            obj[k] = v
        return obj

    def parse_object(s_and_end, strict, scan_once, object_hook, object_pairs_hook, memo=None):
        obj, end = json.decoder.JSONObject(s_and_end, strict, scan_once, None, pairs_hook, memo)
        obj.line = line_of(s_and_end[1])
        return obj, end

    def parse_array(s_and_end, scan_once):
        values, end = json.decoder.JSONArray(s_and_end, scan_once)
        arr = _JList(values)
        arr.line = line_of(s_and_end[1])
        return arr, end

    decoder.parse_object = parse_object
    decoder.parse_array = parse_array
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # the C scanner ignores the hooks
    try:
        return decoder.decode(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"invalid JSON: {e.msg} (column {e.colno})", filename, e.lineno) from None


# ---- shared reading helpers -------------------------------------------------------------------------

def _suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


class _Reader:
    def __init__(self, path: Path):
        self.path = path
        self.file = str(path)
        self.base = path.parent

    def err(self, line: int, field: str, message: str, token: Any = None) -> ConfigError:
        return ConfigError(f"{field}: {message}" if field else message, self.file, line,
                           None if token is None else str(token))

    @staticmethod
    def line_of(m: Any, key: str | None = None) -> int:
        if key is not None and isinstance(m, _Map) and key in m.key_lines:
            return m.key_lines[key]
        return getattr(m, "line", 0)

    def mapping(self, value: Any, field: str, line: int) -> dict:
        if value is None:
            return _Map()
        if not isinstance(value, dict):
            raise self.err(getattr(value, "line", 0) or line, field, f"must be a mapping, got {_show(value)}")
        return value

    def unknown(self, m: dict, known: set[str], field: str, ignored: set[str] = frozenset()) -> None:
        for key in m:
            if key not in known and key not in ignored:
                raise self.err(self.line_of(m, key), f"{field}.{key}" if field else str(key),
                               f"unknown field '{key}' (known: {', '.join(sorted(known))}){_suggest(key, known)}",
                               key)

    def no_duplicates(self, m: Any, field: str, what: str = "key") -> None:
        for key, line, first in getattr(m, "duplicates", ()):
            raise self.err(line, field, f"duplicate {what} '{key}' (first defined at line {first})", key)

    def unit(self, parse, value: Any, line: int, field: str):
        if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
            raise self.err(line, field, f"cannot read {_show(value)} as a quantity", value)
        try:
            return parse(value)
        except UnitError as e:
            raise self.err(line, field, str(e), value) from None

    def positive_int(self, value: Any, line: int, field: str, low: int = 1, high: int | None = None) -> int:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if type(value) is not int or value < low or (high is not None and value > high):
            rng = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.err(line, field, f"must be a whole number {rng}, got {_show(value)}", value)
        return value

    def find_file(self, name: Any, line: int, field: str, what: str, extra_bases: tuple[Path, ...] = ()) -> Path:
        if not isinstance(name, str) or not name.strip():
            raise self.err(line, field, f"must be a file name, got {_show(name)}", name)
        p = Path(name.strip()).expanduser()
        candidates = [p] if p.is_absolute() else [self.base / p, *(b / p for b in extra_bases)]
        for c in candidates:
            if c.is_file():
                return c.resolve()
        where = ", ".join(str(c) for c in candidates)
        raise self.err(line, field, f"{what} '{name}' not found (looked for {where})", name)

    def program(self, value: Any, line: int, field: str, extra_bases: tuple[Path, ...] = ()) -> Path:
        """A .p4 path (relative to the topology file) or the name of a built-in program."""
        if not isinstance(value, str) or not value.strip():
            raise self.err(line, field, f"must be a .p4 file or a built-in program name, got {_show(value)}", value)
        text = value.strip()
        p = Path(text).expanduser()
        candidates = [p] if p.is_absolute() else [self.base / p, *(b / p for b in extra_bases)]
        if p.suffix.lower() == ".json":
            # The tutorials name the compiled BMv2 JSON (build/firewall.json); we run the source.
            stem = p.stem
            candidates = [c.parent / f"{stem}.p4" for c in candidates] + \
                         [c.parent.parent / f"{stem}.p4" for c in candidates]
        for c in candidates:
            if c.is_file():
                return c.resolve()
        if "/" not in text and "\\" not in text:
            builtin = _builtin(text)
            if builtin is not None:
                return builtin
        names = _builtin_names()
        hint = f"; built-in programs: {', '.join(names)}" if names else ""
        where = ", ".join(str(c) for c in candidates)
        raise self.err(line, field, f"program file '{text}' not found (looked for {where}){hint}", text)

    def controller(self, value: Any, line: int, field: str) -> str:
        if not isinstance(value, str) or ":" not in value:
            raise self.err(line, field, f"must be written \"file.py:ClassName\" or \"module:ClassName\", "
                                        f"got {_show(value)}", value)
        target, _, cls = value.strip().rpartition(":")
        if not cls.isidentifier() or not target:
            raise self.err(line, field, f"must be written \"file.py:ClassName\" or \"module:ClassName\", "
                                        f"got {_show(value)}", value)
        if target.endswith(".py"):
            return f"{self.find_file(target, line, field, 'controller file')}:{cls}"
        if not all(part.isidentifier() for part in target.split(".")):
            raise self.err(line, field, f"'{target}' is neither a .py file nor a module name", value)
        return f"{target}:{cls}"


def _known_nodes(node: str, known: list[str]) -> str:
    hint = _suggest(node, known)
    if hint:
        return hint
    names = ", ".join(known[:12]) + (f", ... ({len(known)} nodes)" if len(known) > 12 else "")
    return f" (nodes: {names})"


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return repr(value)


def _builtin(name: str) -> Path | None:
    try:
        from dataplane.resources import builtin_program

        return builtin_program(name).resolve()
    except FileNotFoundError:
        return None


def _builtin_names() -> list[str]:
    try:
        from dataplane.resources import data_dir

        return sorted(p.stem for p in data_dir("programs").glob("*.p4"))
    except FileNotFoundError:
        return []


# ---- entry point --------------------------------------------------------------------------------------

def load_topology(path: str | Path, program: str | Path | None = None) -> TopologySpec:
    """Read a topology file: ``.json`` as the tutorials' topology.json, anything else as YAML.

    ``program`` (a .p4 path or a built-in program name) is the program of every switch that
    does not name its own; the tutorials' format never names one, so it needs ``program``.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read topology file: {e.strerror}", str(path)) from None
    if path.suffix.lower() == ".json":
        return load_tutorials_topology(text, path, program)
    return load_yaml_topology(text, path, program)


def _resolve_program_arg(program: str | Path | None, r: _Reader) -> Path | None:
    if program is None:
        return None
    p = Path(program).expanduser()
    if p.is_file():
        return p.resolve()
    if isinstance(program, str) and "/" not in program and "\\" not in program:
        b = _builtin(program)
        if b is not None:
            return b
    raise ConfigError(f"program '{program}' not found (not a file; built-in programs: "
                      f"{', '.join(_builtin_names()) or 'none'})", r.file)


# ---- YAML -----------------------------------------------------------------------------------------------

def load_yaml_topology(text: str, path: str | Path = "<topology.yaml>",
                       program: str | Path | None = None) -> TopologySpec:
    """Parse containerlab-style YAML (see the module docstring); paths resolve next to ``path``."""
    path = Path(path)
    r = _Reader(path)
    top = _load_yaml_text(text, r.file)
    if top is None:
        raise ConfigError("the topology file is empty", r.file, 1)
    if not isinstance(top, dict):
        raise ConfigError(f"the topology file must be a mapping with 'name' and 'topology', got {_show(top)}",
                          r.file, getattr(top, "line", 1))
    r.no_duplicates(top, "")
    r.unknown(top, _TOP_FIELDS, "", _IGNORED_TOP_FIELDS)
    name = top.get("name", path.stem)
    if not isinstance(name, str) or not name:
        raise r.err(r.line_of(top, "name"), "name", f"must be a non-empty string, got {_show(name)}")
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
    dflt = _Defaults(r, defaults, program)

    spec = TopologySpec(name=name, source=path)
    if "nodes" not in topo:
        raise r.err(topo.line, "topology.nodes", "missing 'nodes'")
    nodes = r.mapping(topo["nodes"], "topology.nodes", r.line_of(topo, "nodes"))
    r.no_duplicates(nodes, "topology.nodes", "node name")
    if not nodes:
        raise r.err(r.line_of(topo, "nodes"), "topology.nodes", "no nodes defined")
    pending_hosts: list[tuple[str, dict, int]] = []
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
            raise r.err(line, f"{field}.kind", "missing 'kind' (switch or host)")
        if kind in _SWITCH_KINDS:
            r.unknown(body, _SWITCH_FIELDS, field, _IGNORED_NODE_FIELDS)
            spec.switches[node_name] = _yaml_switch(r, dflt, node_name, body, line)
        elif kind in _HOST_KINDS:
            r.unknown(body, _HOST_FIELDS, field, _IGNORED_NODE_FIELDS)
            pending_hosts.append((node_name, body, line))
        else:
            raise r.err(kline, f"{field}.kind", f"unknown kind {_show(kind)} (use switch or host)", kind)
    _yaml_hosts(r, spec, pending_hosts)

    links = topo.get("links", _Seq())
    lline = r.line_of(topo, "links")
    if links is None:
        links = _Seq()
    if not isinstance(links, list):
        raise r.err(lline, "topology.links", f"must be a list of links, got {_show(links)}")
    ports = _PortBook(r, spec)
    for i, body in enumerate(links):
        field = f"topology.links[{i}]"
        if not isinstance(body, dict):
            raise r.err(getattr(body, "line", 0) or lline, field,
                        f"must be a mapping with 'endpoints', got {_show(body)}")
        r.no_duplicates(body, field)
        r.unknown(body, _LINK_FIELDS, field)
        spec.links.append(_yaml_link(r, dflt, ports, body, field))
    return spec


class _Defaults:
    """Values from ``defaults:``, already checked, with the built-in fallbacks."""

    def __init__(self, r: _Reader, d: dict[str, tuple[Any, int, str]], program: str | Path | None):
        def get(k, parse, fallback):
            return r.unit(parse, *d[k]) if k in d else fallback

        self.bandwidth = get("bandwidth", parse_rate, DEFAULT_BANDWIDTH_BPS)
        self.latency = get("latency", parse_time, DEFAULT_LATENCY_NS)
        self.queue = get("queue", parse_queue, DEFAULT_QUEUE)
        self.mtu = r.positive_int(*d["mtu"], 68, 65535) if "mtu" in d else DEFAULT_MTU
        self.loss = get("loss", parse_probability, 0.0)
        self.corruption = get("corruption", parse_probability, 0.0)
        self.processing = get("processing", parse_time, 0)
        self.detection = get("detection", parse_time, DEFAULT_DETECTION_NS)
        self.write_latency = get("write_latency", parse_time, 0)
        self.kind = d["kind"][0] if "kind" in d else None
        if self.kind is not None and self.kind not in _SWITCH_KINDS | _HOST_KINDS:
            raise r.err(d["kind"][1], d["kind"][2], f"unknown kind {_show(self.kind)} (use switch or host)")
        self.program = r.program(*d["program"]) if "program" in d else _resolve_program_arg(program, r)


def _yaml_switch(r: _Reader, dflt: _Defaults, name: str, body: dict, line: int) -> SwitchSpec:
    field = f"topology.nodes.{name}"

    def at(k):
        return r.line_of(body, k)

    if "program" in body:
        program = r.program(body["program"], at("program"), f"{field}.program")
    elif dflt.program is not None:
        program = dflt.program
    else:
        raise r.err(line, f"{field}.program", f"switch '{name}' has no program (give 'program:' with a .p4 file "
                                              f"or a built-in name such as ipv4_router)", name)
    entries = None
    if body.get("entries") is not None:
        entries = r.find_file(body["entries"], at("entries"), f"{field}.entries", "entries file")
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
    return SwitchSpec(name=name, program=program, entries=entries, controller=controller,
                      processing_ns=t("processing_latency", dflt.processing),
                      detection_ns=t("detection_delay", dflt.detection),
                      write_latency_ns=t("write_latency", dflt.write_latency),
                      params=params, line=line)


def _yaml_hosts(r: _Reader, spec: TopologySpec, pending: list[tuple[str, dict, int]]) -> None:
    ips: dict[int, tuple[str, int]] = {}
    macs: dict[int, tuple[str, int]] = {}
    parsed = []
    for name, body, line in pending:
        field = f"topology.nodes.{name}"
        ip = plen = mac = gateway = None
        if body.get("ip") is not None:
            try:
                ip, plen = _parse_interface(body["ip"])
            except ValueError as e:
                raise r.err(r.line_of(body, "ip"), f"{field}.ip", str(e), body["ip"]) from None
            if ip in ips:
                other, oline = ips[ip]
                raise r.err(r.line_of(body, "ip"), f"{field}.ip",
                            f"IPv4 address {format_ipv4(ip)} is already used by host '{other}' (line {oline})", body["ip"])
            ips[ip] = (name, line)
        if body.get("mac") is not None:
            try:
                mac = _check_host_mac(parse_mac(body["mac"]), body["mac"])
            except ValueError as e:
                raise r.err(r.line_of(body, "mac"), f"{field}.mac", str(e), body["mac"]) from None
            if mac in macs:
                other, oline = macs[mac]
                raise r.err(r.line_of(body, "mac"), f"{field}.mac",
                            f"MAC address {format_mac(mac)} is already used by host '{other}' (line {oline})", body["mac"])
            macs[mac] = (name, line)
        if body.get("gateway") is not None:
            try:
                gateway = parse_ipv4(body["gateway"])
            except ValueError as e:
                raise r.err(r.line_of(body, "gateway"), f"{field}.gateway", str(e), body["gateway"]) from None
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
        parsed.append([name, line, ip, plen, mac, gateway, arp])
    # Deterministic defaults, in file order, avoiding addresses given explicitly.
    next_n = 1
    for item in parsed:
        name, line, ip, plen, mac, gateway, arp = item
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
                                    static_arp=arp, line=line)


class _PortBook:
    """Which (node, port) pairs links already use, and where, for 'used twice' errors."""

    def __init__(self, r: _Reader, spec: TopologySpec):
        self.r, self.spec = r, spec
        self.used: dict[tuple[str, int], int] = {}
        self.host_link: dict[str, int] = {}

    def claim(self, node: str, port: int, line: int, field: str, text: str) -> None:
        if node in self.spec.hosts:
            if node in self.host_link:
                raise self.r.err(line, field, f"host '{node}' has two links (the first is at line "
                                              f"{self.host_link[node]}); a host has one interface, eth0", text)
            self.host_link[node] = line
        elif (node, port) in self.used:
            raise self.r.err(line, field, f"port {port} of '{node}' is used twice (also by the link at line "
                                          f"{self.used[(node, port)]})", text)
        self.used[(node, port)] = line


def _parse_endpoint(r: _Reader, spec: TopologySpec, text: Any, line: int, field: str) -> tuple[str, int]:
    if not isinstance(text, str) or not text.strip():
        raise r.err(line, field, f"an endpoint must be written \"node:interface\", got {_show(text)}", text)
    node, sep, iface = text.strip().partition(":")
    known = list(spec.switches) + list(spec.hosts)
    if node not in spec.switches and node not in spec.hosts:
        raise r.err(line, field, f"unknown node '{node}'{_known_nodes(node, known)}", node)
    if node in spec.hosts:
        if not sep:
            return node, 0
        m = _HOST_IF_RE.match(iface)
        if not m or int(m.group(1)) != 0:
            raise r.err(line, field, f"host '{node}' has one interface, eth0; got '{iface}'", text)
        return node, 0
    if not sep or not iface:
        raise r.err(line, field, f"switch endpoint '{text}' needs a port, e.g. \"{node}:p1\"", text)
    m = _SWITCH_PORT_RE.match(iface)
    if not m:
        raise r.err(line, field, f"bad switch port '{iface}' in '{text}' (write pN or N, e.g. \"{node}:p1\")", text)
    port = int(m.group(1))
    if port > MAX_PORT:
        raise r.err(line, field, f"port {port} of '{node}' is out of range 0..{MAX_PORT} (511 is the drop port)", text)
    return node, port


def _yaml_link(r: _Reader, dflt: _Defaults, ports: _PortBook, body: dict, field: str) -> LinkSpec:
    line = getattr(body, "line", 0)

    def at(k):
        return r.line_of(body, k) or line

    if "endpoints" not in body:
        raise r.err(line, f"{field}.endpoints", "missing 'endpoints' (e.g. [\"s1:p1\", \"h1:eth0\"])")
    eps = body["endpoints"]
    if not isinstance(eps, list) or len(eps) != 2:
        raise r.err(at("endpoints"), f"{field}.endpoints",
                    f"must list two endpoints, e.g. [\"s1:p1\", \"h1:eth0\"], got {_show(eps)}")
    ends = []
    for text in eps:
        node, port = _parse_endpoint(r, ports.spec, text, at("endpoints"), f"{field}.endpoints")
        ends.append((node, port, text))
    if ends[0][:2] == ends[1][:2]:
        raise r.err(at("endpoints"), f"{field}.endpoints", f"both endpoints are '{eps[0]}'", eps[0])
    for node, port, text in ends:
        ports.claim(node, port, at("endpoints"), f"{field}.endpoints", text)

    def get(k, parse, fallback):
        return r.unit(parse, body[k], at(k), f"{field}.{k}") if k in body else fallback

    mtu = r.positive_int(body["mtu"], at("mtu"), f"{field}.mtu", 68, 65535) if "mtu" in body else dflt.mtu
    return LinkSpec(a=ends[0][:2], b=ends[1][:2],
                    bandwidth_bps=get("bandwidth", parse_rate, dflt.bandwidth),
                    latency_ns=get("latency", parse_time, dflt.latency),
                    queue=get("queue", parse_queue, dflt.queue), mtu=mtu,
                    loss=get("loss", parse_probability, dflt.loss),
                    corruption=get("corruption", parse_probability, dflt.corruption),
                    line=line)


# ---- tutorials topology.json --------------------------------------------------------------------------

_GW_RE = [re.compile(r"^route\s+add\s+default\s+gw\s+(\S+)"), re.compile(r"^ip\s+route\s+add\s+default\s+via\s+(\S+)")]
_TUT_SWITCH_FIELDS = {"runtime_json", "cli_input", "program", "cpu_port", "priority_queues"}
_TUT_HOST_FIELDS = {"ip", "mac", "commands"}


def load_tutorials_topology(text: str, path: str | Path = "<topology.json>",
                            program: str | Path | None = None) -> TopologySpec:
    """Parse the P4 tutorials' topology.json (see the module docstring)."""
    path = Path(path)
    r = _Reader(path)
    extra = (path.parent.parent, Path.cwd())
    top = _load_json_text(text, r.file)
    if not isinstance(top, dict):
        raise ConfigError("topology.json must hold a JSON object with hosts, switches and links", r.file, 1)
    for key in top.duplicates:
        raise r.err(top.line, key, f"duplicate key '{key}'")
    for key in top:
        if key not in ("hosts", "switches", "links"):
            raise r.err(top.line, key, f"unknown key '{key}' (known: hosts, links, switches)"
                                       f"{_suggest(key, ['hosts', 'switches', 'links'])}", key)
    default_program = _resolve_program_arg(program, r)
    spec = TopologySpec(name=path.parent.name or path.stem, source=path)

    def section(key):
        value = top.get(key, _JObj())
        if not isinstance(value, dict):
            raise r.err(top.line, key, f"must be a JSON object, got {_show(value)}")
        for dup in value.duplicates:
            raise r.err(getattr(value, "line", 0) or top.line, key, f"duplicate node name '{dup}'", dup)
        return value

    hosts, switches = section("hosts"), section("switches")
    for name in hosts:
        if name in switches:
            raise r.err(getattr(switches, "line", 0), f"switches.{name}",
                        f"duplicate node name '{name}' (also a host)", name)

    for name, body in switches.items():
        field = f"switches.{name}"
        if not isinstance(body, dict):
            raise r.err(switches.line, field, f"must be a JSON object, got {_show(body)}")
        line = getattr(body, "line", 0) or switches.line
        for k in body:
            if k not in _TUT_SWITCH_FIELDS:
                raise r.err(line, f"{field}.{k}", f"unknown field '{k}' (known: {', '.join(sorted(_TUT_SWITCH_FIELDS))})"
                                                  f"{_suggest(k, _TUT_SWITCH_FIELDS)}", k)
        if body.get("program"):
            prog = r.program(body["program"], line, f"{field}.program", extra)
        elif default_program is not None:
            prog = default_program
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
        spec.switches[name] = SwitchSpec(name=name, program=prog, entries=entries, params=params, line=line)

    ips: dict[int, str] = {}
    macs: dict[int, str] = {}
    for name, body in hosts.items():
        field = f"hosts.{name}"
        if not isinstance(body, dict):
            raise r.err(hosts.line, field, f"must be a JSON object, got {_show(body)}")
        line = getattr(body, "line", 0) or hosts.line
        for k in body:
            if k not in _TUT_HOST_FIELDS:
                raise r.err(line, f"{field}.{k}", f"unknown field '{k}' (known: commands, ip, mac)"
                                                  f"{_suggest(k, _TUT_HOST_FIELDS)}", k)
        if "ip" not in body:
            raise r.err(line, f"{field}.ip", "missing 'ip' (e.g. \"10.0.1.1/24\")")
        try:
            ip, plen = _parse_interface(body["ip"])
        except ValueError as e:
            raise r.err(line, f"{field}.ip", str(e), body["ip"]) from None
        if ip in ips:
            raise r.err(line, f"{field}.ip", f"IPv4 address {format_ipv4(ip)} is already used by host '{ips[ip]}'")
        ips[ip] = name
        if body.get("mac") is not None:
            try:
                mac = _check_host_mac(parse_mac(body["mac"]), body["mac"])
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
        raise r.err(top.line, "links", f"must be a list, got {_show(links)}")
    ports = _PortBook(r, spec)
    # Ports written explicitly are claimed first; a bare switch name gets the lowest free port from 1.
    parsed = []
    for i, item in enumerate(links):
        field = f"links[{i}]"
        line = getattr(item, "line", 0) or links.line
        if not isinstance(item, list) or not 2 <= len(item) <= 4:
            raise r.err(line, field, f"must be [node1, node2] or [node1, node2, latency, bandwidth], got {_show(item)}")
        parsed.append((field, line, [_tutorial_endpoint(r, spec, e, line, field) for e in item[:2]], item))
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
                raise r.err(line, f"{field}[3]", f"bandwidth must be a number of Mbit/s, got {_show(bw)}", bw)
            bandwidth = r.unit(parse_rate, f"{bw}Mbps" if isinstance(bw, (int, float)) or _is_number(bw) else bw,
                               line, f"{field}[3]")
        spec.links.append(LinkSpec(a=resolved[0], b=resolved[1], bandwidth_bps=bandwidth, latency_ns=latency,
                                   line=line))
    return spec


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _tutorial_latency(r: _Reader, value: Any, line: int, field: str) -> int:
    if isinstance(value, bool):
        raise r.err(line, field, f"latency must be a number of ms or a time such as \"5ms\", got {value!r}")
    if isinstance(value, (int, float)) or (isinstance(value, str) and _is_number(value.strip())):
        return r.unit(parse_time, f"{float(value)}ms", line, field)
    return r.unit(parse_time, value, line, field)


def _tutorial_endpoint(r: _Reader, spec: TopologySpec, text: Any, line: int, field: str) -> tuple[str, int | None]:
    if not isinstance(text, str) or not text:
        raise r.err(line, field, f"an endpoint must be a host name or \"s1-p1\", got {_show(text)}", text)
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
    raise r.err(line, field, f"unknown node '{node}'{_known_nodes(node, known)}", text)


def _host_commands(r: _Reader, commands: Any, line: int, field: str) -> tuple[int | None, dict[int, int]]:
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
