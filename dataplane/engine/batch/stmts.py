"""Statements as masked assignments: each compiles to ``fn(st, act)`` that changes the columns
of the packets in ``act`` only.

``if`` splits the mask; ``switch`` compares a column with each label; ``exit`` (and, in a
parser, an error) records packets in ``st.exited``, which every later statement of the
block leaves out.
"""
from __future__ import annotations

import itertools

import numpy as np

from dataplane.engine.batch.refuse import refuse
from dataplane.engine.batch.values import U64, leaves, mask, zeros
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir import types as T

_fresh = itertools.count()


def _nothing(st, act) -> None:
    return None


class StmtMixin:
    """Statement compilation for ``BlockCompiler``."""

    def block(self, stmts) -> object:
        fns = [self.stmt(s) for s in stmts]
        fns = [f for f in fns if f is not _nothing]
        if not fns:
            return _nothing
        if len(fns) == 1:
            return fns[0]

        def run(st, act):
            for f in fns:
                if st.exited is not None:
                    act = act & ~st.exited
                if st.returned is not None:
                    act = act & ~st.returned
                f(st, act)
        return run

    def stmt(self, s: S.Stmt):
        return self.visit(s)   # ir.node.Visitor: visit_<ClassName>; BlockCompiler refuses the rest

    def visit_BlockStmt(self, s: S.BlockStmt):
        saved = dict(self.scope)
        try:
            return self.block(s.stmts)
        finally:
            self.scope = saved

    def visit_Empty(self, s):
        return _nothing

    def visit_Exit(self, s):
        if getattr(self, "in_callable", False) and self.control is None:
            refuse(s, "exit in a function")
        def run(st, act):
            st.exited = act.copy() if st.exited is None else (st.exited | act)
        return run

    def visit_Return(self, s):
        if not getattr(self, "in_callable", False):
            refuse(s, "return statement in a control's apply block")
        value = self.expr(s.value) if s.value is not None else None

        def run(st, act):
            if value is not None:
                st.retval = np.where(act, value(st, act), st.retval)
            st.returned = act.copy() if st.returned is None else (st.returned | act)
        return run

    def visit_CallStmt(self, s: S.CallStmt):
        return self.call_stmt(s.call)

    def visit_If(self, s: S.If):
        cond = self.expr(s.cond)
        then = self.stmt(s.then)
        other = self.stmt(s.otherwise) if s.otherwise is not None else _nothing

        def run(st, act):
            c = cond(st, act)
            yes = act & c
            no = act & ~yes
            if yes.any():
                then(st, yes)
            if other is not _nothing and no.any():
                other(st, no)
        return run

    def visit_Switch(self, s: S.Switch):
        value, labels_of = self.switch_value(s.expr)
        cases = []   # (label values or None for default, body fn)
        pending: list = []
        for case in s.cases:
            if isinstance(case.label, E.DefaultKeyset):
                pending.append(None)
            else:
                pending.append(labels_of(case.label))
            if case.body is not None:
                cases.append((pending, self.stmt(case.body)))
                pending = []

        def run(st, act):
            v = value(st, act)
            left = act.copy()
            for labels, body in cases:
                if None in labels:
                    rows = left
                else:
                    rows = np.zeros_like(left)
                    for lab in labels:
                        rows |= left & (v == lab)
                left = left & ~rows
                if rows.any():
                    body(st, rows)
        return run

    def switch_value(self, e: E.Expr):
        if isinstance(e, E.Member) and e.member == "action_run":
            fn, table_actions = self.action_run(e)
            return fn, lambda label: U64(table_actions.index(label.name))
        fn = self.expr(e)
        return fn, lambda label: self.expr(label)(None, None)

    def visit_VarDecl(self, s: S.VarDecl):
        t = s.resolved
        path = f"L{next(_fresh)}.{s.name}"
        cols = leaves(t, path, s)
        init = self.assigner(path, t, s.init, s) if s.init is not None else None
        self.scope[s.name] = path

        def run(st, act):
            for p, lt in cols:
                st.cols[p] = zeros(lt, st.n)
            if init is not None:
                init(st, act)
        return run

    def visit_ConstDecl(self, s: S.ConstDecl):
        t = s.value.type
        path = f"L{next(_fresh)}.{s.name}"
        cols = leaves(t, path, s)
        init = self.assigner(path, t, s.value, s)
        self.scope[s.name] = path

        def run(st, act):
            for p, lt in cols:
                st.cols[p] = zeros(lt, st.n)
            init(st, act)
        return run

    def visit_Assign(self, s: S.Assign):
        if s.op:
            refuse(s, f"compound assignment {s.op}=")
        lhs = s.lhs
        if isinstance(lhs, E.DontCareExpr):
            return _nothing
        if isinstance(lhs, E.Slice):
            if not (isinstance(lhs.hi, E.Constant) and isinstance(lhs.lo, E.Constant)):
                refuse(s, "assignment to a slice with run-time bounds")
            path = self.path_of(lhs.expr)
            self.width(lhs.expr)
            lo = lhs.lo.value
            m = mask(lhs.hi.value - lo + 1)
            keep, m_, lo_ = U64(mask(64) ^ (m << lo)), U64(m), U64(lo)
            value = self.expr(s.rhs)

            def run_slice(st, act):
                old = st.cols[path]
                st.cols[path] = np.where(act, (old & keep) | ((value(st, act) & m_) << lo_), old)
            return run_slice
        return self.assigner(self.path_of(lhs), lhs.type, s.rhs, s)

    def assigner(self, path: str, t: T.Type, rhs: E.Expr, node):
        """A function storing ``rhs`` (of type ``t``) into the columns at ``path``, under the mask."""
        st_t = T.strip_newtype(t)
        if not isinstance(st_t, T.StructLike):
            value = self.expr(rhs)

            def run(st, act):
                v = value(st, act)
                # All packets: the value itself (.all() stops at the first False, so it is cheap).
                if act.all() and isinstance(v, np.ndarray) and v.shape == (st.n,):
                    st.cols[path] = v
                else:
                    st.cols[path] = np.where(act, v, st.cols[path])
            return run
        if isinstance(rhs, E.InvalidHeader) and isinstance(st_t, T.Header):
            def run_invalid(st, act):
                st.cols[path + ".$valid"] = st.cols[path + ".$valid"] & ~act
            return run_invalid
        if isinstance(rhs, E.StructInit) and not rhs.has_rest:
            parts = [self.assigner(f"{path}.{f.name}", st_t.get_field(f.name).type, f.value, node)
                     for f in rhs.fields]
            valid = path + ".$valid" if isinstance(st_t, T.Header) else None

            def run_init(st, act):
                for p in parts:
                    p(st, act)
                if valid is not None:
                    st.cols[valid] = st.cols[valid] | act
            return run_init
        if isinstance(rhs, (E.PathExpr, E.Member)):
            src = self.path_of(rhs)
            names = [p[len(path):] for p, _ in leaves(t, path, node)]

            def run_copy(st, act):
                cols = st.cols
                for suffix in names:
                    cols[path + suffix] = np.where(act, cols[src + suffix], cols[path + suffix])
            return run_copy
        refuse(node, f"assignment of {type(rhs).__name__} to a {type(st_t).__name__.lower()}")
