"""Helpers of the inlining pass that need no inlining state: statement rewrites p4c's front end
makes around an inlined body (``RemoveReturns``, ``ResetHeaders``), the location sets that
decide whether arguments alias, call-site comparison and constant folding after substitution.
"""
from __future__ import annotations

import dataclasses
from typing import Iterator

from dataplane.errors import Span
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.ir.node import Annotation, Node, walk
from dataplane.lang.consteval import cast_int, fold_binary
from dataplane.lang.literals import wrap

# ---- return inside an inlined control body ------------------------------------------------------

def has_return(stmts) -> bool:
    """Whether ``return`` occurs among ``stmts`` (actions are not statements, so theirs never count)."""
    return any(isinstance(n, S.Return) for s in stmts for n in walk(s))


def remove_returns(stmts: tuple[S.Stmt, ...], flag: E.PathExpr) -> list[S.Stmt]:
    """``stmts`` with every ``return;`` turned into ``flag = true`` and what follows it guarded by
    ``if (!flag)``, as p4c's ``RemoveReturns`` does before it inlines a control: the return then
    ends only the inlined body."""
    return _lower(stmts, flag)[0]


def _lower(stmts, flag) -> tuple[list[S.Stmt], str]:
    out: list[S.Stmt] = []
    for i, s in enumerate(stmts):
        lowered, state = _lower_stmt(s, flag)
        out.append(lowered)
        if state == "yes":
            return out, "yes"    # the rest is unreachable
        if state == "maybe":
            rest, _ = _lower(stmts[i + 1:], flag)
            if rest:
                guard = E.Unary("!", flag, type=T.BOOL, span=s.span)
                out.append(S.If(guard, S.BlockStmt(tuple(rest), span=s.span), span=s.span))
            return out, "maybe"
    return out, "no"


def _lower_stmt(s: S.Stmt, flag) -> tuple[S.Stmt, str]:
    if isinstance(s, S.Return):
        return S.Assign(flag, E.BoolLiteral(True, type=T.BOOL, span=s.span), span=s.span), "yes"
    if isinstance(s, S.BlockStmt):
        stmts, state = _lower(s.stmts, flag)
        return dataclasses.replace(s, stmts=tuple(stmts)), state
    if isinstance(s, S.If):
        then, a = _lower_stmt(s.then, flag)
        other, b = _lower_stmt(s.otherwise, flag) if s.otherwise is not None else (None, "no")
        state = "yes" if a == b == "yes" else ("maybe" if "yes" in (a, b) or "maybe" in (a, b) else "no")
        return dataclasses.replace(s, then=then, otherwise=other), state
    if isinstance(s, S.Switch):
        cases, states = [], set()
        for c in s.cases:
            if c.body is None:
                cases.append(c)
                continue
            body, state = _lower_stmt(c.body, flag)
            cases.append(dataclasses.replace(c, body=body))
            states.add(state)
        return dataclasses.replace(s, cases=tuple(cases)), ("maybe" if states - {"no"} else "no")
    return s, "no"


# ---- out parameters: headers start invalid --------------------------------------------------------

def header_resets(target: E.Expr, t: T.Type, span: Span) -> list[S.Stmt]:
    """``setInvalid()`` for every header inside ``target`` (p4c ``DoResetHeaders::generateResets``):
    what an ``out`` argument holds when the callee starts. Other fields keep their values."""
    t = T.strip_newtype(t)
    if isinstance(t, T.Header):
        method = T.Method("setInvalid", ())
        call = E.Call(E.Member(target, "setInvalid", type=method, span=span), type=T.VOID, span=span)
        return [S.CallStmt(call, span=span)]
    if isinstance(t, (T.Struct, T.HeaderUnion)):
        return [r for f in t.fields for r in header_resets(E.Member(target, f.name, type=f.type, span=span), f.type, span)]
    if isinstance(t, T.Stack):
        out = []
        for i in range(t.size):
            index = E.Index(target, E.Constant(i, type=T.Bits(32), span=span), type=t.element, span=span)
            out += header_resets(index, t.element, span)
        return out
    return []


# ---- aliasing ----------------------------------------------------------------------------------------

