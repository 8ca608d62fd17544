"""IR to JSON-ready data: every dataclass becomes an object tagged with its class name.

Types print as P4 spells them (``bit<8>``), spans as ``file:line:col``; the result is
meant for people and tools that inspect a compiled program, not for loading back.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any

from dataplane.errors import Span
from dataplane.ir.types import Type


def to_data(obj: Any) -> Any:
    """Convert an IR object graph into dicts, lists, strings and numbers."""
    if isinstance(obj, Span):
        return str(obj) if obj.line else None
    if isinstance(obj, Type):
        return str(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out: dict[str, Any] = {"node": type(obj).__name__}
        for f in dataclasses.fields(obj):
            if f.name == "_":
                continue
            value = to_data(getattr(obj, f.name))
            if value in (None, (), [], {}, ""):
                continue
            out[f.name] = value
        return out
    if isinstance(obj, dict):
        return {str(k): to_data(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_data(x) for x in obj]
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    return repr(obj)


def program_to_json(program: Any, indent: int | None = 2) -> str:
    """The whole program IR as a JSON document."""
    data = to_data(program)
    data["types"] = {name: _type_data(t) for name, t in program.types.items()}
    return json.dumps(data, indent=indent)


def _type_data(t: Type) -> Any:
    from dataplane.ir import types as T

    if isinstance(t, T.StructLike):
        return {"kind": t.kind, "fields": [{"name": f.name, "type": str(f.type)} for f in t.fields]}
    if isinstance(t, T.Enum):
        d: dict[str, Any] = {"kind": "enum", "members": list(t.members)}
        if t.underlying is not None:
            d["underlying"] = str(t.underlying)
            d["values"] = list(t.values or ())
        return d
    if isinstance(t, T.Extern):
        return {"kind": "extern", "type_params": list(t.type_params),
                "methods": [str(m) for m in t.constructors + t.methods]}
    if isinstance(t, T.Block):
        return {"kind": t.kind, "params": [f"{p.direction} {p.type} {p.name}".strip() for p in t.params]}
    if isinstance(t, T.NewType):
        return {"kind": "type", "base": str(t.base)}
    return {"kind": "alias", "type": str(t)}
