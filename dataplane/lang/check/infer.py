"""Type checker: arguments a call cannot take, or whose types it cannot infer (p4c's unification).

``_`` stands only for an ``out`` argument whose value is discarded. A generic parameter
(``in T x``) takes its type from the argument; an untyped integer, ``_`` or a struct
initializer without a type gives it none, and p4c then reports that it could not infer it.
"""
from __future__ import annotations

from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.ir.summary import format_expr
from dataplane.lang.check.compare import anonymous_struct
from dataplane.lang.check.types import is_unknown


def unbound(bound: dict[str, T.Type], name: str) -> bool:
    """Whether type variable ``name`` still needs a type (``_`` as a type argument asks for inference)."""
    return isinstance(bound.get(name, T.DontCare()), T.DontCare)


class InferenceMixin:
    """Checks on a call's arguments once its type variables are bound."""

    def check_inferred(self, checked: list, bound: dict[str, T.Type], what: str) -> bool:
        """Report the first argument that is ``_`` for a non-out parameter or leaves its type unknown."""
        for param, arg, value in checked:
            if arg is None or value is None or is_unknown(value.type):
                continue
            if isinstance(value, E.DontCareExpr) and param.direction != "out":
                self.error(f"'_' can only be passed to an 'out' parameter; '{param.name}' of {what} is "
                           f"{repr(param.direction) if param.direction else 'directionless'}", arg.span,
                           code="invalid-context")
                return False
            if not isinstance(param.type, T.TypeVar):
                continue
            var = param.type.name
            b = bound.get(var)
            if isinstance(b, (T.Table, T.Block)) or isinstance(value.type, T.Method):
                what_t = f"{b.kind} {b.name}" if isinstance(b, T.Block) else str(b) if b is not None else "an action"
                self.error(f"argument '{param.name}' of {what}: a generic parameter cannot take {what_t}", arg.span,
                           code="invalid-type")
                return False
            if unbound(bound, var):
                if isinstance(value.type, T.InfInt):
                    self.error(f"could not infer a width for {format_expr(value)}: it is the only source of "
                               f"type {var} of {what}; give it a width (e.g. {_sized(value)}) "
                               "or write the type argument", arg.span, code="type-inference")
                    return False
                if isinstance(value, E.DontCareExpr):
                    self.error(f"could not infer type {var} of {what} from '_'; write the type argument "
                               "(e.g. extract<H>(_))", arg.span, code="type-inference")
                    return False
            elif anonymous_struct(value) and bound.get(var) == value.type:
                self.error(f"could not infer the struct type of this initializer for type {var} of {what}; "
                           "cast it to a struct type, e.g. (S){ ... }", arg.span, code="type-inference")
                return False
        return True


def _sized(value: E.Expr) -> str:
    """``value`` written with a width that holds it, for a hint (``16w0xffff``)."""
    if not isinstance(value, E.Constant) or value.value < 0:
        return "8w1"
    width = max(8, (value.value.bit_length() + 7) // 8 * 8)
    return f"{width}w{format_expr(value)}"
