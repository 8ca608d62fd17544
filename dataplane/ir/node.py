"""Base of the syntax nodes, a uniform child walk and class-name-dispatching visitors."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, ClassVar, Iterator

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
    """Dispatches ``visit(node, *args)`` to ``visit_<ClassName>``, falling back to ``generic_visit``.

    As pycparser's ``NodeVisitor`` and p4c's visitors: the method is found once per node class
    and cached on the visitor class, so a walk builds no strings and does no ``getattr``.
    Lookup follows the node class's MRO, so ``visit_Expr`` catches every expression that has no
    rule of its own. Any class works as a node (the STF runner visits its commands).

    A visitor with a second family of rules over the same classes (the checker's top-level
    declarations beside its statements) names it by prefix: ``self.dispatch("top_", node)``.
    """

    _tables: ClassVar[dict[str, dict[type, Callable[..., Any]]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._tables = {"visit_": {}}   # per class: a subclass may override a rule

    def visit(self, node: Any, *args: Any) -> Any:
        try:
            method = self._tables["visit_"][type(node)]
        except KeyError:
            method = type(self).rule("visit_", type(node))
        return method(self, node, *args)

    def dispatch(self, prefix: str, node: Any, *args: Any) -> Any:
        """Call the rule ``<prefix><ClassName>`` for ``node`` (cached like ``visit``)."""
        try:
            method = self._tables[prefix][type(node)]
        except KeyError:
            method = type(self).rule(prefix, type(node))
        return method(self, node, *args)

    @classmethod
    def rule(cls, prefix: str, node_class: type) -> Callable[..., Any]:
        """The function that handles ``node_class`` under ``prefix`` (its own rule, the nearest
        base class's, or ``generic_visit``), remembered for the next node of that class."""
        if "_tables" not in cls.__dict__:   # Visitor itself, used directly
            cls._tables = {"visit_": {}}
        for klass in node_class.__mro__:
            method = getattr(cls, prefix + klass.__name__, None)
            if method is not None:
                break
        else:
            method = cls.generic_visit
        cls._tables.setdefault(prefix, {})[node_class] = method
        return method

    def generic_visit(self, node: Any, *args: Any) -> Any:
        """Visit the children of a ``Node`` (nothing else has children); return None."""
        if isinstance(node, Node):
            for child in children(node):
                self.visit(child, *args)
        return None
