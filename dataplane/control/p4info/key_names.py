"""Match-field names as p4c's TableKeyNames pass writes them into P4Info.

A key without ``@name`` is named after its expression: paths and fields (a field's own
``@name`` counts; one starting with ``.`` restarts the name), ``[i]`` and ``[h:l]`` with
constants in the base they were written in, ``a & b``, and ``h.$valid$`` for ``h.isValid()``.
"""
from __future__ import annotations

from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import annotation
from dataplane.ir.summary import format_expr


def key_name(key: P.TableKey) -> str:
    """``key``'s match-field name: its ``@name`` if it had one, else p4c's name for the expression."""
    if annotation(key.annotations, "name") is not None or key.name != format_expr(key.expr, key_name=True):
        return key.name            # an @name annotation
    generated = _name(key.expr)
    return generated if generated is not None else key.name


def _constant(c: E.Constant) -> str:
    v = c.value
    sign = "-" if v < 0 else ""
    v = abs(v)
    if c.base == 16:
        return f"{sign}0x{v:x}"
    if c.base == 8:
        return f"{sign}0o{v:o}"
    if c.base == 2:
        return f"{sign}0b{v:b}"
    return f"{sign}{v}"


def _name(e: E.Expr) -> str | None:
    if isinstance(e, E.Cast):
        return _name(e.expr)
    if isinstance(e, E.PathExpr):
        return e.name
    if isinstance(e, E.Constant):
        return _constant(e)
    if isinstance(e, E.Member):
        base = T.strip_newtype(e.expr.type) if e.expr is not None and e.expr.type is not None else None
        field = e.member
        if isinstance(base, T.StructLike):
            f = base.get_field(e.member)
            named = annotation(f.annotations, "name") if f is not None else None
            if named is not None:
                field = named.string_value
        if field.startswith("."):
            return field[1:]
        left = _name(e.expr)
        return None if left is None else f"{left}.{field}"
    if isinstance(e, E.Index):
        left, right = _name(e.expr), _name(e.index)
        return None if left is None or right is None else f"{left}[{right}]"
    if isinstance(e, E.Slice):
        parts = [_name(x) for x in (e.expr, e.hi, e.lo)]
        return None if None in parts else f"{parts[0]}[{parts[1]}:{parts[2]}]"
    if isinstance(e, E.Binary) and e.op == "&":
        left, right = _name(e.left), _name(e.right)
        return None if left is None or right is None else f"{left} & {right}"
    if isinstance(e, E.Call) and not e.args and isinstance(e.target, E.Member) and e.target.member == "isValid":
        target = e.target.expr
        if target is not None and isinstance(T.strip_newtype(target.type), (T.Header, T.HeaderUnion)):
            left = _name(target)
            return None if left is None else f"{left}.$valid$"
    return None
