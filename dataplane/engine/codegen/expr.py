"""Typed IR expressions to Python source, with P4's fixed-width arithmetic made explicit."""
from __future__ import annotations

from dataplane.engine.codegen.fieldlists import FieldListGen
from dataplane.engine.codegen.values import is_object, is_scalar, mask, signed_wrap, wrap  # noqa: F401 - re-exported
from dataplane.engine.structgen import class_name, default_value, py_name
from dataplane.errors import InternalError
from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.ir.node import Visitor


class ExprGen(FieldListGen, Visitor):
    """Python source for typed expressions; ``names`` maps P4 value names to Python expressions.

    Dispatches through ``Visitor``: ``visit_<ClassName>`` per expression class.
    """

    def __init__(self, program, names: dict[str, str], helpers):
        self.program = program
        self.names = names
        self.helpers = helpers  # the block generator: knows tables, calls and parser state
        self._leaf_parts: list[tuple[str, str, int]] = []
        # struct format -> name of its module-level packer; set by backend.generate (None: no struct packing).
        self.packers: dict[str, str] | None = None
        # (expression node, Python source): nodes already evaluated into a temporary (an l-value
        # evaluated once, before the call on the right of its assignment); matched by identity.
        self.bound: list[tuple[E.Expr, str]] = []

    def error_code(self, member: str) -> int:
        return self.program.errors.index(member)

    def __call__(self, e: E.Expr) -> str:
        if self.bound:
            for node, src in reversed(self.bound):
                if node is e:
                    return src
        return self.visit(e)

    def generic_visit(self, e: E.Expr) -> str:
        raise InternalError(f"no code generator for expression {type(e).__name__}")

    # ---- leaves --------------------------------------------------------------------------------
    def visit_Constant(self, e):
        return str(e.value) if e.value >= 0 else f"({e.value})"

    def visit_BoolLiteral(self, e):
        return "True" if e.value else "False"

    def visit_StringLiteral(self, e):
        return repr(e.value)

    def visit_PathExpr(self, e):
        try:
            return self.names[e.name]
        except KeyError:
            raise InternalError(f"no binding for '{e.name}' in generated code") from None

    def visit_TypeMember(self, e):
        if e.type_name == "error":
            return str(self.error_code(e.member))
        t = self.program.types.get(e.type_name)
        if isinstance(t, T.Enum):
            i = t.members.index(e.member)
            return str(t.values[i] if t.values is not None else i)
        return repr(e.member)

    def visit_DontCareExpr(self, e):
        return "None"

    # ---- access ----------------------------------------------------------------------------------
    def visit_Member(self, e):
        bt = e.expr.type
        if isinstance(bt, T.Stack):
            base = self(e.expr)
            sob = self.error_code("StackOutOfBounds")
            if e.member == "next":
                return f"{base}.next({sob})"
            if e.member == "last":
                return f"{base}.last({sob})"
            if e.member == "lastIndex":
                return f"{base}.last_index()"
            if e.member == "size":
                return str(bt.size)
        if isinstance(bt, T.ApplyResult):
            call = self(e.expr)
            # Applying a table returns the ActionEntry that ran (hit flag and action name).
            if e.member == "hit":
                return f"{call}.hit"
            if e.member == "miss":
                return f"(not {call}.hit)"
            return f"{call}.name"
        return f"{self(e.expr)}.{py_name(e.member)}"

    def visit_Index(self, e):
        if isinstance(T.strip_newtype(e.expr.type), T.Tuple):   # tuples are Python tuples
            return f"{self(e.expr)}[{e.index.value}]"
        if isinstance(e.index, E.Constant):
            return f"{self(e.expr)}.elems[{e.index.value}]"
        return f"{self(e.expr)}.at({self(e.index)})"

    def visit_Slice(self, e):
        return f"(({self(e.expr)} >> {e.lo.value}) & {mask(e.hi.value - e.lo.value + 1)})"

    # ---- operators ----------------------------------------------------------------------------------
    def visit_Unary(self, e):
        x = self(e.operand)
        t = T.strip_newtype(e.type)
        if e.op == "!":
            return f"(not {x})"
        if e.op == "+":
            return x
        if e.op == "-":
            return wrap(f"-{x}", t)
        if isinstance(t, T.Bits) and not t.signed:
            return f"({x} ^ {mask(t.width)})"
        return f"(~{x})"

    def visit_Binary(self, e):
        op = e.op
        a, b = self(e.left), self(e.right)
        if op == "&&":
            return f"({a} and {b})"
        if op == "||":
            return f"({a} or {b})"
        if op in ("==", "!=") and (_is_init(e.left) or _is_init(e.right)):
            # A struct/header compared with a list or named-field expression: compare field by field.
            obj, init = (e.left, e.right) if _is_init(e.right) else (e.right, e.left)
            if isinstance(T.strip_newtype(obj.type), T.StructLike):
                same = self.equals_init(self(obj), T.strip_newtype(obj.type), init)
                return same if op == "==" else f"(not {same})"
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return f"({a} {op} {b})"
        t = T.strip_newtype(e.type)
        if not isinstance(t, T.Bits):
            return f"({a} {op} {b})"
        w, signed = t.width, t.signed
        if op in ("+", "-", "*"):
            return wrap(f"{a} {op} {b}", t)
        if op in ("&", "|", "^"):
            return f"({a} {op} {b})"
        if op == "/":
            return f"div_u({a}, {b})"
        if op == "%":
            return f"mod_u({a}, {b})"
        if op == "|+|":
            # Written out, as runtime.sat_add_s/sat_add_u compute it: a call a lane costs an
            # aggregating program (allreduce.p4: 32 a packet) more than the sum itself.
            if signed:
                hi, lo = (1 << (w - 1)) - 1, -(1 << (w - 1))
                return f"({hi} if (_sat := {a} + {b}) > {hi} else {lo} if _sat < {lo} else _sat)"
            return f"({mask(w)} if (_sat := {a} + {b}) > {mask(w)} else _sat)"
        if op == "|-|":
            return f"sat_sub_s({a}, {b}, {w})" if signed else f"sat_sub_u({a}, {b})"
        if op == "<<":
            if isinstance(e.right, E.Constant):
                return "0" if e.right.value >= w else wrap(f"{a} << {e.right.value}", t)
            return f"to_signed(shl({a}, {b}, {w}), {w})" if signed else f"shl({a}, {b}, {w})"
        if op == ">>":
            return f"({a} >> {b})"
        if op == "++":
            lt, rt = T.strip_newtype(e.left.type), T.strip_newtype(e.right.type)
            left = f"({a} & {mask(lt.width)})" if lt.signed else a
            right = f"({b} & {mask(rt.width)})" if rt.signed else b
            joined = f"({left} << {rt.width}) | {right}"
            return f"({signed_wrap(joined, w)})" if signed else f"({joined})"
        raise InternalError(f"operator {op} on {t}")

    def equals_init(self, obj: str, t: T.StructLike, init: E.Expr) -> str:
        """``obj == init`` for a list/named-field initializer ``init`` of struct-like type ``t``."""
        if isinstance(init, E.ListExpr):
            pairs = list(zip(t.fields, init.elements))
        else:
            given = {f.name: f.value for f in init.fields}
            pairs = [(f, given[f.name]) for f in t.fields if f.name in given]
        parts = [f"{obj}._valid"] if isinstance(t, T.Header) else []
        for f, value in pairs:
            ft = T.strip_newtype(f.type)
            target = f"{obj}.{py_name(f.name)}"
            if _is_init(value) and isinstance(ft, T.StructLike):
                parts.append(self.equals_init(target, ft, value))
            else:
                parts.append(f"{target} == {self(value)}")
        return "(" + (" and ".join(parts) or "True") + ")"

    def visit_Mux(self, e):
        return f"({self(e.then)} if {self(e.cond)} else {self(e.otherwise)})"

    def visit_Cast(self, e):
        x = self(e.expr)
        src = T.strip_newtype(e.expr.type)
        dst = T.strip_newtype(e.type)
        if isinstance(dst, T.Bool):
            return f"({x} != 0)" if not isinstance(src, T.Bool) else x
        if isinstance(src, T.Bool):
            return f"(1 if {x} else 0)"
        if isinstance(dst, T.Enum):
            dst = dst.underlying or dst
        if isinstance(dst, T.Bits):
            if isinstance(src, T.Bits) and src.width <= dst.width and src.signed == dst.signed:
                return x
            return wrap(x, dst)
        return x

    def visit_Call(self, e):
        return self.helpers.call_expr(e)

    def visit_ListExpr(self, e):
        t = T.strip_newtype(e.type) if e.type is not None else None
        if isinstance(t, T.StructLike):
            return self.make_value(t, e.elements)
        # A tuple holds values: headers and structs in it are copies.
        return "(" + "".join(self.value_copy(x) + ", " for x in e.elements) + ")"

    def visit_StructInit(self, e):
        t = T.strip_newtype(e.type)
        if not isinstance(t, T.StructLike):
            raise InternalError(f"struct expression of type {t}")
        given = {f.name: f.value for f in e.fields}
        return self.make_value(t, [given.get(f.name) for f in t.fields])

    def visit_InvalidHeader(self, e):
        t = T.strip_newtype(e.type)
        return f"{class_name(t.name)}()"

    def make_value(self, t: T.StructLike, values) -> str:
        """A new header/struct object from field values in declaration order (None: the field's default)."""
        args = [self(v) if v is not None else default_value(f.type) for f, v in zip(t.fields, values)]
        return f"{class_name(t.name)}._make({', '.join(args)})"

    def value_copy(self, e: E.Expr) -> str:
        """``e`` as a value that nothing else refers to: objects not made by ``e`` itself are cloned."""
        src = self(e)
        if not is_object(e.type) or isinstance(e, (E.ListExpr, E.StructInit, E.InvalidHeader, E.Call)):
            return src
        return f"{src}._clone()"


def _is_init(e: E.Expr) -> bool:
    return isinstance(e, (E.ListExpr, E.StructInit))
