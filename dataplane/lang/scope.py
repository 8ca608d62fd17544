"""Symbol tables for the type checker: nested scopes of values and a global table of types."""
from __future__ import annotations

from dataclasses import field
from typing import Any

from dataplane.errors import NO_SPAN, Span
from dataplane.ir.types import Type
from dataplane.records import record


@record(slots=True)
class Symbol:
    """A name visible to expressions.

    ``kind`` is one of: ``param``, ``local``, ``const``, ``instance``, ``action``, ``table``,
    ``function``, ``extern_function``, ``block`` (parser/control type used as a constructor),
    ``state``.
    """

    name: str
    kind: str
    type: Type | None
    direction: str = ""
    decl: Any = None
    value: Any = None           # folded Constant for ``const``
    overloads: list = field(default_factory=list)  # extern functions with several signatures
    span: Span = NO_SPAN


class Scope:
    """A chain of name tables; lookups go outwards to the global scope."""

    def __init__(self, parent: "Scope | None" = None, kind: str = "block"):
        self.parent = parent
        self.kind = kind
        self.names: dict[str, Symbol] = {}

    def child(self, kind: str = "block") -> "Scope":
        return Scope(self, kind)

    def declare(self, sym: Symbol) -> Symbol | None:
        """Add ``sym``; return the symbol it collides with in this same scope, if any."""
        old = self.names.get(sym.name)
        if old is not None and old.kind == "extern_function" and sym.kind == "extern_function":
            old.overloads.append(sym.type)
            return None
        self.names[sym.name] = sym
        return old

    def lookup(self, name: str) -> Symbol | None:
        scope: Scope | None = self
        while scope is not None:
            sym = scope.names.get(name)
            if sym is not None:
                return sym
            scope = scope.parent
        return None

    def lookup_all(self, name: str) -> list[Symbol]:
        """Every symbol named ``name``, innermost scope first (the shadowed ones after)."""
        out = []
        scope: Scope | None = self
        while scope is not None:
            sym = scope.names.get(name)
            if sym is not None:
                out.append(sym)
            scope = scope.parent
        return out

    def visible_names(self) -> list[str]:
        out: list[str] = []
        scope: Scope | None = self
        while scope is not None:
            out.extend(scope.names)
            scope = scope.parent
        return out
