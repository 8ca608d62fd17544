"""Copying what a node or an app counted from one rank to another: its plain attributes.

``plain_state`` keeps the attributes made of numbers, strings, bytes, containers of those and
dataclasses of those (PortStats, HostStats, FlowRecord, ...); references to other objects (the
simulator, ports, programs) stay behind, since rank 0 has its own."""
from __future__ import annotations

from array import array
from collections import deque
from dataclasses import fields, is_dataclass
from typing import Any

_ATOMS = (type(None), bool, int, float, str, bytes, array)


def is_plain(value: Any, depth: int = 0) -> bool:
    """Numbers, strings, bytes, and lists/tuples/sets/dicts/dataclasses made of those."""
    if isinstance(value, _ATOMS):
        return True
    if depth > 8:
        return False
    if isinstance(value, (list, tuple, set, frozenset, deque)):
        return all(is_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(is_plain(k, depth + 1) and is_plain(v, depth + 1) for k, v in value.items())
    if is_dataclass(value) and not isinstance(value, type):
        return all(is_plain(getattr(value, f.name), depth + 1) for f in fields(value))
    return False


def _attributes(obj: Any) -> dict[str, Any]:
    """``vars(obj)``; for an instance of a compiled class (``dataplane.compiled``), which keeps its
    attributes in a C struct, those its class lists in ``__mypyc_attrs__`` (and its ``__dict__``)."""
    names = getattr(type(obj), "__mypyc_attrs__", None)
    if names is None:
        return vars(obj)
    got: dict[str, Any] = {}
    for name in names:
        if name == "__dict__":
            got.update(getattr(obj, "__dict__", {}))
        elif hasattr(obj, name):        # (an attribute never set has no value)
            got[name] = getattr(obj, name)
    return got


def plain_state(obj: Any) -> dict[str, Any]:
    """The plain attributes of ``obj`` (see the module docstring)."""
    return {k: v for k, v in _attributes(obj).items() if is_plain(v)}


def apply_state(obj: Any, state: dict[str, Any]) -> None:
    """Overwrite ``obj``'s attributes with ``state`` (from ``plain_state`` on another rank)."""
    if hasattr(type(obj), "__mypyc_attrs__"):
        for name, value in state.items():
            setattr(obj, name, value)
    else:
        vars(obj).update(state)
