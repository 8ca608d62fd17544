"""Type checker, part 4: statements in parser states, actions, functions and apply blocks."""
from __future__ import annotations

import dataclasses

from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.lang.check.types import UNKNOWN, is_unknown
from dataplane.lang.scope import Symbol


class StmtMixin:
    """Typing rules for statements; returns typed copies."""

    def check_stmt(self, s: S.Stmt) -> S.Stmt:
        return self.visit(s)

    def check_block(self, b: S.BlockStmt) -> S.BlockStmt:
        outer = self.scope
        self.scope = outer.child()
        try:
            return S.BlockStmt(tuple(self.check_stmt(s) for s in b.stmts), b.annotations, span=b.span)
        finally:
            self.scope = outer

    def visit_BlockStmt(self, s):
        return self.check_block(s)

    def visit_Empty(self, s):
        return s

    def visit_Assign(self, s):
        lhs = self.check_expr(s.lhs)
        self.check_writable(lhs, raw=s.lhs)
        if s.op:
            # p4test keeps `a /= b` unexpanded under @test_keep_opassign, so its mid-end never sees the '/'.
            self.in_kept_compound_assignment = self.keep_opassign
            rhs = self.check_expr(E.Binary(s.op, s.lhs, s.rhs, span=s.span))
            self.in_kept_compound_assignment = False
        else:
            rhs = self.check_expr(s.rhs, lhs.type)
            if _extern_call(rhs):
                self.check_struct_write(lhs, "assigned an extern's result")
        if not is_unknown(lhs.type):
            rhs = self.convert(rhs, lhs.type, "assignment" + _target_name(s.lhs))
        return S.Assign(lhs, rhs, "", span=s.span)

    def visit_CallStmt(self, s):
        if not isinstance(s.call, E.Call):
            self.error("this statement has no effect; only calls can stand alone", s.span, code="no-effect")
            return s
        call = self.check_call(s.call)
        if not isinstance(call, E.Call):   # folded at compile time (static_assert)
            return S.Empty(span=s.span)
        return S.CallStmt(call, span=s.span)

    def visit_If(self, s):
        cond = self.check_bool(s.cond, "an 'if' condition")
        then = self.check_scoped(s.then)
        other = self.check_scoped(s.otherwise) if s.otherwise is not None else None
        return S.If(cond, then, other, span=s.span)

    def check_scoped(self, s: S.Stmt) -> S.Stmt:
        if isinstance(s, S.BlockStmt):
            return self.check_block(s)
        outer = self.scope
        self.scope = outer.child()
        try:
            return self.check_stmt(s)
        finally:
            self.scope = outer

    def visit_Exit(self, s):
        if self.in_context("parser"):
            self.error("'exit' cannot be used in a parser", s.span, code="invalid-context")
        elif self.in_context("function"):
            self.error("'exit' cannot be used in a function", s.span, code="invalid-context")
        return s

    def visit_Return(self, s):
        if self.in_context("parser"):
            self.error("'return' cannot be used in a parser", s.span, code="invalid-context")
            return s
        ret = self.return_type
        if s.value is None:
            if ret is not None and ret != T.VOID:
                self.error(f"this function must return a value of type {ret}", s.span, code="missing-return")
            return s
        if ret is None or ret == T.VOID:
            self.error("'return' with a value outside a function that returns one", s.span, code="invalid-context")
            return s
        value = self.convert(self.check_expr(s.value, ret), ret, "return value")
        if isinstance(ret, T.TypeVar) and not is_unknown(value.type) and value.type != ret:
            self.error(f"type mismatch in return value: expected {ret}, got {value.type}", s.value.span,
                       code="type-mismatch")
        return S.Return(value, span=s.span)

    def visit_Switch(self, s):
        self.switch_subject = s.expr  # the one place '.action_run' may appear
        subject = self.check_expr(s.expr)
        self.switch_subject = None
        st = subject.type
        if s.cases:  # p4c drops a switch without cases before it would need a table
            self.check_switch_target(s.span, isinstance(st, T.ActionEnum))
        cases = []
        seen: set = set()
        if isinstance(st, T.ActionEnum):
            allowed = self.table_actions.get(st.table, set())
            for i, case in enumerate(s.cases):
                label = case.label
                if self._default_case(i, s, case, cases):
                    continue
                if not isinstance(label, E.PathExpr):
                    self.error("a switch on action_run needs action names as labels", label.span, code="switch-label")
                    continue
                if label.name not in allowed:
                    self.error(f"'{label.name}' is not an action of table '{st.table}'", label.span,
                               code="switch-label")
                if label.name in seen:
                    self.error(f"duplicate switch label '{label.name}'", label.span, code="duplicate")
                seen.add(label.name)
                cases.append(S.SwitchCase(E.PathExpr(label.name, "action", type=st, span=label.span),
                                          self._case_body(case), span=case.span))
            return S.Switch(subject, tuple(cases), span=s.span)
        if not is_unknown(st) and not isinstance(T.strip_newtype(st), (T.Bits, T.Enum, T.ErrorType)):
            self.error(f"cannot switch on a value of type {st}", s.expr.span, code="operand-type")
            st = UNKNOWN
        for i, case in enumerate(s.cases):
            label = case.label
            if self._default_case(i, s, case, cases):
                continue
            value = self.check_expr(label, st)
            if not is_unknown(st):
                value = self.convert(value, st, "switch label")
                if not isinstance(value, (E.Constant, E.TypeMember)):
                    self.error("switch labels must be compile-time constants", label.span, code="not-constant")
                key = getattr(value, "value", None) if isinstance(value, E.Constant) else getattr(value, "member", None)
                if key in seen:
                    self.error("duplicate switch label", label.span, code="duplicate")
                seen.add(key)
            cases.append(S.SwitchCase(value, self._case_body(case), span=case.span))
        return S.Switch(subject, tuple(cases), span=s.span)

    def _default_case(self, i: int, s: S.Switch, case: S.SwitchCase, cases: list) -> bool:
        """Take a ``default:`` case (it must come last); False for any other label."""
        if not isinstance(case.label, E.DefaultKeyset):
            return False
        if i != len(s.cases) - 1:
            self.error("'default' must be the last switch label", case.label.span, code="switch-label")
        cases.append(S.SwitchCase(case.label, self._case_body(case), span=case.span))
        return True

    def _case_body(self, case: S.SwitchCase):
        return self.check_block(case.body) if case.body is not None else None

    # ---- loops (spec 1.2.5 "for statements") ------------------------------------------------------
    def visit_For(self, s):
        outer = self.scope
        self.scope = outer.child()
        try:
            init = tuple(self._loop_clause(x) for x in s.init)
            cond = self.check_bool(s.cond, "a 'for' condition") if s.cond is not None else None
            updates = tuple(self._loop_clause(x) for x in s.updates)
            with self.context("loop"):
                body = self.check_scoped(s.body)
        finally:
            self.scope = outer
        return S.For(init, cond, updates, body, s.annotations, span=s.span)

    def _loop_clause(self, s: S.Stmt) -> S.Stmt:
        if isinstance(s, S.CallStmt) and not isinstance(s.call, E.Call):
            self.error("this has no effect; a 'for' clause must be an assignment, a call or a declaration", s.span,
                       code="no-effect")
            return S.Empty(span=s.span)
        return self.check_stmt(s)

    def visit_ForIn(self, s):
        outer = self.scope
        self.scope = outer.child()
        try:
            t = self.resolve(s.var.type_ref)
            collection = self._loop_collection(s.collection, t, s.var.name)
            self.declare_value(Symbol(s.var.name, "local", t, span=s.var.span))
            var = S.VarDecl(s.var.type_ref, s.var.name, None, s.var.annotations, t, span=s.var.span)
            with self.context("loop"):
                body = self.check_scoped(s.body)
        finally:
            self.scope = outer
        return S.ForIn(var, collection, body, s.annotations, span=s.span)

    def _loop_collection(self, c: E.Expr, t: T.Type, name: str) -> E.Expr:
        """A range converted to the loop variable's type, or a stack or list of its element type."""
        if isinstance(c, E.Range):
            lo = self.convert(self.check_expr(c.lo, t), t, f"start of the range of '{name}'")
            hi = self.convert(self.check_expr(c.hi, t), t, f"end of the range of '{name}'")
            if not is_unknown(t) and not isinstance(T.strip_newtype(t), T.Bits):
                self.error(f"a range loop needs a bit<W> or int<W> variable, not {t}", c.span, code="invalid-type")
            return E.Range(lo, hi, type=t, span=c.span)
        checked = self.check_expr(c)
        ct = T.strip_newtype(checked.type) if checked.type is not None else UNKNOWN
        if is_unknown(ct, t):
            return checked
        if isinstance(checked, E.ListExpr):
            elements = tuple(self.convert(x, t, f"element of the list of '{name}'") for x in checked.elements)
            return E.ListExpr(elements, type=T.Tuple((t,) * len(elements)), span=checked.span)
        if isinstance(ct, T.Stack):
            elements = (ct.element,)
        elif isinstance(ct, T.Tuple):
            elements = ct.elements
        else:
            self.error(f"a 'for ... in' loop iterates over a range (a .. b), a header stack or a list, not {ct}",
                       c.span, code="invalid-type")
            return checked
        if any(e != t for e in elements):
            self.error(f"loop variable '{name}' has type {t}, but the elements are {ct}", c.span, code="type-mismatch")
        return checked

    def visit_Break(self, s):
        if not self.in_context("loop"):
            self.error("'break' can only be used inside a 'for' loop", s.span, code="invalid-context")
        return s

    def visit_Continue(self, s):
        if not self.in_context("loop"):
            self.error("'continue' can only be used inside a 'for' loop", s.span, code="invalid-context")
        return s

    def visit_VarDecl(self, s):
        t = self.resolve(s.type_ref)
        init = None
        if s.init is not None:
            init = self.convert(self.check_expr(s.init, t), t, f"initializer of '{s.name}'")
        if isinstance(t, (T.Extern, T.Block)) and not is_unknown(t):
            self.error(f"'{s.name}': {t} cannot be a variable; instantiate it with {t}(...) {s.name};", s.span,
                       code="invalid-type")
        else:
            self.check_value_type(t, f"variable '{s.name}'", s.span)
        self.declare_value(Symbol(s.name, "local", t, span=s.span))
        return S.VarDecl(s.type_ref, s.name, init, s.annotations, t, span=s.span)

    def visit_ConstDecl(self, s):
        t = self.resolve(s.type_ref)
        raw = self.check_expr(s.value, t)
        value = self.convert(raw, t, f"constant '{s.name}'")
        self.check_v1model_version(s.name, raw, s.value.span)
        if not is_unknown(value.type) and not _is_constant(value):
            self.error(f"the value of constant '{s.name}' must be known at compile time", s.value.span,
                       code="not-constant")
        self.declare_value(Symbol(s.name, "const", t, value=value, span=s.span))
        return S.ConstDecl(s.type_ref, s.name, value, s.annotations, span=s.span)


