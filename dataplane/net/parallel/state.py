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


def plain_state(obj: Any) -> dict[str, Any]:
    """The plain attributes of ``obj`` (see the module docstring)."""
    return {k: v for k, v in vars(obj).items() if is_plain(v)}


def apply_state(obj: Any, state: dict[str, Any]) -> None:
    """Overwrite ``obj``'s attributes with ``state`` (from ``plain_state`` on another rank)."""
    vars(obj).update(state)
