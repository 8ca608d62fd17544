"""gNMI paths against what a source serves.

A schema is a nested dict: a container maps child names to schema nodes, a list is
``ListNode(key, children)``, a leaf is ``None``. Data paths are tuples of ``(name, keys)`` with
``keys`` a tuple of ``(key, value)`` pairs (``dataplane.net.telemetry.counters``).

A request path (its prefix's elements, then its own) may use ``*`` for an element's name or a
key's value and ``...`` for any number of levels; it selects every leaf at or below what it
names. The gNMI specification's codes (3.3.4, 3.5.2.4): ``INVALID_ARGUMENT`` for a path that
is malformed (an empty name, keys on a container or a leaf, a key the list does not have, the
deprecated string ``element`` form, keys on ``...``); ``UNIMPLEMENTED`` for names this server's
schema has not, or another origin than ``openconfig``; a path the schema has but no data for is
the caller's to judge (Get: ``NOT_FOUND``; Subscribe: no value).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional

import grpc

__all__ = ["GnmiError", "ListNode", "request_elems", "check_path", "matches", "to_proto", "path_text"]

ORIGINS = ("", "openconfig")
MAX_ELEMS = 64                # elements in one request path (prefix and path)


class GnmiError(Exception):
    """An RPC's failure: a gRPC status code and a message for the client."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class ListNode:
    """A YANG list in a schema: its key's name and its entries' children."""

    key: str
    children: dict


Elem = tuple[str, tuple[tuple[str, str], ...]]


def request_elems(prefix: Any, path: Any) -> tuple[Elem, ...]:
    """The elements of ``prefix`` + ``path`` (gnmi.Path messages), checked for form and origin."""
    elems: list[Elem] = []
    for part in (prefix, path):
        if part is None:
            continue
        if len(part.element):
            raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT,
                            "paths in the deprecated string form (Path.element) are not read; use Path.elem")
        if part.origin not in ORIGINS:
            raise GnmiError(grpc.StatusCode.UNIMPLEMENTED,
                            f"origin {part.origin!r}: this target serves the openconfig origin only")
        for e in part.elem:
            if not e.name:
                raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, "a path element has no name")
            if e.name == "..." and len(e.key):
                raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, "'...' takes no keys")
            if any(not k or not v for k, v in e.key.items()):
                raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, f"element {e.name!r} has an empty key or value")
            elems.append((e.name, tuple(sorted(e.key.items()))))
    if len(elems) > MAX_ELEMS:
        raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, f"a path of {len(elems)} elements (at most {MAX_ELEMS})")
    return tuple(elems)


def check_path(elems: tuple[Elem, ...], schema: dict) -> None:
    """GnmiError unless ``elems`` names something of ``schema`` (module docstring)."""
    problems: list[GnmiError] = []
    if not _walk(elems, 0, schema, problems, {}):
        text = path_text(elems)
        bad_keys = [p for p in problems if p.code == grpc.StatusCode.INVALID_ARGUMENT]
        if bad_keys:
            raise GnmiError(grpc.StatusCode.INVALID_ARGUMENT, f"{text}: {bad_keys[0].message}")
        raise GnmiError(grpc.StatusCode.UNIMPLEMENTED, f"{text}: not in this target's schema "
                        f"({', '.join('/' + name for name in schema)}: OpenConfig interfaces, ethernet and qos)")


def _walk(elems: tuple[Elem, ...], i: int, node: Any, problems: list[GnmiError], memo: dict) -> bool:
    """Whether elems[i:] can name something at or below schema ``node``. ``memo`` keeps each
    (i, node) answered once, so a path of many ``...`` costs its length times the schema's size,
    not the ways of spreading them over its levels."""
    key = (i, id(node))
    if key not in memo:
        memo[key] = _walk_once(elems, i, node, problems, memo)
    return memo[key]


def _walk_once(elems: tuple[Elem, ...], i: int, node: Any, problems: list[GnmiError], memo: dict) -> bool:
    if i == len(elems):
        return True
    name, keys = elems[i]
    if name == "...":
        if _walk(elems, i + 1, node, problems, memo):
            return True
        return any([_walk(elems, i, child, problems, memo) for child in _children(node)])
    if not isinstance(node, dict) and not isinstance(node, ListNode):
        return False                         # past a leaf
    children = node.children if isinstance(node, ListNode) else node
    found = False
    for child_name, child in children.items():
        if name not in ("*", child_name):
            continue
        if keys:
            if not isinstance(child, ListNode):
                problems.append(GnmiError(grpc.StatusCode.INVALID_ARGUMENT, f"{child_name!r} is not a list; "
                                          f"it takes no keys"))
                continue
            wrong = [k for k, _ in keys if k != child.key]
            if wrong:
                problems.append(GnmiError(grpc.StatusCode.INVALID_ARGUMENT, f"list {child_name!r} has the key "
                                          f"{child.key!r}, not {', '.join(map(repr, wrong))}"))
                continue
        if _walk(elems, i + 1, child, problems, memo):
            found = True
    return found


def _children(node: Any) -> Iterable[Any]:
    if isinstance(node, ListNode):
        return node.children.values()
    if isinstance(node, dict):
        return node.values()
    return ()


def matches(elems: tuple[Elem, ...], leaf: tuple) -> bool:
    """Whether the request ``elems`` select the data path ``leaf`` (it or a container above it)."""
    return _match(elems, 0, leaf, 0, {})


def _match(req: tuple, i: int, leaf: tuple, j: int, memo: dict) -> bool:
    """elems[i:] against leaf[j:]; ``memo`` as ``_walk``'s (each (i, j) once)."""
    if (i, j) in memo:
        return memo[(i, j)]
    if i == len(req):
        result = True
    elif req[i][0] == "...":
        result = any(_match(req, i + 1, leaf, k, memo) for k in range(j, len(leaf) + 1))
    elif j == len(leaf):
        result = False
    else:
        name, keys = req[i]
        leaf_name, leaf_keys = leaf[j]
        have = dict(leaf_keys)
        result = (name in ("*", leaf_name) and all(v == "*" or have.get(k) == v for k, v in keys)
                  and _match(req, i + 1, leaf, j + 1, memo))
    memo[(i, j)] = result
    return result


def to_proto(gnmi_pb2: Any, leaf: tuple, origin: Optional[str] = None) -> Any:
    """A gnmi.Path for the data path ``leaf``."""
    path = gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=name, key=dict(keys)) for name, keys in leaf])
    if origin:
        path.origin = origin
    return path


def path_text(elems: tuple) -> str:
    """``/a/b[k=v]`` for messages."""
    return "/" + "/".join(name + "".join(f"[{k}={v}]" for k, v in keys) for name, keys in elems)
