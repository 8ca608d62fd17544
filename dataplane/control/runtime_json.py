"""Parser for the P4 tutorials' runtime JSON (``sX-runtime.json``) into plain dataclasses.

Shape as read by tutorials ``utils/p4runtime_lib/simple_controller.py`` and ``helper.py``.
Names stay as written (P4Info names such as ``MyIngress.ipv4_lpm``). A match value is kept
as the tuple of ints the file gives, because its meaning (``[value, prefix]``, ``[value,
mask]`` or ``[low, high]``) depends on the key's match kind, which only the program knows;
``RuntimeMatch.to_key`` makes the key once the kind is known.

Strings are read with ``parse_value``: MAC, IPv4 and IPv6 as the tutorials do, and also
``"0x0a"``/``"10"`` number strings, which the tutorials would send as raw bytes; the
tutorials' raw-bytes fallback for any other string is not supported (an error here).
simple_controller installs table entries, then multicast groups, then clone sessions,
whatever the key order in the file.
"""
from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
from dataclasses import dataclass, field
from typing import Any

from dataplane.control.config_errors import ConfigError, ConfigWarning
from dataplane.control.keys import ExactKey, KeySpec, LpmKey, RangeKey, TernaryKey
from dataplane.control.values import LongNumber, ValueSyntaxError, json_int, parse_value
from dataplane.records import record

__all__ = ["RuntimeMatch", "RuntimeTableEntry", "Replica", "McGroupEntry", "CloneSessionEntry",
           "RuntimeConfig", "parse_runtime_json"]

Source = tuple[str, int]


@record(frozen=True, slots=True)
class RuntimeMatch:
    """One ``"field": value`` of an entry's ``match``; ``values`` has one or two ints."""

    field: str
    values: tuple[int, ...]
    source: Source = ("<input>", 0)

    def to_key(self, kind: str) -> KeySpec:
        """The key spec for a field of match ``kind`` (exact, lpm, ternary, range, optional).

        exact and optional take one value (a one-element list is the same); lpm takes
        ``[value, prefix_len]``, ternary ``[value, mask]``, range ``[low, high]``.
        """
        n = len(self.values)
        if kind in ("exact", "optional"):
            if n != 1:
                raise ConfigError(f"{kind} match field '{self.field}' takes one value, got {n}", *self.source)
            return ExactKey(self.values[0])
        shapes = {"lpm": (LpmKey, "[value, prefix_len]"), "ternary": (TernaryKey, "[value, mask]"),
                  "range": (RangeKey, "[low, high]")}
        if kind not in shapes:
            raise ConfigError(f"match field '{self.field}' has unsupported match kind '{kind}'", *self.source)
        cls, shape = shapes[kind]
        if n != 2:
            raise ConfigError(f"{kind} match field '{self.field}' must be written {shape}", *self.source)
        return cls(*self.values)


@record(frozen=True, slots=True)
class RuntimeTableEntry:
    """An element of ``table_entries``; ``is_default`` entries set the default action."""

    table: str
    action: str
    match: list[RuntimeMatch]
    params: dict[str, int]
    priority: int | None = None
    is_default: bool = False
    source: Source = ("<input>", 0)


@record(frozen=True, slots=True)
class Replica:
    """One copy of a multicast group or clone session: an egress port and an instance (rid)."""

    egress_port: int
    instance: int


@record(frozen=True, slots=True)
class McGroupEntry:
    """An element of ``multicast_group_entries``."""

    group_id: int
    replicas: list[Replica]
    source: Source = ("<input>", 0)


@record(frozen=True, slots=True)
class CloneSessionEntry:
    """An element of ``clone_session_entries``; ``packet_length_bytes`` 0 means no truncation."""

    session_id: int
    replicas: list[Replica]
    packet_length_bytes: int = 0
    source: Source = ("<input>", 0)


@dataclass
class RuntimeConfig:
    """A whole runtime JSON file."""

    file: str
    target: str | None = None
    p4info: str | None = None
    bmv2_json: str | None = None
    table_entries: list[RuntimeTableEntry] = field(default_factory=list)
    multicast_group_entries: list[McGroupEntry] = field(default_factory=list)
    clone_session_entries: list[CloneSessionEntry] = field(default_factory=list)
    warnings: list[ConfigWarning] = field(default_factory=list)


class _Obj(dict):
    """A JSON object that remembers the line its ``{`` is on."""

    line = 0


def _load(text: str, filename: str) -> Any:
    """json.loads, but every object knows its line, so errors can point into the file."""
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    decoder = json.JSONDecoder(parse_int=json_int)
    plain = json.decoder.JSONObject

    def parse_object(s_and_end, strict, scan_once, object_hook, object_pairs_hook, memo=None):
        start = s_and_end[1]
        obj, end = plain(s_and_end, strict, scan_once, None, _Obj, memo)
        obj.line = bisect.bisect_left(newlines, start) + 1
        return obj, end

    decoder.parse_object = parse_object
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # the C scanner ignores parse_object
    try:
        return decoder.decode(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"invalid JSON: {e.msg} (column {e.colno})", filename, e.lineno) from None


def _dumped(value: Any) -> str:
    """``value`` as JSON for a message, cut when long."""
    if isinstance(value, LongNumber):
        return repr(value)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


