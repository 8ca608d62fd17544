"""Control-plane values to table keys and action data, checked against the P4 widths.

What users give ``Switch.table_add`` and friends: numbers and addresses (``parse_number``),
key values such as ``10.0.1.0/24``, ``0x0a00 &&& 0xff00``, ``1..5``, ``(value, mask)`` or
``ExactKey``/``LpmKey``/``TernaryKey``/``RangeKey`` objects, as a list, one value or a dict by
key name (``match_key``, ``key_value``), and action parameters as a list or by name
(``action_args``). Every bad value raises ``ControlPlaneError`` naming the table, field and value.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Sequence

from dataplane.control.config_errors import ControlPlaneError
from dataplane.control.keys import ExactKey, LpmKey, RangeKey, TernaryKey
from dataplane.control.values import parse_value
from dataplane.engine.table_runtime import RuntimeTable
from dataplane.errors import shown
from dataplane.ir import types as T

__all__ = ["parse_number", "type_width", "match_key", "key_value", "action_args"]


def parse_number(text: Any, what: str) -> int:
    """An int, a bool or text such as ``0x0a``, ``10.0.1.1`` or ``08:00:00:00:01:11`` as an int."""
    if isinstance(text, bool):
        return int(text)
    if isinstance(text, int):
        return text
    try:
        return parse_value(str(text).strip())
    except Exception:
        raise ControlPlaneError(f"{what}: cannot read {shown(text)} as a number or address") from None


def type_width(t: T.Type) -> int:
    """The width in bits of a value of type ``t`` (an enum's underlying type for a serializable enum)."""
    t = T.strip_newtype(t)
    if isinstance(t, T.Enum) and t.underlying is not None:
        return t.underlying.width
    return t.bit_width()


def action_args(t: RuntimeTable, name: str, data: Sequence[Any], params: Any) -> tuple:
    """The values for action ``name``'s data parameters ``data`` (given as a list or by name), width-checked."""
    if isinstance(params, Mapping):
        unknown = set(params) - {p.name for p in data}
        if unknown:
            raise ControlPlaneError(f"table '{t.qualified_name}': action '{name}' has no parameter(s) "
                         f"{', '.join(sorted(unknown))} "
                         f"(it takes {', '.join(p.name for p in data) or 'none'})")
        missing = [p.name for p in data if p.name not in params]
        if missing:
            raise ControlPlaneError(f"table '{t.qualified_name}': action '{name}': "
                         f"missing parameter(s) {', '.join(missing)}")
        values = [params[p.name] for p in data]
    else:
        values = list(params)
        if len(values) != len(data):
            raise ControlPlaneError(f"table '{t.qualified_name}': action '{name}' takes {len(data)} "
                         f"parameter(s), got {len(values)}")
    args = []
    for p, v in zip(data, values):
        what = f"table '{t.qualified_name}': action '{name}' parameter '{p.name}'"
        if not isinstance(T.strip_newtype(p.type), (T.Bits, T.Bool, T.Enum)):
            # p4c compiles such an action but writes no P4Info for it: no control plane sets it
            raise ControlPlaneError(f"{what} has type {p.type}, which the control plane cannot supply "
                                    "(bit<W>, int<W>, bool, an enum or a 'type' only)")
        width = type_width(p.type)
        iv = parse_number(v, what)
        if not 0 <= iv < (1 << width):
            raise ControlPlaneError(f"{what}: value {shown(v)} does not fit in {width} bits")
        args.append(T.strip_newtype(p.type) == T.BOOL and bool(iv) or iv)
    return tuple(args)


def match_key(t: RuntimeTable, match: Any) -> tuple:
    """The key tuple for ``t.match`` from a list of values, one value, or a dict by key name."""
    keys = [t.table.keys[i] for i in t.match_fields]
    if isinstance(match, Mapping):
        values = []
        given = dict(match)
        names = [k.name for k in keys]
        unknown = [g for g in given if not any(n == g or n.endswith("." + g) or n.endswith(g) for n in names)]
        if unknown:
            raise ControlPlaneError(f"table '{t.qualified_name}' has no key(s) {', '.join(map(str, unknown))} "
                         f"(its keys: {', '.join(names)})")
        for k in keys:
            found = [g for g in given if g == k.name or k.name.endswith("." + g) or k.name.endswith(g)]
            if len(found) > 1:
                found = [g for g in found if g == k.name] or found
            if not found and k.match_kind in _WILDCARDS:
                values.append(_WILDCARDS[k.match_kind])  # P4Runtime: an omitted field matches anything
                continue
            if len(found) != 1:
                raise ControlPlaneError(f"table '{t.qualified_name}': no value for key '{k.name}'"
                             if not found else
                             f"table '{t.qualified_name}': key '{k.name}' is named twice: {found}")
            values.append(given.pop(found[0]))
        if given:
            raise ControlPlaneError(f"table '{t.qualified_name}' has no key(s) {', '.join(given)}")
    else:
        values = list(match) if isinstance(match, (list, tuple)) and not _is_pair(match, keys) else [match]
    if len(values) != len(keys):
        raise ControlPlaneError(f"table '{t.qualified_name}' has {len(keys)} key field(s), got {len(values)} value(s)")
    return tuple(key_value(t, k, v, w) for k, v, (_, w) in zip(keys, values, t.key_layout))


def key_value(t: RuntimeTable, key, v: Any, width: int):
    """One key field's value for ``t.match``: int, ``(value, prefix_len)``, ``(value, mask)``, ``(lo, hi)`` or None."""
    what = f"table '{t.qualified_name}' key '{key.name}'"
    kind = key.match_kind
    if kind in ("optional", "range") and (v is None or (isinstance(v, str) and v.strip() in ("*", "_"))):
        return None if kind == "optional" else (0, (1 << width) - 1)  # the key's wildcard
    spec = _spec(v, kind, what)
    top = (1 << width) - 1

    def fit(x: int) -> int:
        if not 0 <= x <= top:
            raise ControlPlaneError(f"{what}: value {x:#x} does not fit in {width} bits")
        return x

    if kind in ("exact", "selector"):
        if not isinstance(spec, ExactKey):
            raise ControlPlaneError(f"{what} is exact; got {shown(v)}")
        return fit(spec.value)
    if kind == "lpm":
        if isinstance(spec, ExactKey):
            return (fit(spec.value), width)
        if not isinstance(spec, LpmKey):
            raise ControlPlaneError(f"{what} is lpm; give value/prefix_len, got {shown(v)}")
        if not 0 <= spec.prefix_len <= width:
            raise ControlPlaneError(f"{what}: prefix length {spec.prefix_len} is out of range 0..{width}")
        return (fit(spec.value), spec.prefix_len)
    if kind == "ternary":
        if isinstance(spec, ExactKey):
            return (fit(spec.value), top)
        if isinstance(spec, LpmKey):
            return (fit(spec.value), (top << (width - spec.prefix_len)) & top)
        if not isinstance(spec, TernaryKey):
            raise ControlPlaneError(f"{what} is ternary; give value &&& mask, got {shown(v)}")
        return (fit(spec.value), fit(spec.mask))
    if kind == "range":
        if isinstance(spec, ExactKey):
            return (fit(spec.value), fit(spec.value))
        if not isinstance(spec, RangeKey):
            raise ControlPlaneError(f"{what} is range; give lo..hi, got {shown(v)}")
        if spec.low > spec.high:
            raise ControlPlaneError(f"{what}: range {spec.low}..{spec.high} is empty")
        return (fit(spec.low), fit(spec.high))
    if kind == "optional":
        if isinstance(spec, TernaryKey) and spec.mask == 0:
            return None
        if not isinstance(spec, ExactKey):
            raise ControlPlaneError(f"{what} is optional; give a value or '*', got {shown(v)}")
        return fit(spec.value)
    raise ControlPlaneError(f"{what}: unsupported match kind {kind}")


# What an omitted non-exact field of a dict-form key means (P4Runtime's don't-care).
_WILDCARDS = {"lpm": LpmKey(0, 0), "ternary": TernaryKey(0, 0), "range": None, "optional": None}


def _spec(v: Any, kind: str, what: str):
    if isinstance(v, (ExactKey, LpmKey, TernaryKey, RangeKey)):
        return v
    if isinstance(v, tuple) and len(v) == 2:
        a, b = parse_number(v[0], what), parse_number(v[1], what)
        return {"lpm": LpmKey(a, b), "ternary": TernaryKey(a, b), "range": RangeKey(a, b)}.get(kind, TernaryKey(a, b))
    if isinstance(v, str):
        s = v.strip()
        if "&&&" in s:
            a, b = s.split("&&&", 1)
            return TernaryKey(parse_number(a, what), parse_number(b, what))
        if ".." in s or "->" in s:
            a, b = s.split(".." if ".." in s else "->", 1)
            return RangeKey(parse_number(a, what), parse_number(b, what))
        if "/" in s:
            a, b = s.split("/", 1)
            return LpmKey(parse_number(a, what), parse_number(b, what))
    if v is None:
        raise ControlPlaneError(f"{what}: a value is required")
    return ExactKey(parse_number(v, what))


def _is_pair(match: Any, keys) -> bool:
    """A 2-tuple given for a one-key lpm/ternary/range table is that key's value, not two keys."""
    return isinstance(match, tuple) and len(keys) == 1 and len(match) == 2 and keys[0].match_kind in ("lpm", "ternary", "range")
