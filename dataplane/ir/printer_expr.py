"""Expressions and type references printed back as P4_16 text: the half of ``printer.P4Printer``
that returns text instead of writing lines.

Every operator application prints in parentheses of its own (``top`` drops the outermost pair
where nothing surrounds the expression), so the printed text never depends on precedence.
Integer literals keep their base and width (``8w0xa``) but not their spelling.
"""
from __future__ import annotations

from typing import Any

from dataplane.ir import expr as E
from dataplane.ir.node import Visitor
from dataplane.ir.types import Bits

_PREFIX = {2: "0b", 8: "0o", 16: "0x"}


class ExprPrinter(Visitor):
    """``visit`` on an expression, keyset or type reference returns its text."""

    def generic_visit(self, node, *args):
        raise ValueError(f"cannot print {type(node).__name__} as P4")

    # ---- type references ------------------------------------------------------------------------
    def visit_BitsRef(self, t: E.BitsRef) -> str:
        return f"{'int' if t.signed else 'bit'}<{self.width(t.width)}>"

    def visit_VarbitRef(self, t: E.VarbitRef) -> str:
        return f"varbit<{self.width(t.width)}>"

    def width(self, w: E.Expr) -> str:
        return self.visit(w) if isinstance(w, E.Constant) else f"({self.visit(w)})"

    def visit_BaseTypeRef(self, t: E.BaseTypeRef) -> str:
        return t.name

    def visit_NamedTypeRef(self, t: E.NamedTypeRef) -> str:
        return t.name + self.type_args(t.args)

    def visit_StackRef(self, t: E.StackRef) -> str:
        return f"{self.visit(t.element)}[{self.visit(t.size)}]"

    def visit_TupleRef(self, t: E.TupleRef) -> str:
        return f"tuple<{', '.join(self.visit(x) for x in t.elements)}>"

    def visit_ListRef(self, t: E.ListRef) -> str:
        return f"list<{self.visit(t.element)}>"

    def type_args(self, args: tuple) -> str:
        return f"<{', '.join(self.visit(a) for a in args)}>" if args else ""

    # ---- expressions ----------------------------------------------------------------------------
    def visit_Constant(self, e: E.Constant) -> str:
        value = e.value
        sign = "-" if value < 0 else ""
        digits = format(abs(value), {2: "b", 8: "o", 16: "x"}.get(e.base, "d"))
        text = sign + _PREFIX.get(e.base, "") + digits
        t = e.type
        if isinstance(t, Bits):
            return f"{t.width}{'s' if t.signed else 'w'}{text}"
        return text if not sign else f"({text})"

    def visit_BoolLiteral(self, e: E.BoolLiteral) -> str:
        return "true" if e.value else "false"

    def visit_StringLiteral(self, e: E.StringLiteral) -> str:
        return f'"{e.value}"'

    def visit_PathExpr(self, e: E.PathExpr) -> str:
        return ("." if e.ref == "top" else "") + e.name

    def visit_This(self, e: E.This) -> str:
        return "this"

    def visit_Member(self, e: E.Member) -> str:
        return f"{self.visit(e.expr)}.{e.member}"

    def visit_TypeMember(self, e: E.TypeMember) -> str:
        return f"{e.type_name}.{e.member}"

    def visit_Index(self, e: E.Index) -> str:
        return f"{self.visit(e.expr)}[{self.visit(e.index)}]"

    def visit_Slice(self, e: E.Slice) -> str:
        return f"{self.visit(e.expr)}[{self.visit(e.hi)}:{self.visit(e.lo)}]"

    def visit_PlusSlice(self, e: E.PlusSlice) -> str:
        return f"{self.visit(e.expr)}[{self.visit(e.lo)}+:{self.visit(e.width)}]"

    def visit_Unary(self, e: E.Unary) -> str:
        return f"({e.op}{self.visit(e.operand)})"

    def visit_Binary(self, e: E.Binary) -> str:
        return f"({self.visit(e.left)} {e.op} {self.visit(e.right)})"

    def visit_Mux(self, e: E.Mux) -> str:
        return f"({self.visit(e.cond)} ? {self.visit(e.then)} : {self.visit(e.otherwise)})"

    def visit_Cast(self, e: E.Cast) -> str:
        # the operand binds tighter than the cast, or prints in parentheses of its own
        return f"(({self.visit(e.to)}){self.visit(e.expr)})"

    def top(self, e: Any) -> str:
        """An expression where no operator surrounds it (a statement, an argument): the outer
        parentheses of an operator application are left off."""
        text = self.visit(e)
        return text[1:-1] if isinstance(e, (E.Binary, E.Unary, E.Mux, E.Cast)) else text

    def visit_Argument(self, a: E.Argument) -> str:
        return f"{a.name} = {self.top(a.value)}" if a.name else self.top(a.value)

    def args(self, args: tuple) -> str:
        return ", ".join(self.visit(a) for a in args)

    def visit_Call(self, e: E.Call) -> str:
        return f"{self.visit(e.target)}{self.type_args(e.type_args)}({self.args(e.args)})"

    def visit_ConstructorCall(self, e: E.ConstructorCall) -> str:
        return f"{self.visit(e.type_ref)}({self.args(e.args)})"

    def visit_ListExpr(self, e: E.ListExpr) -> str:
        return "{" + ", ".join(self.visit(x) for x in e.elements) + "}"

    def visit_StructInit(self, e: E.StructInit) -> str:
        parts = [f"{f.name} = {self.visit(f.value)}" for f in e.fields] + (["..."] if e.has_rest else [])
        return "{" + ", ".join(parts) + "}"

    def visit_InvalidHeader(self, e: E.InvalidHeader) -> str:
        return "{#}"

    def visit_DefaultValue(self, e: E.DefaultValue) -> str:
        return "..."

    def visit_DontCareExpr(self, e: E.DontCareExpr) -> str:
        return "_"

    def visit_Mask(self, e: E.Mask) -> str:
        return f"{self.visit(e.value)} &&& {self.visit(e.mask)}"

    def visit_Range(self, e: E.Range) -> str:
        return f"{self.visit(e.lo)} .. {self.visit(e.hi)}"

    def visit_DefaultKeyset(self, e: E.DefaultKeyset) -> str:
        return "default"

    def visit_TupleKeyset(self, e: E.TupleKeyset) -> str:
        return "(" + ", ".join(self.visit(x) for x in e.elements) + ")"

    def keyset(self, keys: tuple) -> str:
        """Table entry keys: one bare, several as a tuple."""
        return self.visit(keys[0]) if len(keys) == 1 else "(" + ", ".join(self.visit(k) for k in keys) + ")"
