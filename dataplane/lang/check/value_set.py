"""Type checker, part 6: parser value sets (``value_set<T>(size) name;``) and their use as select cases.

A value set is a set of keysets the control plane fills at run time. Its element type is a
bit string (or a serializable enum, a bool) matched against a one-key select, or a struct or
tuple whose fields, flattened in order, line up with the select's keys; BMv2 matches a member
as a value and a mask over the keys concatenated, which is what the engine does.
"""
from __future__ import annotations

from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.lang.check.types import UNKNOWN, is_unknown
from dataplane.lang.scope import Symbol


def key_leaves(t: T.Type) -> list[T.Type] | None:
    """The scalar fields of a value-set element in order, or None if ``t`` cannot be matched."""
    t = T.strip_newtype(t)
    if isinstance(t, (T.Bits, T.Bool, T.Enum)) and not (isinstance(t, T.Enum) and t.underlying is None):
        return [t]
    if isinstance(t, T.Struct):
        out: list[T.Type] = []
        for f in t.fields:
            leaves = key_leaves(f.type)
            if leaves is None:
                return None
            out += leaves
        return out
    if isinstance(t, T.Tuple):
        out = []
        for e in t.elements:
            leaves = key_leaves(e)
            if leaves is None:
                return None
            out += leaves
        return out
    return None


class ValueSetMixin:
    """Declares value sets and checks their use in ``select``."""

    def check_value_set(self, d: D.ValueSetDecl) -> P.ExternInstance | None:
        t = self.resolve(d.type_ref)
        size = self.check_expr(d.size)
        if not self.in_context("parser"):
            self.error(f"value_set '{d.name}' can only be declared in a parser", d.span, code="invalid-context")
        if not isinstance(size, E.Constant) or size.value <= 0:
            self.error(f"the size of value_set '{d.name}' must be a positive compile-time constant", d.size.span,
                       code="not-constant")
            size = E.Constant(1, type=T.INT)
        if not is_unknown(t) and key_leaves(t) is None:
            self.error(f"value_set '{d.name}': elements of type {t} cannot be matched; use bit<W>, a serializable "
                       "enum, or a struct or tuple of them", d.type_ref.span, code="invalid-type")
            t = UNKNOWN
        self.declare_value(Symbol(d.name, "value_set", t, span=d.span))
        if is_unknown(t):
            return None
        return P.ExternInstance(d.name, "value_set", (t,), (size,), d.annotations, d.span)

    def value_set_keyset(self, ref: E.PathExpr, sym: Symbol, keys: tuple[E.Expr, ...]) -> E.Expr:
        """A select case naming value set ``sym``: its element fields must line up with the keys."""
        leaves = key_leaves(sym.type) if not is_unknown(sym.type) else None
        key_types = [k.type for k in keys]
        if leaves is not None and not is_unknown(*key_types):
            widths = [_width(t) for t in leaves]
            want = [_width(t) for t in key_types]
            if widths != want:
                self.error(f"value_set '{ref.name}' has elements of type {sym.type} "
                           f"({', '.join(map(str, leaves))}), which do not match the select keys "
                           f"({', '.join(map(str, key_types))})", ref.span, code="invalid-type")
        return E.PathExpr(ref.name, "value_set", type=sym.type, span=ref.span)


def _width(t: T.Type) -> int:
    t = T.strip_newtype(t)
    if isinstance(t, T.Enum):
        t = t.underlying
    if isinstance(t, T.Bool):
        return 1
    return t.width if isinstance(t, T.Bits) else -1
