"""A device config that is not this emulator's (say BMv2's JSON from p4c), accepted for the
program the server already runs.

Controllers written for BMv2 (the P4 tutorials' ``p4runtime_lib``, p4runtime-shell's bmv2
mode) push p4c's BMv2 JSON as ``p4_device_config``, either bare or wrapped in PI's
``p4.tmp.P4DeviceConfig`` (field 3, ``device_data``; the tutorials' ``buildDeviceConfig``).
The emulator cannot run BMv2 JSON, but when the server was started with the program
(``dataplane serve PROG``, or a ``dataplane run --serve`` switch with its ``--program``) the
controller only has to mean the same program; the pushed P4Info says which program it means.
So a foreign device config is accepted when its P4Info describes the known program, compared
with the P4Info built for it by ``same_program``; otherwise INVALID_ARGUMENT says what to push.
"""
from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format
from p4.config.v1 import p4info_pb2

from dataplane.control.device_config import HEADER

# What a P4Info comparison ignores: what documents or decorates an object but does not change
# what a controller writes or reads (ids, names, widths, match kinds, sizes and references all
# count). ``alias`` is the shortest unique suffix of the name, a display name that entities do not
# carry; ``pkg_info`` names the program and architecture in prose (p4c puts the arch there, others
# leave it empty).
IGNORED = frozenset({"doc", "annotations", "structuredAnnotations", "annotationLocations", "alias", "pkgInfo"})


def describe(device_config: bytes) -> str | None:
    """What a foreign device config looks like ("BMv2 JSON", ...); None for this emulator's own
    (bare or wrapped)."""
    data = unwrap(device_config)
    if data.startswith(HEADER.encode()):
        return None
    what = _kind(data)
    if data is not device_config:
        return f"{what} in a p4.tmp.P4DeviceConfig (as the P4 tutorials' p4runtime_lib sends it)"
    return what


def _kind(data: bytes) -> str:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return "a device config of another target"
    if isinstance(doc, dict) and ("pipelines" in doc or "header_types" in doc) and "__meta__" in doc:
        return "BMv2 JSON"
    return "a JSON file that is not BMv2's"


def unwrap(data: bytes) -> bytes:
    """``device_data`` of a serialized ``p4.tmp.P4DeviceConfig`` (bool reassign = 1; Extras
    extras = 2; bytes device_data = 3), or ``data`` itself if it is not one. Read from the wire
    format by hand: the p4runtime package does not ship PI's p4.tmp protos."""
    i, n, found = 0, len(data), None
    try:
        while i < n:
            key, i = _varint(data, i)
            field, wire = key >> 3, key & 7
            if wire == 0 and field == 1:
                _, i = _varint(data, i)
            elif wire == 2 and field in (2, 3):
                size, i = _varint(data, i)
                if i + size > n:
                    return data
                if field == 3:
                    found = data[i:i + size]
                i += size
            else:
                return data
    except IndexError:
        return data
    return found if found is not None else data


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise IndexError("varint too long")


def same_program(pushed: p4info_pb2.P4Info, built: p4info_pb2.P4Info) -> list[str]:
    """How the pushed P4Info differs from the one built for the server's program (at most a few
    lines, empty if they describe the same program); order and the fields in IGNORED do not count."""
    a, b = _canonical(pushed), _canonical(built)
    problems = []
    for section in sorted(set(a) | set(b)):
        mine, theirs = b.get(section, {}), a.get(section, {})
        if not isinstance(mine, dict) or not isinstance(theirs, dict):
            if mine != theirs:
                problems.append(f"its {section} differ")
            continue
        for name in sorted(set(mine) | set(theirs)):
            if name not in theirs:
                problems.append(f"it has no {_singular(section)} {name}")
            elif name not in mine:
                problems.append(f"the program has no {_singular(section)} {name}")
            elif mine[name] != theirs[name]:
                problems.append(f"its {_singular(section)} {name} differs ({_first_difference(theirs[name], mine[name])})")
    return problems


def _canonical(p4info: p4info_pb2.P4Info) -> dict[str, Any]:
    """Each top-level section as {object name: object without IGNORED fields, lists sorted}."""
    doc = _strip(json_format.MessageToDict(p4info, preserving_proto_field_name=False))
    out: dict[str, Any] = {}
    for section, value in doc.items():
        if isinstance(value, list) and all(isinstance(o, dict) and "preamble" in o for o in value):
            out[section] = {o["preamble"].get("name", "?"): o for o in value}
        else:
            out[section] = value
    return out


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in IGNORED}
    if isinstance(value, list):
        return sorted((_strip(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def _first_difference(theirs: Any, mine: Any, path: str = "") -> str:
    if isinstance(theirs, dict) and isinstance(mine, dict):
        for key in sorted(set(theirs) | set(mine)):
            if theirs.get(key) != mine.get(key):
                return _first_difference(theirs.get(key), mine.get(key), f"{path}.{key}" if path else key)
    return f"{path or 'value'}: pushed {_show(theirs)}, program {_show(mine)}"


def _show(value: Any) -> str:
    # MessageToDict writes 64-bit integers (size, ...) as strings: show them as numbers
    return "nothing" if value is None else value if isinstance(value, str) else json.dumps(value)


def _singular(section: str) -> str:
    words = {"tables": "table", "actions": "action", "counters": "counter", "directCounters": "direct counter",
             "meters": "meter", "directMeters": "direct meter", "registers": "register", "digests": "digest",
             "valueSets": "value set", "actionProfiles": "action profile", "controllerPacketMetadata":
             "controller header", "externs": "extern"}
    return words.get(section, section)
