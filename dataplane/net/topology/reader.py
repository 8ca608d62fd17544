"""What both topology readers share: loaders that keep line numbers, and the field checks.

``load_yaml_text`` and ``load_json_text`` parse a file so that every mapping/object and
sequence/array knows its line (``.line``; YAML mappings also ``.key_lines``) and duplicate keys
stay visible (``.duplicates``); YAML never reads ``a:b:c`` as a base-60 number, so MAC
addresses stay text. ``Reader`` turns each bad field into a ``ConfigError`` naming the file,
line and field (quantities, whole numbers, files, programs, controllers); ``PortBook`` refuses
a port used twice. ``topology.py`` (YAML) and ``tutorials_topology.py`` (topology.json) use them.
"""
from __future__ import annotations

import bisect
import difflib
import json
import json.decoder
import json.scanner
import re
from pathlib import Path
from typing import Any

import yaml

from dataplane.control.config_errors import ConfigError, yaml_error
from dataplane.control.values import MAX_DIGITS, LongNumber, json_int
from dataplane.errors import shown
from dataplane.net.core.units import UnitError
from dataplane.net.topology.spec import TopologySpec

__all__ = ["MAX_PORT", "PORT_RE", "YamlMap", "YamlSeq", "load_yaml_text", "JsonObject", "load_json_text", "Reader",
           "PortBook", "suggest", "known_nodes", "show", "self_link", "resolve_program_arg"]

MAX_PORT = 510                    # BMv2 uses 511 as the drop port
PORT_RE = re.compile(r"^(?:p|eth|port)?([0-9]+)$", re.IGNORECASE)   # how switch and DPU ports are written

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_ARCH_MARKS = (("pna", re.compile(r'#\s*include\s*[<"]pna\.p4[>"]|\bPNA_NIC\s*\(')),
               ("psa", re.compile(r'#\s*include\s*[<"](bmv2/)?psa\.p4[>"]|\bPSA_Switch\s*\(')),
               ("v1model", re.compile(r'#\s*include\s*[<"]v1model\.p4[>"]|\bV1Switch\s*\(')))


# ---- YAML with line numbers -------------------------------------------------------------------------

