"""Statement nodes of parser states, actions, functions and control ``apply`` blocks."""
from __future__ import annotations

from dataplane.ir.expr import Call, Expr, TypeRef
from dataplane.ir.node import Node
from dataplane.ir.types import Type
from dataplane.records import record


@record(frozen=True, slots=True)
class Stmt(Node):
    pass


@record(frozen=True, slots=True)
class Assign(Stmt):
    """``lhs = rhs``; compound forms (``+=`` ...) are kept as ``op`` by the parser and expanded by the checker."""

    lhs: Expr
    rhs: Expr
    op: str = ""


@record(frozen=True, slots=True)
class CallStmt(Stmt):
    call: Call


@record(frozen=True, slots=True)
class If(Stmt):
    cond: Expr
    then: Stmt
    otherwise: Stmt | None = None


@record(frozen=True, slots=True)
class BlockStmt(Stmt):
    stmts: tuple[Stmt, ...] = ()
    annotations: tuple = ()


@record(frozen=True, slots=True)
class Exit(Stmt):
    pass


@record(frozen=True, slots=True)
class Return(Stmt):
    value: Expr | None = None


@record(frozen=True, slots=True)
class Empty(Stmt):
    pass


@record(frozen=True, slots=True)
class SwitchCase(Node):
    """One label (an expression, an action name as ``PathExpr``, or ``DefaultKeyset``) and its block; ``None`` falls through."""

    label: Expr
    body: BlockStmt | None = None


@record(frozen=True, slots=True)
class Switch(Stmt):
    expr: Expr
    cases: tuple[SwitchCase, ...] = ()


@record(frozen=True, slots=True)
class For(Stmt):
    """``for (init, ...; cond; update, ...) body``; ``cond`` None loops until ``break``."""

    init: tuple[Stmt, ...]
    cond: Expr | None
    updates: tuple[Stmt, ...]
    body: Stmt
    annotations: tuple = ()


@record(frozen=True, slots=True)
class ForIn(Stmt):
    """``for (T x in collection) body``: ``collection`` is a ``Range`` (both ends included), a
    header stack (every element, in order, as a copy) or a list."""

    var: "VarDecl"
    collection: Expr
    body: Stmt
    annotations: tuple = ()


@record(frozen=True, slots=True)
class Break(Stmt):
    pass


@record(frozen=True, slots=True)
class Continue(Stmt):
    pass


@record(frozen=True, slots=True)
class VarDecl(Stmt):
    """A local variable (``T x [= e];``); also used for control/parser-level variables."""

    type_ref: TypeRef
    name: str
    init: Expr | None = None
    annotations: tuple = ()
    resolved: Type | None = None  # filled in by the type checker


@record(frozen=True, slots=True)
class ConstDecl(Stmt):
    """``const T x = e;`` at any level; it is both a statement and a declaration."""

    type_ref: TypeRef
    name: str
    value: Expr
    annotations: tuple = ()
