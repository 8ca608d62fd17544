"""Type checker: how deep and how big the types a program declares are, held to ``lang.limits``.

Types nest through names as well as through syntax: ``struct s1 { s0 f; }`` declared 10,000
times over nests 10,000 deep, and ``typedef tuple<t0, t0> t1;`` repeated 40 times holds 2**40
fields while its text is a few lines. Every pass and the engine walk a type's fields (to
lay out, compare, print or initialise a value), so such a type is refused where it is
declared or written, before anything walks it: ``CompileLimits.nesting`` levels deep at
most, and ``CompileLimits.type_fields`` fields (nested types counted out in full).
"""
from __future__ import annotations

from dataplane.errors import Span
from dataplane.ir import types as T
from dataplane.lang.limits import LimitExceeded


class TypeSizeMixin:
    """Measures types as the checker makes them (``measure_type``); needs ``limits``, ``too_deep``
    and ``type_sizes`` from ``CheckerState``."""

    def measure_type(self, t: T.Type, span: Span) -> None:
        """Refuse ``t`` at ``span`` if it nests deeper than ``limits.nesting`` or holds more than
        ``limits.type_fields`` fields."""
        depth, fields = self._size(t)
        if depth > self.limits.nesting:
            self.too_deep(span, "types nest in one another")
        if fields > self.limits.type_fields:
            raise LimitExceeded(f"this type holds {fields} fields, those of its nested types counted out in full: "
                                f"more than {self.limits.type_fields} (the limit of the compiler, lang/limits.py)",
                                span)

    def measured(self, t: T.Type, span: Span) -> T.Type:
        """``t``, once ``measure_type`` has passed it."""
        self.measure_type(t, span)
        return t

    def _size(self, t: T.Type) -> tuple[int, int]:
        """(levels of nesting, scalar fields) of ``t``: ``bit<8>`` is (0, 1), a struct of two of them
        (1, 2). Kept per type object, so a type that holds another twice is measured once."""
        known = self.type_sizes.get(id(t))
        if known is not None:
            return known[1]
        if isinstance(t, T.StructLike):
            inner = [f.type for f in t.fields]
        elif isinstance(t, T.Tuple):
            inner = list(t.elements)
        elif isinstance(t, (T.NewType, T.Stack, T.P4List)):
            inner = [t.base if isinstance(t, T.NewType) else t.element]
        else:
            return (0, 1)
        sizes = [self._size(x) for x in inner]
        count = t.size if isinstance(t, T.Stack) else 1
        size = (1 + max((d for d, _ in sizes), default=0), count * sum(n for _, n in sizes))
        self.type_sizes[id(t)] = (t, size)     # the type kept too: its id stays its own
        return size