class YamlMap(dict):
    """A YAML mapping that knows the line of its first key and of each key."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.line = 0
        self.key_lines: dict[str, int] = {}
        self.duplicates: list[tuple[str, int, int]] = []   # (key, line, first line)


class YamlSeq(list):
    line = 0


class _Loader(yaml.SafeLoader):
    """SafeLoader that records lines, keeps duplicate keys visible and never reads ``a:b:c`` as base 60."""


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> YamlMap:
    loader.flatten_mapping(node)
    m = YamlMap()
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


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> YamlSeq:
    s = YamlSeq(loader.construct_object(child, deep=True) for child in node.value)
    s.line = node.start_mark.line + 1
    return s


def _construct_int(loader: _Loader, node: yaml.ScalarNode):
    text = loader.construct_scalar(node)
    if ":" in text:          # YAML 1.1 sexagesimal: 10:00:00:00:01:11 is a MAC, not an integer
        return text
    digits = len(text.replace("_", "").lstrip("+-"))
    if digits > MAX_DIGITS:  # no value in a topology is this large; int() would refuse it past 4,300
        return LongNumber(digits)
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


def load_yaml_text(text: str, filename: str, what: str = "invalid YAML") -> Any:
    """The YAML document in ``text``; an error is a ``ConfigError`` located in ``filename``,
    its message starting with ``what``."""
    try:
        loader = _Loader(text)   # the reader refuses NUL and other control characters here
    except yaml.YAMLError as e:
        raise yaml_error(e, filename, what, text=text) from None
    loader.filename = filename
    try:
        return loader.get_single_data()
    except yaml.YAMLError as e:
        raise yaml_error(e, filename, what, text=text) from None
    finally:
        loader.dispose()


# ---- JSON with line numbers -------------------------------------------------------------------------

class JsonObject(dict):
    line = 0
    duplicates: list


class _JList(list):
    line = 0


def load_json_text(text: str, filename: str) -> Any:
    """json.loads where every object and array knows its line and duplicate keys are kept."""
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    decoder = json.JSONDecoder(parse_int=json_int)

    def line_of(index: int) -> int:
        return bisect.bisect_left(newlines, index) + 1

    def pairs_hook(pairs):
        obj = JsonObject()
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

def suggest(word: str, choices) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


class Reader:
    def __init__(self, path: Path):
        self.path = path
        self.file = str(path)
        self.base = path.parent
        self._architectures: dict[Path, str | None] = {}

    def err(self, line: int, field: str, message: str, token: Any = None) -> ConfigError:
        return ConfigError(f"{field}: {message}" if field else message, self.file, line,
                           None if token is None else str(token))

    @staticmethod
    def line_of(m: Any, key: str | None = None) -> int:
        if key is not None and isinstance(m, YamlMap) and key in m.key_lines:
            return m.key_lines[key]
        return getattr(m, "line", 0)

    def mapping(self, value: Any, field: str, line: int) -> dict:
        if value is None:
            return YamlMap()
        if not isinstance(value, dict):
            raise self.err(getattr(value, "line", 0) or line, field, f"must be a mapping, got {show(value)}")
        return value

    def unknown(self, m: dict, known: set[str], field: str, ignored: set[str] = frozenset()) -> None:
        for key in m:
            if key not in known and key not in ignored:
                raise self.err(self.line_of(m, key), f"{field}.{key}" if field else str(key),
                               f"unknown field '{key}' (known: {', '.join(sorted(known))}){suggest(key, known)}",
                               key)

    def no_duplicates(self, m: Any, field: str, what: str = "key") -> None:
        for key, line, first in getattr(m, "duplicates", ()):
            raise self.err(line, field, f"duplicate {what} '{key}' (first defined at line {first})", key)

    def unit(self, parse, value: Any, line: int, field: str):
        if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
            raise self.err(line, field, f"cannot read {show(value)} as a quantity", value)
        if isinstance(value, LongNumber):
            raise self.err(line, field, f"{value!r} is too large")
        try:
            return parse(value)
        except UnitError as e:
            raise self.err(line, field, str(e), value) from None

    def positive_int(self, value: Any, line: int, field: str, low: int = 1, high: int | None = None) -> int:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if type(value) is not int or value < low or (high is not None and value > high):
            rng = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.err(line, field, f"must be a whole number {rng}, got {show(value)}", value)
        return value

    def find_file(self, name: Any, line: int, field: str, what: str, extra_bases: tuple[Path, ...] = ()) -> Path:
        if not isinstance(name, str) or not name.strip():
            raise self.err(line, field, f"must be a file name, got {show(name)}", name)
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
            raise self.err(line, field, f"must be a .p4 file or a built-in program name, got {show(value)}", value)
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

    def architecture(self, program: Path) -> str | None:
        """``pna``, ``psa`` or ``v1model`` as a .p4 file's own text declares it (include or package), or
        None when it says neither itself; read, not compiled, so a bad program fails later."""
        if program not in self._architectures:
            try:
                text = _COMMENTS.sub(" ", program.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                text = ""
            self._architectures[program] = next((a for a, rx in _ARCH_MARKS if rx.search(text)), None)
        return self._architectures[program]

    def check_architecture(self, program: Path, kind: str, line: int, field: str) -> None:
        """Refuse a PNA program on a switch and a v1model or PSA one on a DPU. A file that
        declares none itself is left to the network builder, which checks the compiled program."""
        arch = self.architecture(program)
        if kind == "dpu" and arch in ("v1model", "psa"):
            raise self.err(line, field, f"a DPU runs PNA programs (#include <pna.p4>, PNA_NIC); "
                                        f"{program.name} is a {arch} program: use kind: switch", program.name)
        if kind == "switch" and arch == "pna":
            raise self.err(line, field, f"a switch runs v1model and PSA programs; {program.name} is a PNA "
                                        f"program: use kind: dpu", program.name)

    def port_list(self, value: Any, line: int, field: str) -> tuple[int, ...]:
        """``[p0, 1, eth2]`` (or one port) as sorted port numbers."""
        ports = set()
        for item in value if isinstance(value, list) else [value]:
            m = PORT_RE.match(str(item).strip()) if type(item) in (int, str) else None
            if m is None or int(m.group(1)) > MAX_PORT:
                raise self.err(line, field, f"bad port {show(item)} (write pN or N, 0..{MAX_PORT}, e.g. [p1, p2])",
                               item)
            ports.add(int(m.group(1)))
        return tuple(sorted(ports))

    def controller(self, value: Any, line: int, field: str) -> str:
        if not isinstance(value, str) or ":" not in value:
            raise self.err(line, field, f"must be written \"file.py:ClassName\" or \"module:ClassName\", "
                                        f"got {show(value)}", value)
        target, _, cls = value.strip().rpartition(":")
        if not cls.isidentifier() or not target:
            raise self.err(line, field, f"must be written \"file.py:ClassName\" or \"module:ClassName\", "
                                        f"got {show(value)}", value)
        if target.endswith(".py"):
            return f"{self.find_file(target, line, field, 'controller file')}:{cls}"
        if not all(part.isidentifier() for part in target.split(".")):
            raise self.err(line, field, f"'{target}' is neither a .py file nor a module name", value)
        return f"{target}:{cls}"


def known_nodes(node: str, known: list[str]) -> str:
    hint = suggest(node, known)
    if hint:
        return hint
    names = ", ".join(known[:12]) + (f", ... ({len(known)} nodes)" if len(known) > 12 else "")
    return f" (nodes: {names})"


def self_link(node: str, a: Any, b: Any) -> str:
    """The message for a link whose two endpoints are on one node (a cable looped back into the
    same device: no topology here means it, and a switch would forward to itself)."""
    return f"a link from '{node}' to itself ({a} and {b}): a link joins two different nodes"


def show(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return shown(value)


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


# ---- the program argument and port bookkeeping --------------------------------------------------

def resolve_program_arg(program: str | Path | None, r: Reader) -> Path | None:
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


class PortBook:
    """Which (node, port) pairs links already use, and where, for 'used twice' errors."""

    def __init__(self, r: Reader, spec: TopologySpec):
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

