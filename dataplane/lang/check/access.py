"""Type checker, part 2b: member access, indexing and slicing (``h.f``, ``s[i]``, ``t[1]``,
``x[hi:lo]``, ``x[lo +: w]``), with header, stack, table and extern members."""
from __future__ import annotations

import dataclasses
import difflib

from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.lang.check.types import UNKNOWN, is_unknown
from dataplane.lang.consteval import slice_bits
from dataplane.lang.limits import MAX_WIDTH, too_wide
from dataplane.lang.literals import wrap

_HEADER_METHODS = {"isValid": T.BOOL, "setValid": T.VOID, "setInvalid": T.VOID}


def _typed(e: E.Expr, t: T.Type) -> E.Expr:
    return dataclasses.replace(e, type=t)


def _const(value: int, t: T.Type, span) -> E.Constant:
    if isinstance(t, T.Bits):
        value = wrap(value, t.width, t.signed)
    return E.Constant(value, type=t, span=span)



# Members of a header stack that an array of other values does not have (p4c's arrays).
_STACK_ONLY = ("next", "last", "lastIndex", "push_front", "pop_front")

class AccessMixin:
    """Needs ``check_expr``, ``const_int``, ``error`` and the checker's state."""

    def visit_Member(self, e, expected):
        base = self.check_expr(e.expr)
        bt = T.strip_newtype(base.type) if base.type is not None else None
        out = E.Member(base, e.member, span=e.span)
        if is_unknown(bt):
            return _typed(out, UNKNOWN)
        if isinstance(bt, T.StructLike):
            f = bt.get_field(e.member)
            if f is not None:
                return _typed(out, f.type)
            if bt.kind != "struct" and e.member in _HEADER_METHODS:
                return _typed(out, T.Method(e.member, (), _HEADER_METHODS[e.member]))
            if e.member in ("minSizeInBits", "minSizeInBytes"):
                return _typed(out, T.Method(e.member, (), T.INT))
            hint = difflib.get_close_matches(e.member, [f.name for f in bt.fields], n=1)
            self.error(f"{bt.kind} '{bt.name}' has no field '{e.member}'" + (f"; did you mean '{hint[0]}'?" if hint else ""),
                       e.span, code="unknown-member")
            return _typed(out, UNKNOWN)
        if isinstance(bt, T.Stack):
            if e.member in _STACK_ONLY and not isinstance(bt.element, (T.Header, T.HeaderUnion)):
                self.error(f"'.{e.member}' is for header stacks, not an array of {bt.element}", e.span,
                           code="unknown-member")
                return _typed(out, UNKNOWN)
            if e.member in ("next", "last"):
                if not self.in_context("parser"):
                    self.error(f"header stack '.{e.member}' can only be used in a parser", e.span,
                               code="invalid-context")
                return _typed(out, bt.element)
            if e.member == "lastIndex" and not self.in_context("parser"):
                self.error("header stack '.lastIndex' can only be used in a parser", e.span, code="invalid-context")
            if e.member in ("size", "lastIndex"):
                return _typed(out, T.Bits(32))
            if e.member in ("push_front", "pop_front"):
                return _typed(out, T.Method(e.member, (T.Param("in", T.INT, "count"),)))
            self.error(f"header stack has no member '{e.member}'", e.span, code="unknown-member")
            return _typed(out, UNKNOWN)
        if isinstance(bt, T.Extern):
            methods = [m for m in bt.methods if m.name == e.member]
            if not methods:
                self.error(f"extern '{bt.name}' has no method '{e.member}'", e.span, code="unknown-member")
                return _typed(out, UNKNOWN)
            return _typed(out, methods[0])
        if isinstance(bt, T.Table):
            if e.member != "apply":
                self.error(f"table '{bt.name}' has no member '{e.member}' (tables only have apply())", e.span,
                           code="unknown-member")
                return _typed(out, UNKNOWN)
            return _typed(out, T.Method("apply", (), T.ApplyResult(bt.name)))
        if isinstance(bt, T.ApplyResult):
            if e.member in ("hit", "miss"):
                return _typed(out, T.BOOL)
            if e.member == "action_run":
                if e is not self.switch_subject:
                    self.error("'.action_run' can only be the expression of a switch statement", e.span,
                               code="invalid-context")
                    return _typed(out, UNKNOWN)
                return _typed(out, T.ActionEnum(bt.table))
            self.error(f"the result of apply() has no member '{e.member}' (use hit, miss or action_run)", e.span,
                       code="unknown-member")
            return _typed(out, UNKNOWN)
        if isinstance(bt, T.Block) and e.member == "apply":
            return _typed(out, T.Method("apply", bt.params))
        self.error(f"a value of type {bt} has no member '{e.member}'", e.span, code="unknown-member")
        return _typed(out, UNKNOWN)

    def visit_Index(self, e, expected):
        base = self.check_expr(e.expr)
        index = self.check_expr(e.index)
        out = E.Index(base, index, span=e.span)
        if is_unknown(base.type, index.type):
            return _typed(out, UNKNOWN)
        if isinstance(base.type, T.Tuple):
            return self._tuple_element(base, index, e)
        if not isinstance(base.type, T.Stack):
            self.error(f"only header stacks and tuples can be indexed, not {base.type}", e.span, code="operand-type")
            return _typed(out, UNKNOWN)
        if isinstance(index, E.Constant):
            if not 0 <= index.value < base.type.size:
                self.error(f"index {index.value} is out of range for a stack of size {base.type.size}", e.index.span,
                           code="out-of-range")
                return _typed(out, UNKNOWN)
            index = _const(index.value, T.Bits(32), index.span)
        elif not (isinstance(index.type, (T.Bits, T.InfInt))
                  or (isinstance(index.type, T.Enum) and index.type.underlying is not None)):
            # As p4c: bit<W>, int<W> (a negative index is out of range) or a serializable enum.
            self.error(f"a stack index must be an integer, got {index.type}", e.index.span, code="operand-type")
        return E.Index(base, index, type=base.type.element, span=e.span)

    def _tuple_element(self, base: E.Expr, index: E.Expr, e: E.Index) -> E.Expr:
        """``t[i]`` of a tuple: ``i`` must be a constant in range; the element keeps its own type."""
        elements = base.type.elements
        if not isinstance(index, E.Constant):
            self.error("a tuple index must be a compile-time constant", e.index.span, code="not-constant")
            return _typed(E.Index(base, index, span=e.span), UNKNOWN)
        if not 0 <= index.value < len(elements):
            self.error(f"index {index.value} is out of range for {base.type}", e.index.span, code="out-of-range")
            return _typed(E.Index(base, index, span=e.span), UNKNOWN)
        if isinstance(base, E.ListExpr):
            return base.elements[index.value]
        return E.Index(base, _const(index.value, T.INT, index.span), type=elements[index.value], span=e.span)

    def visit_Slice(self, e, expected):
        base = self.check_expr(e.expr)
        hi = self.const_int(e.hi, "a slice bound")
        lo = self.const_int(e.lo, "a slice bound")
        if is_unknown(base.type) or hi is None or lo is None:
            return E.Slice(base, e.hi, e.lo, type=UNKNOWN, span=e.span)
        if hi > MAX_WIDTH:
            self.error(too_wide(f"slice bound {hi}"), e.hi.span, code="too-wide")
            return E.Slice(base, e.hi, e.lo, type=UNKNOWN, span=e.span)
        bt = base.type
        if isinstance(bt, T.InfInt) and isinstance(base, E.Constant):
            bt = T.Bits(max(hi + 1, 1))
        if isinstance(bt, T.Enum) and isinstance(bt.underlying, T.Bits):
            bt = bt.underlying   # a serializable enum value slices as its underlying type (p4c)
        if not isinstance(bt, T.Bits):
            self.error(f"only bit<W> and int<W> values can be sliced, not {bt}", e.span, code="operand-type")
            return E.Slice(base, e.hi, e.lo, type=UNKNOWN, span=e.span)
        if not 0 <= lo <= hi < bt.width:
            self.error(f"slice [{hi}:{lo}] is out of range for {bt}", e.span, code="out-of-range")
            return E.Slice(base, e.hi, e.lo, type=UNKNOWN, span=e.span)
        rt = T.Bits(hi - lo + 1)
        if isinstance(base, E.Constant):
            return _const(slice_bits(base.value, hi, lo), rt, e.span)
        return E.Slice(base, _const(hi, T.INT, e.hi.span), _const(lo, T.INT, e.lo.span), type=rt, span=e.span)

    def visit_PlusSlice(self, e, expected):
        """``x[lo +: w]``: the slice ``[lo + w - 1 : lo]`` when ``lo`` is a constant, else
        ``(bit<w>)(x >> lo)``, as p4c lowers it."""
        width = self.const_int(e.width, "the width of a '+:' slice")
        lo = self.check_expr(e.lo)
        if width is None or is_unknown(lo.type):
            return E.Slice(self.check_expr(e.expr), e.lo, e.lo, type=UNKNOWN, span=e.span)
        if isinstance(lo, E.Constant):
            hi = E.Constant(lo.value + width - 1, span=e.width.span)
            return self.visit_Slice(E.Slice(e.expr, hi, lo, span=e.span), expected)
        shifted = E.Binary(">>", e.expr, e.lo, span=e.span)
        return self.check_expr(E.Cast(E.BitsRef(E.Constant(width), False, span=e.span), shifted, span=e.span))