def locations(e: E.Expr | None) -> list[tuple[str, ...]]:
    """The storage paths ``e`` reads or writes, coarsely (p4c ``FindLocationSets``): a field is a
    path below its header, an element with a constant index a path below its stack, anything
    indexed at run time the whole stack."""
    if e is None or isinstance(e, (E.Constant, E.BoolLiteral, E.StringLiteral, E.TypeMember, E.DontCareExpr)):
        return []
    if isinstance(e, E.PathExpr):
        return [(e.name,)]
    if isinstance(e, E.Member):
        base = locations(e.expr)
        return [base[0] + (e.member,)] if len(base) == 1 else base
    if isinstance(e, E.Index):
        base = locations(e.expr)
        if isinstance(e.index, E.Constant) and len(base) == 1:
            return [base[0] + (str(e.index.value),)]
        return base + locations(e.index)
    if isinstance(e, E.Slice):
        return locations(e.expr)
    return [loc for child in _expr_children(e) for loc in locations(child)]


def overlap(a: list[tuple[str, ...]], b: list[tuple[str, ...]]) -> bool:
    return any(x[:len(y)] == y or y[:len(x)] == x for x in a for y in b)


def _expr_children(e: Node) -> Iterator[E.Expr]:
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        items = v if isinstance(v, tuple) else (v,)
        for item in items:
            if isinstance(item, E.Expr):
                yield item
            elif isinstance(item, (E.Argument, E.NamedField)) and item.value is not None:
                yield item.value


def has_call(e: E.Expr) -> bool:
    return any(isinstance(n, E.Call) for n in walk(e))


def same(a: Node | None, b: Node | None) -> bool:
    """Structural equality of two expressions, ignoring where they were written."""
    return _key(a) == _key(b)


def _key(n):
    if isinstance(n, Node):
        return (type(n).__name__,) + tuple(_key(getattr(n, f.name)) for f in dataclasses.fields(n)
                                           if f.name not in ("span", "_"))
    if isinstance(n, tuple):
        return tuple(_key(x) for x in n)
    return n


# ---- constant folding after substitution ------------------------------------------------------------

def fold(e: E.Expr) -> E.Expr:
    """``e`` with operators on constants evaluated: a constructor parameter replaced by its value
    may leave ``k + 1`` where an extern's constructor needs a number."""
    if isinstance(e, E.Binary) and isinstance(e.left, E.Constant) and isinstance(e.right, E.Constant):
        t = T.strip_newtype(e.left.type)
        width = t.width if isinstance(t, T.Bits) else None
        signed = isinstance(t, T.Bits) and t.signed
        if e.op in ("/", "%") and e.right.value == 0 or e.op == "++":
            return e
        v = fold_binary(e.op, e.left.value, e.right.value, width, signed)
        if isinstance(v, bool):
            return E.BoolLiteral(v, type=T.BOOL, span=e.span)
        return E.Constant(v, type=e.type, span=e.span)
    if isinstance(e, E.Unary) and isinstance(e.operand, (E.Constant, E.BoolLiteral)):
        x = e.operand
        if e.op == "!" and isinstance(x, E.BoolLiteral):
            return E.BoolLiteral(not x.value, type=T.BOOL, span=e.span)
        if isinstance(x, E.Constant) and e.op in ("-", "+", "~"):
            v = {"-": -x.value, "+": x.value, "~": ~x.value}[e.op]
            t = T.strip_newtype(e.type)
            return E.Constant(wrap(v, t.width, t.signed) if isinstance(t, T.Bits) else v, type=e.type, span=e.span)
    if isinstance(e, E.Cast) and isinstance(e.expr, E.Constant):
        t = T.strip_newtype(e.type)
        if isinstance(t, T.Bits):
            return E.Constant(cast_int(e.expr.value, t.width, t.signed), type=e.type, span=e.span)
    if isinstance(e, E.Mux) and isinstance(e.cond, E.BoolLiteral):
        return e.then if e.cond.value else e.otherwise
    return e


def name_annotation(annotations: tuple, name: str, span: Span) -> tuple:
    """``annotations`` with ``@name`` set to ``name``."""
    rest = tuple(a for a in annotations if a.name != "name")
    return (Annotation("name", f'"{name}"', span=span),) + rest
