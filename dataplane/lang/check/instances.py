"""Type checker: instantiations of parsers, controls, externs and packages (p4c's ``TypeInference``).

Constructor arguments are fixed when the program is built, so they must be compile-time
values; parsers and controls are instantiated inside other parsers and controls (or as a
package's arguments), never at the top level; only extern instances take an initializer.
"""
from __future__ import annotations

from dataplane.errors import Span
from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.ir.node import annotation
from dataplane.lang.check.types import is_unknown


class InstancesMixin:
    """Checks on constructor calls, top-level instances and applying instances."""

    def check_ctor_args(self, args: tuple[E.Argument, ...], what: str) -> None:
        """Every (typed) constructor argument is known at compile time."""
        for a in args:
            v = a.value
            if v is not None and not is_unknown(v.type) and not self._ctor_constant(v):
                self.error(f"argument of {what} must be a compile-time constant (constructor arguments are "
                           "fixed when the program is built)", a.span, code="not-constant")
                return

    def _ctor_constant(self, e: E.Expr) -> bool:
        if isinstance(e, (E.Constant, E.BoolLiteral, E.StringLiteral, E.TypeMember, E.InvalidHeader,
                          E.ConstructorCall, E.DontCareExpr)):
            return True
        if isinstance(e, E.ListExpr):
            return all(self._ctor_constant(x) for x in e.elements)
        if isinstance(e, E.StructInit):
            return all(self._ctor_constant(f.value) for f in e.fields)
        if isinstance(e, (E.Cast, E.Unary, E.Slice, E.Member)):
            inner = e.operand if isinstance(e, E.Unary) else e.expr
            return self._ctor_constant(inner)
        if isinstance(e, E.Binary):
            return self._ctor_constant(e.left) and self._ctor_constant(e.right)
        if isinstance(e, E.Mux):
            return all(self._ctor_constant(x) for x in (e.cond, e.then, e.otherwise))
        if isinstance(e, E.Call) and isinstance(e.target, E.PathExpr) and e.target.ref == "extern_function":
            # p4c: a factory (returning an extern), static_assert or a @pure function of constants
            sym = self.scope.lookup(e.target.name)
            pure = sym is not None and annotation(getattr(sym.decl, "annotations", ()), "pure") is not None
            return ((isinstance(e.type, T.Extern) or pure or e.target.name == "static_assert")
                    and all(a.value is not None and self._ctor_constant(a.value) for a in e.args))
        if isinstance(e, E.PathExpr):
            sym = self.scope.lookup(e.name)
            # Instances, constants and the enclosing block's own constructor parameters.
            return sym is not None and (sym.kind in ("instance", "const", "block")
                                        or (sym.kind == "param" and not sym.direction
                                            and not self.in_context("action")))
        return False

    def check_instance_form(self, d, t: T.Type, top: bool) -> bool:
        """Only extern instances take an initializer; the instance named main is a package's; a
        parser or control does not instantiate itself (p4c: a self-referencing type)."""
        if isinstance(t, T.Block) and not self.check_self_reference(t.name, d.span):
            return False
        if d.initializer is not None and isinstance(t, T.Block):
            self.error(f"'{d.name}': only extern instances take an initializer ({{ ... }}), not {t.kind} "
                       f"'{t.name}'", d.span, code="abstract-method")
            return False
        if top and d.name == "main" and not (isinstance(t, T.Block) and t.kind == "package"):
            self.error(f"'main' must be an instance of a package, not of {t}", d.span, code="instantiation")
            return False
        return True

    def check_abstract_construction(self, t: T.Type, span: Span) -> bool:
        """An extern with abstract methods is instantiated by a declaration with an initializer."""
        if isinstance(t, T.Extern) and getattr(t, "abstract", ()):
            self.error(f"extern '{t.name}' has abstract methods, so a constructor call cannot create one; "
                       f"declare an instance that implements them: {t.name}(...) x = {{ ... }};", span,
                       code="abstract-method")
            return False
        return True

    def check_package_inference(self, pkg: T.Block, decl, bindings: dict[str, T.Type], span: Span) -> None:
        """Every type variable of the package's block types is bound by a block, a nested package
        (which binds it in its own arguments) or a type argument."""
        needed, nested = [], set()
        for p, pd in zip(pkg.params, decl.params):
            if isinstance(p.type, T.Block) and p.type.kind == "package":
                nested |= {a.name for a in getattr(pd.type_ref, "args", ()) if isinstance(a, E.NamedTypeRef)}
            elif isinstance(p.type, T.Block):
                needed += [q.type.name for q in p.type.params if isinstance(q.type, T.TypeVar)]
        # Only variables the package declares (a prototype's own names may differ: V<H> for S<H1>).
        missing = sorted({n for n in needed if n in pkg.type_params and n not in bindings and n not in nested})
        if missing:
            self.error(f"could not infer type {', '.join(missing)} of package '{pkg.name}': no block argument "
                       f"gives it; write the type arguments, {pkg.name}<...>(...)", span, code="type-inference")

    def check_top_instance(self, t: T.Type, name: str, span: Span) -> bool:
        """Parsers and controls cannot be instantiated at the top level."""
        if isinstance(t, T.Block) and t.kind in ("parser", "control"):
            self.error(f"{t.kind} '{t.name}' cannot be instantiated at the top level ('{name}'); "
                       f"instantiate it inside the {t.kind} that applies it", span, code="instantiation")
            return False
        return True

