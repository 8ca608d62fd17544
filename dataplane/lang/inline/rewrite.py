"""How one block instance's code reads once inlined into the top-level parser or control.

An ``Env`` says what each name of the instance's block becomes in the flattened block: its
apply and constructor parameters the caller's arguments, temporaries or constant values,
its variables, tables, actions and extern instances prefixed names (``c1.t``), its own
parser/control instances ``Inst`` records. A ``Rewriter`` applies an ``Env`` to statements
and expressions, keeping P4's scoping: a local declared inside the body or an action's
parameter shadows the block's names. Declarations in an inlined body are renamed too, so a
caller's expression substituted into the body can never be captured by one of them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.lang.inline.support import fold

_LOCAL_KINDS = ("local", "instance", "table", "action", "value_set")


@dataclass
class Inst:
    """A parser or control instance: where its locals go and, once applied, how its names read."""

    decl: P.Parser | P.Control
    name: str                  # internal prefix in the flattened block: "c1", "c1.d"
    cp: str                    # control-plane prefix p4c gives its objects ("c1", "c1.d"; ".x" is absolute)
    values: dict[str, E.Expr]  # constructor parameters bound to values (constants, extern instances)
    blocks: dict[str, "Inst"]  # constructor parameters bound to parser/control instances
    escaped: bool = False      # passed to another block's constructor: applied from elsewhere
    sites: list[tuple[E.Expr, ...]] = field(default_factory=list)  # apply arguments as written in its holder
    env: "Env | None" = None   # made at the first apply
    modes: dict[str, str] = field(default_factory=dict)  # parameter -> "value", "direct" or "temp"


@dataclass
class Env:
    prefix: str                                 # "" for the top-level block, else "c1."
    cp: str                                     # control-plane prefix ("" at top level)
    values: dict[str, E.Expr] = field(default_factory=dict)      # parameters -> expressions
    names: dict[tuple[str, str], str] = field(default_factory=dict)  # (ref kind, name) -> new name
    blocks: dict[str, Inst] = field(default_factory=dict)       # instance/parameter name -> Inst


class Rewriter:
    """Applies an ``Env`` to code of its block; ``rename_decls`` for inlined (not top-level) code."""

    def __init__(self, env: Env, flattener: Any, rename_decls: bool):
        """``flattener`` (a ``flatten.Flattener``) gives fresh names and inlines apply calls."""
        self.env = env
        self.fl = flattener
        self.rename_decls = rename_decls
        self.scopes: list[dict[str, E.Expr | None]] = [{}]
        self.hoist_scope: dict | None = None  # VarDecls of this scope become block-level variables

    # ---- names and types ---------------------------------------------------------------------------
    def new_name(self, kind: str, name: str) -> str:
        return self.env.names.get((kind, name), name)

    def path(self, e: E.PathExpr) -> E.Expr:
        if e.ref in ("local", "param", "const"):
            for scope in reversed(self.scopes):
                if e.name in scope:
                    repl = scope[e.name]
                    return dataclasses.replace(e, type=self.type(e.type)) if repl is None else \
                        dataclasses.replace(repl, span=e.span)
        if e.ref == "param" and e.name in self.env.values:
            return dataclasses.replace(self.env.values[e.name], span=e.span)
        if e.ref in _LOCAL_KINDS:
            new = self.env.names.get((e.ref, e.name))
            if new is not None:
                return E.PathExpr(new, e.ref, type=self.type(e.type), span=e.span)
        return e

    def type(self, t: T.Type | None) -> Any:
        """``t`` with a renamed table's name in table, apply-result and action_run types."""
        if isinstance(t, (T.Table, T.ApplyResult, T.ActionEnum)):
            name = t.name if isinstance(t, T.Table) else t.table
            new = self.env.names.get(("table", name))
            if new is None:
                return t
            return T.Table(new) if isinstance(t, T.Table) else type(t)(new)
        if isinstance(t, T.Method) and isinstance(t.ret, T.ApplyResult):
            ret = self.type(t.ret)
            return t if ret is t.ret else dataclasses.replace(t, ret=ret)
        return t

    # ---- expressions ------------------------------------------------------------------------------------
    def expr(self, e: E.Expr | None) -> Any:
        if e is None or isinstance(e, (E.Constant, E.BoolLiteral, E.StringLiteral, E.TypeMember)):
            return e
        if isinstance(e, E.PathExpr):
            return self.path(e)
        changes = {}
        for f in dataclasses.fields(e):
            v = getattr(e, f.name)
            if f.name == "type":
                nv = self.type(v)
            elif isinstance(v, E.Expr):
                nv = self.expr(v)
            elif isinstance(v, (E.Argument, E.NamedField)):
                nv = self._item(v)
            elif isinstance(v, tuple) and v and isinstance(v[0], (E.Expr, E.Argument, E.NamedField)):
                nv = tuple(self.expr(x) if isinstance(x, E.Expr) else self._item(x) for x in v)
            else:
                continue
            if nv is not v and nv != v:
                changes[f.name] = nv
        return fold(dataclasses.replace(e, **changes)) if changes else e

    def _item(self, item):
        value = self.expr(item.value)
        return item if value is item.value else dataclasses.replace(item, value=value)

    # ---- statements -----------------------------------------------------------------------------------------
    def push(self, names: dict[str, E.Expr | None] | None = None) -> None:
        self.scopes.append(dict(names or {}))

    def pop(self) -> None:
        self.scopes.pop()

    def block(self, b: S.BlockStmt) -> S.BlockStmt:
        self.push()
        try:
            return dataclasses.replace(b, stmts=tuple(self.stmts(b.stmts)))
        finally:
            self.pop()

    def stmts(self, stmts) -> list[S.Stmt]:
        out: list[S.Stmt] = []
        for s in stmts:
            out += self.stmt(s)
        return out

    def scoped(self, s: S.Stmt) -> S.Stmt:
        if isinstance(s, S.BlockStmt):
            return self.block(s)
        self.push()
        try:
            out = self.stmt(s)
        finally:
            self.pop()
        return out[0] if len(out) == 1 else S.BlockStmt(tuple(out), span=s.span)

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if isinstance(s, S.BlockStmt):
            return [self.block(s)]
        if isinstance(s, S.VarDecl):
            return self.var_decl(s)
        if isinstance(s, S.ConstDecl):
            new = self.declare(s.name, s.value.type)
            return [dataclasses.replace(s, name=new, value=self.expr(s.value))]
        if isinstance(s, S.Assign):
            return [dataclasses.replace(s, lhs=self.expr(s.lhs), rhs=self.expr(s.rhs))]
        if isinstance(s, S.CallStmt):
            target = s.call.target
            if isinstance(target, E.Member) and isinstance(target.expr, E.PathExpr) \
                    and isinstance(target.expr.type, T.Block):
                return self.fl.apply(self, s.call)
            return [dataclasses.replace(s, call=self.expr(s.call))]
        if isinstance(s, S.If):
            other = self.scoped(s.otherwise) if s.otherwise is not None else None
            return [dataclasses.replace(s, cond=self.expr(s.cond), then=self.scoped(s.then), otherwise=other)]
        if isinstance(s, S.Switch):
            cases = []
            for c in s.cases:
                label = c.label
                if isinstance(label, E.PathExpr) and label.ref == "action":
                    label = E.PathExpr(self.new_name("action", label.name), "action", type=self.type(label.type),
                                       span=label.span)
                body = self.block(c.body) if c.body is not None else None
                cases.append(dataclasses.replace(c, label=label, body=body))
            return [dataclasses.replace(s, expr=self.expr(s.expr), cases=tuple(cases))]
        return [s]  # exit, return, empty

    def var_decl(self, s: S.VarDecl) -> list[S.Stmt]:
        init = self.expr(s.init)
        if self.hoist_scope is self.scopes[-1]:
            # A state split around a sub-parser call: its locals must outlive the state.
            new = self.fl.add_variable(self.env.prefix + s.name, s.resolved, s.span)
            self.scopes[-1][s.name] = E.PathExpr(new, "local", type=s.resolved, span=s.span)
            if init is None:
                return []
            return [S.Assign(E.PathExpr(new, "local", type=s.resolved, span=s.span), init, span=s.span)]
        new = self.declare(s.name, s.resolved)
        return [dataclasses.replace(s, name=new, init=init)]

    def declare(self, name: str, t: T.Type | None) -> str:
        """A statement-level declaration in the current scope; inlined code gets a fresh name."""
        if not self.rename_decls:
            self.scopes[-1][name] = None
            return name
        new = self.fl.fresh(self.env.prefix + name)
        self.scopes[-1][name] = E.PathExpr(new, "local", type=t)
        return new
