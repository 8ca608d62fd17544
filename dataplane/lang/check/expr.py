"""Type checker, part 2: expressions. Each ``visit_<Node>`` (``ir.node.Visitor``) returns a typed copy, folded when constant."""
from __future__ import annotations

import dataclasses
import difflib

from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.lang.check.access import AccessMixin, _const, _typed
from dataplane.lang.check.compare import anonymous_struct
from dataplane.lang.check.types import ERROR, UNKNOWN, is_unknown
from dataplane.lang.consteval import cast_int, concat, fold_binary
from dataplane.lang.limits import MAX_CONSTANT_BITS, MAX_WIDTH, too_big_constant, too_wide

_ARITH = {"+", "-", "*", "|+|", "|-|"}
_DIVISION = {"/", "%"}
_BITWISE = {"&", "|", "^"}
_ORDER = {"<", ">", "<=", ">="}
_EQUALITY = {"==", "!="}


class ExprMixin(AccessMixin):
    """Typing rules for expressions (P4-REFERENCE.md §3.7-3.9)."""

    def check_expr(self, e: E.Expr, expected: T.Type | None = None) -> E.Expr:
        return self.visit(e, expected)

    def check_bool(self, e: E.Expr, what: str) -> E.Expr:
        out = self.check_expr(e, T.BOOL)
        if not is_unknown(out.type) and out.type != T.BOOL:
            self.error(f"{what} must be a bool, got {out.type}" + (
                " (write 'x == 1' to test a bit)" if isinstance(out.type, T.Bits) else ""), e.span,
                code="type-mismatch")
        return out

    def const_int(self, e: E.Expr, what: str) -> int | None:
        out = self.check_expr(e)
        if isinstance(out, E.InvalidHeader) and out.type is None:  # `{#}` has no type of its own
            self.error(f"{what} must be a compile-time constant", e.span, code="not-constant")
            return None
        if is_unknown(out.type):
            return None
        if not isinstance(out, E.Constant):
            self.error(f"{what} must be a compile-time constant", e.span, code="not-constant")
            return None
        return out.value

    # ---- leaves ---------------------------------------------------------------------------------
    def visit_Constant(self, e, expected):
        if isinstance(e.type, T.Bits) and e.type.width > MAX_WIDTH:
            self.error(too_wide(f"the width {e.type.width} of this literal"), e.span, code="too-wide")
            return _typed(e, UNKNOWN)
        return e if e.type is not None else _typed(e, T.INT)

    def visit_BoolLiteral(self, e, expected):
        return _typed(e, T.BOOL)

    def visit_StringLiteral(self, e, expected):
        return _typed(e, T.STRING)

    def visit_DontCareExpr(self, e, expected):
        return _typed(e, T.DontCare())

    def visit_DefaultValue(self, e, expected):
        self.error("unsupported: '...' as a value", e.span, code="unsupported")
        return _typed(e, UNKNOWN)

    def visit_InvalidHeader(self, e, expected):
        return e

    def visit_StructInit(self, e, expected):
        fields = []
        for f in e.fields:
            if any(g.name == f.name for g in fields):
                self.error(f"field '{f.name}' is given twice", f.span, code="duplicate")
            fields.append(E.NamedField(f.name, self.check_expr(f.value), span=f.span))
        # Until a context gives it a declared type, `{ a = x }` has an anonymous struct type.
        types = [f.value.type for f in fields]
        if is_unknown(*types):
            return dataclasses.replace(e, fields=tuple(fields), type=UNKNOWN)
        name = "struct { " + " ".join(f"{t} {f.name};" for f, t in zip(fields, types)) + " }"
        t = T.Struct(name, tuple(T.StructField(f.name, t) for f, t in zip(fields, types)))
        return dataclasses.replace(e, fields=tuple(fields), type=t)

    def visit_ListExpr(self, e, expected):
        elems = tuple(self.check_expr(x) for x in e.elements)
        return E.ListExpr(elems, type=T.Tuple(tuple(x.type or UNKNOWN for x in elems)), span=e.span)

    def visit_PathExpr(self, e, expected):
        sym = self.scope.lookup(e.name)
        if sym is None and e.name in self.match_kinds:   # `exact` as a value of type match_kind
            return E.TypeMember("match_kind", e.name, type=T.MATCH_KIND, span=e.span)
        if sym is None:
            hint = difflib.get_close_matches(e.name, self.scope.visible_names(), n=1)
            self.error(f"unknown name '{e.name}'" + (f"; did you mean '{hint[0]}'?" if hint else ""), e.span,
                       code="unknown-name")
            return _typed(e, UNKNOWN)
        if sym.kind == "const":
            return dataclasses.replace(sym.value, span=e.span) if sym.value is not None else _typed(e, UNKNOWN)
        return E.PathExpr(e.name, sym.kind, type=sym.type or UNKNOWN, span=e.span)

    def visit_TypeMember(self, e, expected):
        if e.type_name == "error":
            if e.member not in self.error_members:
                self.error(f"unknown error '{e.member}'", e.span, code="unknown-member")
                return _typed(e, UNKNOWN)
            return _typed(e, ERROR)
        t = self.types.get(e.type_name)
        if isinstance(t, T.Enum):
            if e.member not in t.members:
                self.error(f"enum '{t.name}' has no member '{e.member}'", e.span, code="unknown-member")
                return _typed(e, UNKNOWN)
            return _typed(e, t)
        if t is None:
            self.error(f"unknown type '{e.type_name}'", e.span, code="unknown-type")
        else:
            self.error(f"type '{e.type_name}' has no member '{e.member}'", e.span, code="unknown-member")
        return _typed(e, UNKNOWN)

    # ---- operators ----------------------------------------------------------------------------------
    def visit_Unary(self, e, expected):
        x = self.check_expr(e.operand, expected)
        t = x.type
        out = E.Unary(e.op, x, span=e.span)
        if isinstance(x, E.InvalidHeader) and t is None:
            self.error(f"'{e.op}' cannot apply to '{{#}}', an invalid header of unknown type", e.span,
                       code="type-inference")
            return _typed(out, UNKNOWN)
        if is_unknown(t):
            return _typed(out, UNKNOWN)
        if e.op == "!":
            if t != T.BOOL:
                self.error(f"'!' needs a bool operand, got {t}", e.span, code="operand-type")
                return _typed(out, UNKNOWN)
            return E.BoolLiteral(not x.value, type=T.BOOL, span=e.span) if isinstance(x, E.BoolLiteral) else _typed(out, t)
        if not isinstance(t, (T.Bits, T.InfInt)):
            self.error(f"'{e.op}' needs an integer operand, got {t}", e.span, code="operand-type")
            return _typed(out, UNKNOWN)
        if e.op == "~" and isinstance(t, T.InfInt):
            self.error("'~' needs a value of known width; give the literal a width (e.g. 8w5)", e.span,
                       code="operand-type")
            return _typed(out, UNKNOWN)
        if isinstance(x, E.Constant):
            v = {"-": -x.value, "+": x.value, "~": ~x.value}[e.op]
            return _const(v, t, e.span)
        return _typed(out, t)

    def visit_Binary(self, e, expected):
        if e.op in ("&&", "||"):
            left = self.check_bool(e.left, f"the left operand of '{e.op}'")
            right = self.check_bool(e.right, f"the right operand of '{e.op}'")
            if isinstance(left, E.BoolLiteral) and isinstance(right, E.BoolLiteral):
                v = (left.value and right.value) if e.op == "&&" else (left.value or right.value)
                return E.BoolLiteral(v, type=T.BOOL, span=e.span)
            return E.Binary(e.op, left, right, type=T.BOOL, span=e.span)
        left = self.check_expr(e.left)
        right = self.check_expr(e.right)
        left, right = self._type_initializers(e, left, right)
        if is_unknown(left.type, right.type):
            return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        if e.op in ("<<", ">>"):
            return self._shift(e, left, right)
        if e.op == "++":
            return self._concat(e, left, right)
        if e.op in _EQUALITY and not self.check_comparable(e, left, right):
            return E.Binary(e.op, left, right, type=T.BOOL, span=e.span)
        if e.op in _DIVISION and any(isinstance(x, E.Constant) and isinstance(x.type, T.InfInt) and x.value < 0
                                     for x in (left, right)):
            self.error(f"'{e.op}' is not defined on negative numbers", e.span, code="operand-type")
            return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        if e.op not in _EQUALITY:
            # p4c's binaryArith: a serializable enum operand of an arithmetic or bitwise operator is
            # its underlying bit<W> (DASH's `actions & dash_routing_actions_t.ENCAP_U0`).
            left, right = (self.convert(x, x.type.underlying, f"operand of '{e.op}'")
                           if isinstance(x.type, T.Enum) and x.type.underlying is not None else x
                           for x in (left, right))
        left, right = self._unify(e, left, right)
        lt = left.type
        if is_unknown(lt, right.type):
            return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        if e.op in _EQUALITY:
            if isinstance(left, (E.Constant, E.BoolLiteral)) and isinstance(right, (E.Constant, E.BoolLiteral)):
                same = left.value == right.value
                return E.BoolLiteral(same if e.op == "==" else not same, type=T.BOOL, span=e.span)
            return E.Binary(e.op, left, right, type=T.BOOL, span=e.span)
        base = T.strip_newtype(lt)
        if not isinstance(base, (T.Bits, T.InfInt)):
            self.error(f"'{e.op}' needs integer operands, got {lt}", e.span, code="operand-type")
            return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        if e.op in _DIVISION:
            if isinstance(base, T.Bits) and base.signed:
                self.error(f"'{e.op}' is not defined on signed values ({lt})", e.span, code="operand-type")
            if isinstance(right, E.Constant) and right.value == 0:
                self.error("division by zero", e.right.span, code="division-by-zero")
                return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
            if isinstance(base, T.InfInt) and ((isinstance(left, E.Constant) and left.value < 0) or right.value < 0):
                self.error(f"'{e.op}' on negative compile-time integers is not defined", e.span, code="operand-type")
            self.check_run_time_division(e, left, right)
        if e.op in _BITWISE and isinstance(base, T.InfInt) and not (isinstance(left, E.Constant) and isinstance(right, E.Constant)):
            self.error(f"'{e.op}' needs values of known width", e.span, code="operand-type")
        rt = T.BOOL if e.op in _ORDER else lt
        if isinstance(left, E.Constant) and isinstance(right, E.Constant):
            width = base.width if isinstance(base, T.Bits) else None
            signed = isinstance(base, T.Bits) and base.signed
            v = fold_binary(e.op, left.value, right.value, width, signed)
            if rt == T.BOOL:
                return E.BoolLiteral(bool(v), type=T.BOOL, span=e.span)
            if self._too_big(v, e):
                return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
            return _const(v, rt, e.span)
        return E.Binary(e.op, left, right, type=rt, span=e.span)

    def _too_big(self, value: int, e: E.Expr) -> bool:
        """Report a folded ``int`` value needing more than ``MAX_CONSTANT_BITS`` bits (a chain of
        squarings doubles its length at every step, and Python would go on computing it)."""
        if abs(value).bit_length() <= MAX_CONSTANT_BITS:
            return False
        self.error(too_big_constant("the value of this expression", abs(value).bit_length()), e.span, code="too-wide")
        return True

    def _type_initializers(self, e, left, right):
        """An initializer operand (``{#}``, ``{ f = x }``, ``{ x, y }``) takes the type of the other operand."""
        inits = (E.ListExpr, E.StructInit, E.InvalidHeader)
        if anonymous_struct(right) and isinstance(left, E.StructInit) and not anonymous_struct(left):
            right = self.convert(right, left.type, f"the right operand of '{e.op}'")
        elif anonymous_struct(left) and isinstance(right, E.StructInit) and not anonymous_struct(right):
            left = self.convert(left, right.type, f"the left operand of '{e.op}'")
        elif isinstance(left, inits) and not isinstance(right, inits) and not is_unknown(right.type):
            left = self.convert(left, right.type, f"the left operand of '{e.op}'")
        elif isinstance(right, inits) and not isinstance(left, inits) and not is_unknown(left.type):
            right = self.convert(right, left.type, f"the right operand of '{e.op}'")
        elif isinstance(left, E.InvalidHeader) or isinstance(right, E.InvalidHeader):
            self.error(f"the header type of '{{#}}' cannot be inferred in '{e.op}'", e.span, code="type-inference")
            left = _typed(left, UNKNOWN)
        return left, right

    def _unify(self, e, left, right):
        """Give both operands one type: untyped ints and serializable enums take the other side's type."""
        op = e.op if isinstance(e, E.Binary) else "?:"
        lt, rt = left.type, right.type
        if lt == rt:
            return left, right
        for a, b in ((lt, rt), (rt, lt)):
            if isinstance(a, T.Enum) and a.underlying is not None and isinstance(b, (T.Bits, T.InfInt)):
                if a is lt:
                    left = self.convert(left, a.underlying, f"operand of '{op}'")
                else:
                    right = self.convert(right, a.underlying, f"operand of '{op}'")
                lt, rt = left.type, right.type
                break
        if isinstance(lt, T.InfInt) and not isinstance(rt, T.InfInt):
            return self.convert(left, rt, f"the left operand of '{op}'"), right
        if isinstance(rt, T.InfInt) and not isinstance(lt, T.InfInt):
            return left, self.convert(right, lt, f"the right operand of '{op}'")
        if lt != rt:
            same_sign = isinstance(lt, T.Bits) and isinstance(rt, T.Bits) and lt.signed == rt.signed
            kind = "width mismatch" if same_sign else "type mismatch"
            self.error(f"{kind}: operands of '{op}' have types {lt} and {rt}; P4 does not widen implicitly, add a cast",
                       e.span, code="width-mismatch" if same_sign else "type-mismatch")
            return left, _typed(right, UNKNOWN)
        return left, right

    def _shift(self, e, left, right):
        lt, rt = left.type, right.type
        if not isinstance(lt, (T.Bits, T.InfInt)):
            self.error(f"'{e.op}' needs an integer left operand, got {lt}", e.span, code="operand-type")
            return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        if isinstance(rt, T.InfInt):
            if not isinstance(right, E.Constant) or right.value < 0:
                self.error("a shift amount must be non-negative", e.right.span, code="out-of-range")
                return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        elif not (isinstance(rt, T.Bits) and not rt.signed):
            self.error(f"a shift amount must be an unsigned bit<W> value, got {rt}", e.right.span, code="operand-type")
            return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        if isinstance(lt, T.InfInt) and not isinstance(right, E.Constant):
            self.error("cannot shift an untyped integer by a non-constant amount; give it a width (e.g. 32w1)", e.span,
                       code="operand-type")
            return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        if isinstance(left, E.Constant) and isinstance(right, E.Constant):
            if right.value > MAX_WIDTH:  # p4c refuses to fold such a shift, whatever the left side
                self.error(too_wide(f"shift amount {right.value}"), e.span, code="too-wide")
                return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
            width = lt.width if isinstance(lt, T.Bits) else None
            v = fold_binary(e.op, left.value, right.value, width, isinstance(lt, T.Bits) and lt.signed)
            if self._too_big(v, e):
                return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
            return _const(v, lt, e.span)
        return E.Binary(e.op, left, right, type=lt, span=e.span)

    def _concat(self, e, left, right):
        lt, rt = left.type, right.type
        if isinstance(left, E.StringLiteral) and isinstance(right, E.StringLiteral):
            # p4c folds string concatenation of compile-time strings (spec-issue1297-string-cat.p4)
            return E.StringLiteral(left.value + right.value, type=lt, span=e.span)
        if not (isinstance(lt, T.Bits) and isinstance(rt, T.Bits)):
            self.error(f"'++' needs operands of known width, got {lt} and {rt}", e.span, code="operand-type")
            return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        if lt.width + rt.width > MAX_WIDTH:
            self.error(too_wide(f"the width {lt.width + rt.width} of this concatenation"), e.span, code="too-wide")
            return E.Binary(e.op, left, right, type=UNKNOWN, span=e.span)
        t = T.Bits(lt.width + rt.width, lt.signed)
        if isinstance(left, E.Constant) and isinstance(right, E.Constant):
            return E.Constant(concat(left.value, lt.width, right.value, rt.width, lt.signed), type=t, span=e.span)
        return E.Binary("++", left, right, type=t, span=e.span)

    def visit_Mux(self, e, expected):
        cond = self.check_bool(e.cond, "the condition of '?:'")
        then = self.check_expr(e.then, expected)
        other = self.check_expr(e.otherwise, expected)
        if is_unknown(then.type, other.type):
            return E.Mux(cond, then, other, type=UNKNOWN, span=e.span)
        if isinstance(then.type, T.InfInt) and isinstance(other.type, T.InfInt) and not isinstance(cond, E.BoolLiteral):
            if isinstance(expected, T.Bits):
                then, other = self.convert(then, expected, "'?:'"), self.convert(other, expected, "'?:'")
            else:
                self.error("both branches of '?:' are untyped integers; give one a width", e.span, code="operand-type")
                return E.Mux(cond, then, other, type=UNKNOWN, span=e.span)
        then, other = self._unify(e, then, other) if then.type != other.type else (then, other)
        if isinstance(cond, E.BoolLiteral):
            return then if cond.value else other
        return E.Mux(cond, then, other, type=then.type, span=e.span)

    def visit_Cast(self, e, expected):
        target = self.resolve(e.to)
        x = self.check_expr(e.expr, target)
        if isinstance(x, (E.ListExpr, E.StructInit, E.InvalidHeader)) and not is_unknown(target):
            return self.convert(x, target, "cast")
        if is_unknown(target, x.type):
            return E.Cast(e.to, x, type=UNKNOWN, span=e.span)
        src = x.type
        if not _castable(src, target):
            hint = ""
            if isinstance(src, T.Bits) and isinstance(target, T.Bits):
                hint = "; change the sign and the width in two casts"
            self.error(f"cannot cast {src} to {target}{hint}", e.span, code="invalid-cast")
            return E.Cast(e.to, x, type=UNKNOWN, span=e.span)
        if isinstance(x, E.Constant):
            tb = T.strip_newtype(target)
            if isinstance(tb, T.Bits):
                return _const(cast_int(x.value, tb.width, tb.signed), target, e.span)
            if tb == T.BOOL:
                if x.value not in (0, 1):
                    self.error(f"only 0 and 1 can be cast to bool, not {x.value}", e.span, code="invalid-cast")
                return E.BoolLiteral(bool(x.value), type=T.BOOL, span=e.span)
        if isinstance(x, E.BoolLiteral) and isinstance(target, T.Bits):
            return _const(int(x.value), target, e.span)
        return E.Cast(e.to, x, type=target, span=e.span)

    def visit_ConstructorCall(self, e, expected):
        t = self.resolve(e.type_ref)
        if is_unknown(t):
            return _typed(e, UNKNOWN)
        if isinstance(t, T.Extern):
            args = self.check_args(e.args, list(t.constructors), f"constructor of '{t.name}'", e.span,
                                   self.extern_bindings(t))
            if args is not None:
                self.check_ctor_args(args[1], f"the constructor of '{t.name}'")
            if args is not None and t.type_params and not t.type_args:
                missing = [n for n in t.type_params if n not in args[2]]
                if missing:
                    self.error(f"cannot infer the type argument(s) {', '.join(missing)} of extern '{t.name}'; "
                               f"write {t.name}<...>(...)", e.span, code="type-inference")
                    return E.ConstructorCall(e.type_ref, args[1], type=UNKNOWN, span=e.span)
                t = dataclasses.replace(t, type_args=tuple(args[2][n] for n in t.type_params))
            return E.ConstructorCall(e.type_ref, args[1] if args else (), type=t, span=e.span)
        if isinstance(t, T.Block):
            args = self.check_args(e.args, [T.Method(t.name, t.constructor_params)], f"'{t.name}'", e.span, {})
            if args is not None:
                self.check_ctor_args(args[1], f"'{t.name}'")
            return E.ConstructorCall(e.type_ref, args[1] if args else (), type=t, span=e.span)
        self.error(f"'{t}' cannot be instantiated", e.span, code="instantiation")
        return _typed(e, UNKNOWN)

    def extern_bindings(self, t: T.Extern) -> dict[str, T.Type]:
        return dict(zip(t.type_params, t.type_args)) if t.type_args else {}


def _castable(src: T.Type, dst: T.Type) -> bool:
    if src == dst:
        return True
    s, d = src, dst
    if isinstance(s, T.NewType) or isinstance(d, T.NewType):
        # p4c: a `type` converts only to and from the type it names (an untyped literal too)
        return (isinstance(s, T.NewType) and s.base == d or isinstance(d, T.NewType) and d.base == s
                or isinstance(s, T.InfInt) and isinstance(T.strip_newtype(d), (T.Bits, T.Bool)))
    if isinstance(s, T.Enum) and s.underlying is not None:
        s = s.underlying
    if isinstance(d, T.Enum) and d.underlying is not None:
        d = d.underlying
    if s == d:
        return True
    if isinstance(s, T.Bits) and isinstance(d, T.Bits):
        return s.signed == d.signed or s.width == d.width
    if isinstance(s, T.InfInt):
        return isinstance(d, (T.Bits, T.Bool))
    if isinstance(s, T.Bits) and isinstance(d, T.InfInt):
        return True
    if isinstance(s, T.Bool) and isinstance(d, T.Bits):
        return d.width == 1 and not d.signed
    if isinstance(s, T.Bits) and isinstance(d, T.Bool):
        return s.width == 1 and not s.signed
    return False
