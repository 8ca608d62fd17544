"""Type checker, part 7: what a parameter, a variable or a struct field may have as its type.

p4c's rules (``TypeInference::checkParameters`` and friends): extern instances and
strings are passed directionless; compile-time ``int`` parameters are directionless and
never action parameters; actions take no extern instances (that an action a table lists
takes only data the control plane can write is p4c's P4Info rule: ``control/p4info``); no
variable or struct field holds a string or an ``int``; a local may not reuse the name of
a parameter of its parser, control, action or function.
"""
from __future__ import annotations

from dataplane.errors import Span
from dataplane.ir import decl as D
from dataplane.ir import types as T
from dataplane.lang.check.types import is_unknown


def _directionless_only(t: T.Type) -> bool:
    return isinstance(t, (T.Extern, T.String, T.InfInt))


class ParamRulesMixin:
    """Checks on parameter lists, action parameters, variables and struct fields."""

    def check_param_direction(self, p: T.Param, decl: D.ParamDecl) -> None:
        """Extern, string and int parameters carry no direction."""
        if p.direction and not is_unknown(p.type) and _directionless_only(p.type):
            what = "int" if isinstance(p.type, T.InfInt) else str(p.type)
            self.error(f"parameter '{p.name}' has type {what} and cannot be '{p.direction}': "
                       f"{_kind(p.type)} parameters are directionless", decl.span, code="invalid-type")

    def check_bound_direction(self, param: T.Param, bound: T.Type, what: str, span: Span) -> None:
        """A generic ``in T`` parameter whose ``T`` the call binds to a string or an extern."""
        if param.direction and isinstance(bound, (T.Extern, T.String)):
            self.error(f"argument '{param.name}' of {what}: {param.type} is {bound} here, and "
                       f"{_kind(bound)} parameters cannot be '{param.direction}'", span, code="invalid-declaration")

    def check_action_params(self, name: str, params: tuple[T.Param, ...], decls: tuple[D.ParamDecl, ...]) -> None:
        """Actions take no extern instances and no compile-time ints."""
        for p, d in zip(params, decls):
            if isinstance(p.type, T.Extern):
                self.error(f"action '{name}': parameter '{p.name}' cannot have extern type {p.type}", d.type_ref.span,
                           code="invalid-type")
            elif isinstance(p.type, T.InfInt) and not p.direction:
                self.error(f"action '{name}': parameter '{p.name}' cannot have type int; give it a width "
                           "(bit<W> or int<W>)", d.type_ref.span, code="invalid-type")

    def check_value_type(self, t: T.Type, what: str, span: Span) -> bool:
        """Strings and compile-time ints are not values a variable or a field can hold."""
        if isinstance(t, T.String) or isinstance(t, T.InfInt):
            self.error(f"{what} cannot have type {'int' if isinstance(t, T.InfInt) else t}; "
                       f"{'use bit<W> or int<W>' if isinstance(t, T.InfInt) else 'strings exist only as literals and directionless parameters'}",
                       span, code="invalid-type")
            return False
        return True

    def check_shadowed_param(self, name: str, span: Span) -> None:
        """A declaration named like a parameter of an enclosing block hides it; p4c reports that as an error.

        Only enclosing scopes count: a parameter and a local in one scope are a duplicate.
        """
        scope = self.scope.parent
        while scope is not None:
            sym = scope.names.get(name)
            if sym is not None:
                if sym.kind == "param":
                    self.error(f"declaration of '{name}' shadows a parameter '{name}' "
                               f"(declared at line {sym.span.line})", span, code="duplicate")
                return
            scope = scope.parent


def _kind(t: T.Type) -> str:
    if isinstance(t, T.Extern):
        return "extern instance"
    if isinstance(t, T.InfInt):
        return "int"
    return "string"
