"""Metadata fields a program names by ``@alias``: how the fabric writes a value into one.

BMv2's simple_switch fills ``queueing_metadata`` fields that a v1model program declares in its
user metadata with ``@alias("queueing_metadata.qid")`` and the like; a switch node finds
such a field once and writes it per packet. Here, not in net/, because it reads the program's
types and the engine's attribute names.
"""
from __future__ import annotations

from typing import Any


def alias_path(dp: Any, alias: str) -> tuple[str, ...] | None:
    """The attribute path, in a v1model program's user metadata, of the field annotated
    ``@alias("<alias>")`` (at any struct depth), or None."""
    from dataplane.engine.structgen import py_name
    from dataplane.ir import types as T

    types = dp.program.types
    meta_class = getattr(dp, "metadata_class", None)
    if meta_class is None:
        return None

    def walk(st: Any, path: tuple[str, ...], seen: int) -> tuple[str, ...] | None:
        for f in getattr(st, "fields", ()):
            if any(a.name == "alias" and a.body.strip().strip('"') == alias for a in f.annotations):
                return path + (py_name(f.name),)
            ft = T.strip_newtype(f.type)
            if isinstance(ft, T.Struct) and seen < 8:
                found = walk(ft, path + (py_name(f.name),), seen + 1)
                if found:
                    return found
        return None

    return walk(types.get(meta_class.p4_name), (), 0)


def set_path(obj: Any, path: tuple[str, ...], value: int) -> None:
    """``obj.<path> = value`` (a metadata field found by :func:`alias_path`)."""
    for name in path[:-1]:
        obj = getattr(obj, name)
    setattr(obj, path[-1], value)