def _is_constant(e: E.Expr) -> bool:
    if isinstance(e, (E.Constant, E.BoolLiteral, E.StringLiteral, E.TypeMember, E.InvalidHeader)):
        return True
    if isinstance(e, E.ListExpr):
        return all(_is_constant(x) for x in e.elements)
    if isinstance(e, E.StructInit):
        return all(_is_constant(f.value) for f in e.fields)
    if isinstance(e, E.Cast):
        return _is_constant(e.expr)
    return False


def _extern_call(e: E.Expr) -> bool:
    """A call of an extern function or an extern object's method (p4c inlines every other call).

    ``packet_in.lookahead`` does not count: p4c's mid-end reads a struct from it field by field.
    """
    if not isinstance(e, E.Call):
        return False
    t = e.target
    if isinstance(t, E.PathExpr):
        return t.ref == "extern_function"
    return (isinstance(t, E.Member) and isinstance(t.expr.type, T.Extern)
            and (t.expr.type.name, t.member) != ("packet_in", "lookahead"))


def _target_name(e: E.Expr) -> str:
    parts = []
    while isinstance(e, E.Member):
        parts.append(e.member)
        e = e.expr
    if isinstance(e, E.PathExpr):
        parts.append(e.name)
        return " to '" + ".".join(reversed(parts)) + "'"
    return ""


__all__ = ["StmtMixin", "dataclasses"]
