"""Statements that index a header stack with a value known only at run time, as BMv2 runs them.

p4c's midend for BMv2 (``HSIndexSimplify``) evaluates such an index once, before the
statement, and turns the statement into one branch per element; an index out of range
(a negative ``int<W>`` one too) takes none of them. So, outside parsers:

- an assignment to an element out of range does nothing;
- an assignment reading an element out of range stores the uninitialized value of its
  target instead (0, or an invalid header);
- an ``if`` whose condition reads an element out of range takes its ``else`` branch;
- a call or ``switch`` that reads an element out of range is skipped.

In range, the element is indexed directly. Anywhere else (parsers, nested expressions
this does not reach), ``HeaderStack.at`` gives an out-of-range read an uninitialized
element that nothing keeps. A mixin of ``StmtGen``.
"""
from __future__ import annotations

from dataplane.engine.codegen.values import is_object
from dataplane.engine.structgen import default_value
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.ir.node import walk


class RuntimeIndexGen:
    """Needs ``emit``, ``located``, ``temp``, ``expr``, ``indent``, ``store``, ``names`` and the
    ``visit_*`` methods (``Visitor``)."""

    guard_indices = True   # False while generating a parser's states

    def stmt(self, s: S.Stmt) -> None:
        saved = self.located(s.span)   # each line of the statement names its P4 position
        if not (self.guard_indices and isinstance(s, _GUARDED) and self.guarded(s)):
            self.visit(s)
        self.at = saved

    def guarded(self, s: S.Stmt) -> bool:
        """Emit ``s`` behind its run-time index checks; False if it reads no run-time index."""
        if isinstance(s, S.Assign):
            lhs, rhs = _runtime_indices(s.lhs), _runtime_indices(s.rhs)
            if not lhs and not rhs:
                return False
            bound: list = []
            outer = self.hoist(lhs, bound)
            if isinstance(s.rhs, E.Binary) and s.rhs.left == s.lhs:
                # A compound assignment reads the element it writes: the same evaluated index.
                again = _runtime_indices(s.rhs.left)
                for mine, theirs in zip(again, lhs):
                    self.expr.bound.append((mine, self.expr(theirs)))
                    bound.append(mine)
                rhs = [n for n in rhs if not any(n is m for m in again)]
            if outer:
                self.emit(f"if {outer}:")
                self.indent += 1
            inner = self.hoist(rhs, bound)
            if inner:
                self.emit(f"if {inner}:")
                self.indent += 1
            self.visit_Assign(s)
            if inner:
                self.indent -= 1
                self.emit("else:")
                self.indent += 1
                self.assign_uninitialized(s.lhs)
                self.indent -= 1
            if outer:
                self.indent -= 1
            self.unbind(bound)
            return True
        if isinstance(s, S.VarDecl):
            found = _runtime_indices(s.init) if s.init is not None else []
            if not found:
                return False
            bound = []
            guard = self.hoist(found, bound)
            t = self.type_of_decl(s)
            py = self.names.fresh(s.name)
            self.emit(f"{py} = {default_value(t)}")
            self.emit(f"if {guard}:")
            self.indent += 1
            self.assign_to(py, t, s.init)
            self.indent -= 1
            self.unbind(bound)
            return True
        expr = {S.CallStmt: lambda: s.call, S.If: lambda: s.cond, S.Switch: lambda: s.expr}[type(s)]()
        found = _runtime_indices(expr)
        if not found:
            return False
        bound = []
        guard = self.hoist(found, bound)
        if isinstance(s, S.If):
            self.visit_If(s, guard)
        else:
            self.emit(f"if {guard}:")
            self.indent += 1
            self.visit(s)
            self.indent -= 1
        self.unbind(bound)
        return True

    def hoist(self, indices: list[E.Index], bound: list) -> str:
        """Evaluate each index once into a temporary, bind its element to direct indexing, and
        return the test that every index is in range ('' for none)."""
        tests = []
        for n in reversed(indices):   # inner indices (inside another's index) first
            tmp = self.temp()
            self.emit(f"{tmp} = {self.expr(n.index)}")
            size = T.strip_newtype(n.expr.type).size
            it = T.strip_newtype(n.index.type)
            unsigned = isinstance(it, T.Bits) and not it.signed
            tests.append(f"{tmp} < {size}" if unsigned else f"0 <= {tmp} < {size}")
            self.expr.bound.append((n, f"{self.expr(n.expr)}.elems[{tmp}]"))
            bound.append(n)
        return " and ".join(tests)

    def assign_uninitialized(self, lhs: E.Expr) -> None:
        """``lhs = v`` for a ``v`` of ``lhs``'s type that nothing ever wrote (0, false, invalid)."""
        t = lhs.type
        if is_object(t):
            self.emit(f"{self.expr(lhs)}.copy_from({default_value(t)})")
        else:
            self.store(lhs, default_value(t))


_GUARDED = (S.Assign, S.CallStmt, S.If, S.Switch, S.VarDecl)


def _runtime_indices(e: E.Expr | None) -> list[E.Index]:
    """The stack indexings in ``e`` whose index is not a constant, outermost first."""
    if e is None:
        return []
    return [n for n in walk(e) if isinstance(n, E.Index) and not isinstance(n.index, E.Constant)
            and isinstance(T.strip_newtype(n.expr.type), T.Stack)]
