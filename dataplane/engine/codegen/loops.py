"""``for`` loops, ``break`` and ``continue`` as Python loops (a mixin of ``StmtGen``).

A three-clause loop becomes ``while True`` with the condition tested at the top and the
updates run at the top of every pass but the first, so that ``continue`` (Python's own)
still runs the updates. A ``for ... in`` loop over a range evaluates both ends once,
before the first pass; over a header stack the variable is a copy of each element in turn
(P4 variables have value semantics), so writing it does not change the stack.
"""
from __future__ import annotations

from dataplane.engine.codegen.expr import is_scalar
from dataplane.engine.structgen import default_value
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir import types as T


class LoopGen:
    """Needs ``emit``, ``temp``, ``expr``, ``names``, ``block``, ``stmt`` and ``indent`` from StmtGen."""

    def visit_For(self, s: S.For) -> None:
        self.names.push()
        for clause in s.init:
            self.stmt(clause)
        first = self.temp() if s.updates else None
        if first:
            self.emit(f"{first} = True")
        self.emit("while True:")
        self.indent += 1
        if first:
            self.emit(f"if {first}:")
            self.emit(f"    {first} = False")
            self.emit("else:")
            self.indent += 1
            for clause in s.updates:
                self.stmt(clause)
            self.indent -= 1
        if s.cond is not None:
            self.emit(f"if not ({self.expr(s.cond)}):")
            self.emit("    break")
        self.block(_stmts(s.body))
        self.indent -= 1
        self.names.pop()

    def visit_ForIn(self, s: S.ForIn) -> None:
        self.names.push()
        t = s.var.resolved
        coll = s.collection
        item = self.temp()
        if isinstance(coll, E.Range):
            lo, hi = self.temp(), self.temp()
            self.emit(f"{lo} = {self.expr(coll.lo)}")
            self.emit(f"{hi} = {self.expr(coll.hi)}")
            source = f"range({lo}, {hi} + 1)"
        elif isinstance(coll, E.ListExpr):
            source = "(" + "".join(f"{self.expr(x)}, " for x in coll.elements) + ")"
        elif isinstance(T.strip_newtype(coll.type), T.Stack):
            source = f"{self.expr(coll)}.elems"
        else:
            source = self.expr(coll)
        py = self.names.fresh(s.var.name)
        self.emit(f"for {item} in {source}:")
        self.indent += 1
        if is_scalar(t):
            self.emit(f"{py} = {item}")
        else:
            self.emit(f"{py} = {default_value(t)}")
            self.emit(f"{py}.copy_from({item})")
        self.block(_stmts(s.body))
        self.indent -= 1
        self.names.pop()

    def visit_Break(self, s: S.Break) -> None:
        self.emit("break")

    def visit_Continue(self, s: S.Continue) -> None:
        self.emit("continue")


def _stmts(body: S.Stmt) -> tuple[S.Stmt, ...]:
    return body.stmts if isinstance(body, S.BlockStmt) else (body,)
