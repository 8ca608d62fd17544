"""Expressions as column arithmetic: each compiles to ``fn(st, act)`` giving a column or a scalar.

``bit<W>`` values are ``uint64`` columns kept within W bits (results are masked as the
per-packet engine masks them); ``bool`` values are ``bool`` columns. ``act`` is the mask of
packets the expression is evaluated for; only calls with side effects (a table's
``apply()``) look at it, everything else is computed for every packet.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from dataplane.engine.batch.refuse import refuse
from dataplane.engine.batch.values import U64, as_signed, is_signed, mask, scalar_width
from dataplane.ir import expr as E
from dataplane.ir import types as T

Fn = Callable[..., object]


def _const(v) -> Fn:
    return lambda st, act: v


def _shl(a, s, w):
    m = U64(mask(w))
    return np.where(s >= w, U64(0), (a << np.minimum(s, U64(63))) & m)


def _shr(a, s, w):
    return np.where(s >= w, U64(0), a >> np.minimum(s, U64(63)))


class ExprMixin:
    """Expression compilation for ``BlockCompiler``: uses ``scope``, ``program`` and ``call_expr``."""

    def width(self, e: E.Expr) -> int | None:
        return scalar_width(e.type, e)

    def expr(self, e: E.Expr) -> Fn:
        return self.visit(e)   # ir.node.Visitor: visit_<ClassName>; BlockCompiler refuses the rest

    # ---- leaves ------------------------------------------------------------------------------
    def visit_Constant(self, e: E.Constant) -> Fn:
        t = T.strip_newtype(e.type) if e.type is not None else None
        v = e.value
        if isinstance(t, T.Bits):
            if t.width > 64:
                refuse(e, f"bit<{t.width}> constant wider than 64 bits")
            v &= mask(t.width)
        elif v < 0 or v >> 64:
            refuse(e, f"integer constant {v} outside 0..2**64-1")
        return _const(U64(v))

    def visit_BoolLiteral(self, e: E.BoolLiteral) -> Fn:
        return _const(np.bool_(e.value))

    def visit_TypeMember(self, e: E.TypeMember) -> Fn:
        if e.type_name == "error":
            return _const(U64(self.program.errors.index(e.member)))
        t = self.program.types.get(e.type_name)
        if isinstance(t, T.Enum):
            i = t.members.index(e.member)
            return _const(U64(t.values[i] if t.values is not None else i))
        refuse(e, f"type member {e.type_name}.{e.member}")

    def path_of(self, e: E.Expr) -> str:
        """The column path (or path prefix, for a header or struct) an l-value or r-value names."""
        if isinstance(e, E.PathExpr):
            p = self.scope.get(e.name)
            if p is None:
                refuse(e, f"name '{e.name}' ({e.ref or 'unresolved'})")
            return p
        if isinstance(e, E.Member) and e.expr is not None:
            bt = T.strip_newtype(e.expr.type)
            if isinstance(bt, T.StructLike):
                return f"{self.path_of(e.expr)}.{e.member}"
        if isinstance(e, E.Index):
            refuse(e, "header stack index")
        refuse(e, f"reference {type(e).__name__}")

    def visit_PathExpr(self, e: E.PathExpr) -> Fn:
        if e.name not in self.scope:
            c = self.program.constants.get(e.name)
            if c is not None:
                return self.expr(c.value)
        return self.column(e)

    def column(self, e: E.Expr) -> Fn:
        t = T.strip_newtype(e.type)
        if isinstance(t, T.StructLike):
            refuse(e, f"a {type(t).__name__.lower()} used as a value")
        self.width(e)
        path = self.path_of(e)
        return lambda st, act: st.cols[path]

    def visit_Member(self, e: E.Member) -> Fn:
        bt = T.strip_newtype(e.expr.type) if e.expr is not None else None
        if isinstance(bt, T.ApplyResult) or (isinstance(e.expr, E.Call) and isinstance(e.expr.target, E.Member)
                                              and e.expr.target.member == "apply"):
            return self.apply_result(e)
        if isinstance(bt, T.Stack):
            refuse(e, f"header stack member '{e.member}'")
        return self.column(e)

    # ---- operators -----------------------------------------------------------------------------
    def visit_Unary(self, e: E.Unary) -> Fn:
        a = self.expr(e.operand)
        if e.op == "!":
            return lambda st, act: np.logical_not(a(st, act))
        if e.op == "+":
            return a
        w = self.width(e)
        m = U64(mask(w))
        if e.op == "~":
            return lambda st, act: ~a(st, act) & m
        if e.op == "-":
            return lambda st, act: (U64(0) - a(st, act)) & m
        refuse(e, f"unary operator {e.op}")

    def visit_Binary(self, e: E.Binary) -> Fn:
        op = e.op
        if op in ("&&", "||"):
            a, b = self.expr(e.left), self.expr(e.right)
            if op == "&&":
                # The right side runs (for side effects) only where the left is true.
                return lambda st, act: np.logical_and(a(st, act), b(st, act & a(st, act)))
            return lambda st, act: np.logical_or(a(st, act), b(st, act & ~a(st, act)))
        a, b = self.expr(e.left), self.expr(e.right)
        if op in ("==", "!="):
            if isinstance(T.strip_newtype(e.left.type), T.StructLike):
                refuse(e, "comparison of headers or structs")
            f = np.equal if op == "==" else np.not_equal
            return lambda st, act: f(a(st, act), b(st, act))
        if op in ("<", ">", "<=", ">="):
            f = {"<": np.less, ">": np.greater, "<=": np.less_equal, ">=": np.greater_equal}[op]
            wl = self.width(e.left)
            if is_signed(e.left.type):
                # Flipping the sign bit maps two's-complement order onto unsigned order.
                sb = U64(1 << (wl - 1))
                return lambda st, act: f(a(st, act) ^ sb, b(st, act) ^ sb)
            return lambda st, act: f(a(st, act), b(st, act))
        w = self.width(e)
        m = U64(mask(w))
        signed = is_signed(e.type)
        if signed and op in ("/", "%"):
            refuse(e, f"signed operator {op}")
        if signed and op == ">>":
            def sar(st, act):
                s = np.minimum(np.asarray(b(st, act), dtype=U64), U64(63)).astype(np.int64)
                return (as_signed(a(st, act), w) >> s).view(U64) & m
            return sar
        if signed and op in ("|+|", "|-|"):
            if w == 64:
                refuse(e, "saturating arithmetic on int<64>")
            lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1

            def sat(st, act):
                x, y = as_signed(a(st, act), w), as_signed(b(st, act), w)
                r = np.clip(x + y if op == "|+|" else x - y, lo, hi)
                return r.view(U64) & m
            return sat
        if op == "++":
            wb = self.width(e.right)
            sh = U64(wb)
            return lambda st, act: (a(st, act) << sh) | b(st, act)
        if op == "+":
            return lambda st, act: (a(st, act) + b(st, act)) & m
        if op == "-":
            return lambda st, act: (a(st, act) - b(st, act)) & m
        if op == "*":
            return lambda st, act: (a(st, act) * b(st, act)) & m
        if op == "&":
            return lambda st, act: a(st, act) & b(st, act)
        if op == "|":
            return lambda st, act: a(st, act) | b(st, act)
        if op == "^":
            return lambda st, act: a(st, act) ^ b(st, act)
        if op == "<<":
            return lambda st, act: _shl(a(st, act), b(st, act), w)
        if op == ">>":
            return lambda st, act: _shr(a(st, act), b(st, act), w)
        if op == "|+|":
            def sat_add(st, act):
                x, y = a(st, act), b(st, act)
                s = x + y
                return np.where((s < x) | (s > m), m, s)
            return sat_add
        if op == "|-|":
            def sat_sub(st, act):
                x, y = a(st, act), b(st, act)
                return np.where(x < y, U64(0), x - y)
            return sat_sub
        if op in ("/", "%"):
            if not isinstance(e.right, E.Constant) or e.right.value <= 0:
                refuse(e, f"operator {op} by a run-time value")
            if op == "/":
                return lambda st, act: a(st, act) // b(st, act)
            return lambda st, act: a(st, act) % b(st, act)
        refuse(e, f"operator {op}")

    def visit_Mux(self, e: E.Mux) -> Fn:
        c, t, o = self.expr(e.cond), self.expr(e.then), self.expr(e.otherwise)

        def mux(st, act):
            cv = c(st, act)
            # Each branch runs (for its side effects: calls) only for the packets that take it.
            yes = cv if act is None else act & cv
            no = ~cv if act is None else act & ~cv
            return np.where(cv, t(st, yes), o(st, no))
        return mux

    def visit_Cast(self, e: E.Cast) -> Fn:
        a = self.expr(e.expr)
        to = T.strip_newtype(e.type)
        frm = T.strip_newtype(e.expr.type)
        if isinstance(to, T.Bool):
            if isinstance(frm, T.Bool):
                return a
            return lambda st, act: np.not_equal(a(st, act), U64(0))
        w = self.width(e)
        if isinstance(frm, T.Bool):
            return lambda st, act: np.asarray(a(st, act)).astype(U64)
        if isinstance(frm, T.InfInt):
            return a
        m = U64(mask(w))
        if is_signed(frm) and w > frm.width:
            wf = frm.width    # a wider result sign-extends
            return lambda st, act: as_signed(a(st, act), wf).view(U64) & m
        return lambda st, act: a(st, act) & m

    def visit_Slice(self, e: E.Slice) -> Fn:
        a = self.expr(e.expr)
        if not (isinstance(e.hi, E.Constant) and isinstance(e.lo, E.Constant)):
            refuse(e, "slice with run-time bounds")
        self.width(e.expr)
        lo, m = U64(e.lo.value), U64(mask(e.hi.value - e.lo.value + 1))
        return lambda st, act: (a(st, act) >> lo) & m

    def visit_Call(self, e: E.Call) -> Fn:
        return self.call_expr(e)
