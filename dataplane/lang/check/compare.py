"""Type checker: which values ``==`` and ``!=`` may compare (p4c's ``TypeInference::compare``)."""
from __future__ import annotations

from dataplane.ir import expr as E
from dataplane.ir import types as T


def anonymous_struct(e: E.Expr) -> bool:
    """``{ a = x, ... }`` whose struct type no context has given yet."""
    return isinstance(e, E.StructInit) and isinstance(e.type, T.Struct) and e.type.name.startswith("struct {")


class CompareMixin:
    """Reports comparisons of values that have no equality: calls without a result, tables, externs."""

    def check_comparable(self, e: E.Binary, left: E.Expr, right: E.Expr) -> bool:
        """Report and return False if ``left`` and ``right`` (typed operands of ``e``) cannot be compared."""
        if anonymous_struct(left) and anonymous_struct(right):
            self.error(f"cannot compare two struct initializers with '{e.op}': their struct type is unknown; "
                       "cast one to a struct type, e.g. (S){ ... }", e.span, code="operand-type")
            return False
        for side in (left, right):
            t = side.type
            if isinstance(t, T.Void):
                self.error(f"'{e.op}' cannot compare the results of calls that return no value", side.span,
                           code="operand-type")
                return False
            if isinstance(t, T.ApplyResult):
                self.error(f"the results of applying table '{t.table}' cannot be compared; test .hit or .miss, "
                           "or switch on .action_run", side.span, code="operand-type")
                return False
            if isinstance(t, T.TypeVar):
                self.error(f"values of type {t}, a type variable, cannot be compared", e.span, code="operand-type")
                return False
            if isinstance(t, (T.Extern, T.Block, T.Table, T.Method, T.String)):
                self.error(f"values of type {t} cannot be compared", e.span, code="operand-type")
                return False
        return True