class _Reader:
    """Typed access to JSON objects with errors that name the file, line and key."""

    def __init__(self, filename: str):
        self.file = filename
        self.warnings: list[ConfigWarning] = []

    def err(self, obj: Any, message: str, token: str | None = None) -> ConfigError:
        return ConfigError(message, self.file, getattr(obj, "line", 0), token)

    def obj(self, value: Any, what: str, parent: Any) -> _Obj:
        if not isinstance(value, dict):
            raise self.err(parent, f"{what} must be a JSON object, got {_dumped(value)}")
        return value

    def items(self, obj: _Obj, key: str) -> list:
        value = obj.get(key, [])
        if not isinstance(value, list):
            raise self.err(obj, f"'{key}' must be a list", key)
        return value

    def string(self, obj: _Obj, key: str, required: bool = True) -> str | None:
        value = obj.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value:
            raise self.err(obj, f"'{key}' must be a non-empty string" if key in obj else f"missing '{key}'", key)
        return value

    def integer(self, obj: _Obj, key: str, required: bool = True, default: int | None = None) -> int | None:
        if key not in obj and not required:
            return default
        value = obj.get(key)
        if isinstance(value, LongNumber):
            raise self.err(obj, f"'{key}': {value.message()}", key)
        if type(value) is not int or value < 0:
            raise self.err(obj, f"'{key}' must be a non-negative integer" if key in obj else f"missing '{key}'", key)
        return value

    def value(self, obj: _Obj, value: Any, what: str) -> int:
        """A field value: int, bool, or a string parse_value accepts; ``[x]`` is the same as x."""
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, LongNumber):
            raise self.err(obj, f"bad value for {what}: {value.message()}")
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return parse_value(value)
            except ValueSyntaxError as e:
                raise self.err(obj, f"bad value {_dumped(value)} for {what}: {e}", value) from None
        raise self.err(obj, f"bad value {_dumped(value)} for {what}: expected an integer or a string")

    def unknown_keys(self, obj: _Obj, known: set[str], what: str) -> None:
        for key in obj:
            if key not in known:
                self.warnings.append(ConfigWarning(f"unknown key '{key}' in {what}; ignored", self.file, obj.line))


def _table_entry(r: _Reader, e: _Obj) -> RuntimeTableEntry:
    r.unknown_keys(e, {"table", "match", "action_name", "action_params", "default_action", "priority"},
                   "a table entry")
    table = r.string(e, "table")
    action = r.string(e, "action_name")
    is_default = e.get("default_action", False)
    if not isinstance(is_default, bool):
        raise r.err(e, "'default_action' must be true or false", "default_action")
    match: list[RuntimeMatch] = []
    if "match" in e:
        m = r.obj(e["match"], "'match'", e)
        if is_default:
            raise r.err(e, "a default_action entry must not have a 'match'", "match")
        for name, raw in m.items():
            raws = raw if isinstance(raw, list) else [raw]
            if not 1 <= len(raws) <= 2:
                raise r.err(e, f"match field '{name}' must be a value or a list of 1 or 2 values", name)
            values = tuple(r.value(m, v, f"match field '{name}'") for v in raws)
            match.append(RuntimeMatch(name, values, (r.file, m.line or e.line)))
    params_obj = r.obj(e.get("action_params", _Obj()), "'action_params'", e)
    params = {name: r.value(params_obj if params_obj.line else e, v, f"action parameter '{name}'")
              for name, v in params_obj.items()}
    priority = None
    if "priority" in e:
        priority = e["priority"]
        if isinstance(priority, LongNumber):
            raise r.err(e, f"'priority': {priority.message()}", "priority")
        if type(priority) is not int:
            raise r.err(e, "'priority' must be an integer", "priority")
    return RuntimeTableEntry(table, action, match, params, priority, is_default, (r.file, e.line))


def _replicas(r: _Reader, e: _Obj) -> list[Replica]:
    out = []
    for item in r.items(e, "replicas"):
        rep = r.obj(item, "a replica", e)
        r.unknown_keys(rep, {"egress_port", "instance"}, "a replica")
        out.append(Replica(r.integer(rep, "egress_port"), r.integer(rep, "instance")))
    return out


def parse_runtime_json(text: str, filename: str = "<runtime.json>") -> RuntimeConfig:
    """Parse a tutorials runtime JSON file; raises ``ConfigError`` naming file and line."""
    r = _Reader(filename)
    top = _load(text, filename)
    if not isinstance(top, dict):
        raise ConfigError("the runtime file must hold a JSON object", filename, 1)
    r.unknown_keys(top, {"target", "p4info", "bmv2_json", "table_entries", "multicast_group_entries",
                         "clone_session_entries"}, "the runtime file")
    cfg = RuntimeConfig(file=filename, target=r.string(top, "target", required=False),
                        p4info=r.string(top, "p4info", required=False),
                        bmv2_json=r.string(top, "bmv2_json", required=False))
    if cfg.target not in (None, "bmv2"):
        raise r.err(top, f"unknown target '{cfg.target}' (only \"bmv2\" is supported)", cfg.target)
    for item in r.items(top, "table_entries"):
        cfg.table_entries.append(_table_entry(r, r.obj(item, "a table entry", top)))
    for item in r.items(top, "multicast_group_entries"):
        e = r.obj(item, "a multicast group entry", top)
        r.unknown_keys(e, {"multicast_group_id", "replicas"}, "a multicast group entry")
        cfg.multicast_group_entries.append(
            McGroupEntry(r.integer(e, "multicast_group_id"), _replicas(r, e), (filename, e.line)))
    for item in r.items(top, "clone_session_entries"):
        e = r.obj(item, "a clone session entry", top)
        r.unknown_keys(e, {"clone_session_id", "replicas", "packet_length_bytes"}, "a clone session entry")
        cfg.clone_session_entries.append(CloneSessionEntry(
            r.integer(e, "clone_session_id"), _replicas(r, e),
            r.integer(e, "packet_length_bytes", required=False, default=0), (filename, e.line)))
    cfg.warnings = r.warnings
    return cfg
