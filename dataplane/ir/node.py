"""Base of the syntax nodes, a uniform child walk and class-name-dispatching visitors."""
from __future__ import annotations

import dataclasses
from typing import Any, Iterator

from dataplane.errors import NO_SPAN, Span
from dataplane.records import KW_ONLY, record


@record(frozen=True, slots=True)
class Node:
    """Every node carries the span of the source text it came from."""

    _: KW_ONLY
    span: Span = NO_SPAN


@record(frozen=True, slots=True)
class Annotation(Node):
    """``@name``, ``@name(body)`` or ``@name[body]``; ``body`` is the raw text between the brackets."""

    name: str
    body: str = ""
    structured: bool = False  # written @name[...]: a structured annotation (spec 18.2)

    @property
    def string_value(self) -> str:
        """The body as a string literal's contents (for ``@name("x")``)."""
        b = self.body.strip()
        if len(b) >= 2 and b[0] == b[-1] == '"':
            return b[1:-1]
        return b


def annotation(annotations: tuple, name: str) -> Annotation | None:
    for a in annotations:
        if a.name == name:
            return a
    return None


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}   # per node class, its dataclass fields' names


def children(node: Node) -> Iterator[Node]:
    """The direct child nodes of ``node``, in field order."""
    names = _FIELD_NAMES.get(type(node))
    if names is None:  # dataclasses.fields() per node was most of the cost of a walk
        names = _FIELD_NAMES[type(node)] = tuple(f.name for f in dataclasses.fields(node))
    for name in names:
        value = getattr(node, name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    yield item
                elif isinstance(item, tuple):
                    yield from (x for x in item if isinstance(x, Node))


def walk(node: Node) -> Iterator[Node]:
    """All nodes under ``node``, itself first (pre-order)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(children(n))))


class Visitor:
    """Dispatches ``visit(node)`` to ``visit_<ClassName>``, falling back to ``generic_visit``."""

    def visit(self, node: Node, *args: Any) -> Any:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            return self.generic_visit(node, *args)
        return method(node, *args)

    def generic_visit(self, node: Node, *args: Any) -> Any:
        for child in children(node):
            self.visit(child, *args)
        return None
