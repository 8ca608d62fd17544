"""Type checker, part 7: instance initializers, ``E() e = { ... };``, and ``this``.

An extern may declare ``abstract`` methods that each instance implements in an initializer:
functions whose names and signatures match the abstract methods (with the extern's type
parameters bound to the instance's type arguments), and instances those functions use.
Inside them ``this`` is the instance. Every abstract method must be implemented, and only
abstract methods may be.
"""
from __future__ import annotations

from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.lang.check.call import subst
from dataplane.lang.check.types import UNKNOWN
from dataplane.lang.scope import Symbol


class InitializerMixin:
    """Checks initializers against the extern's abstract methods; resolves ``this``."""

    def check_initializer(self, d: D.Instantiation, t: T.Type) -> tuple[P.Function, ...]:
        abstract = dict(getattr(t, "abstract", ()))     # name -> required (not @optional)
        required = [name for name, needed in abstract.items() if needed]
        if d.initializer is None:
            if required:
                self.error(f"instance '{d.name}' must implement the abstract method(s) {_names(required)} of "
                           f"extern '{t.name}': {t.name}(...) {d.name} = {{ ... }};", d.span, code="abstract-method")
            return ()
        if not isinstance(t, T.Extern) or not abstract:
            self.error(f"'{d.name}' has an initializer, but {t} has no abstract methods to implement", d.span,
                       code="abstract-method")
            return ()
        bindings = dict(zip(t.type_params, t.type_args))
        wanted = {m.name: m for m in t.methods if m.name in abstract}
        functions = []
        outer = self.scope
        self.scope = outer.child("initializer")
        try:
            self.declare_value(Symbol("this", "instance", t, span=d.span))
            for item in d.initializer:
                if isinstance(item, D.Instantiation):
                    self.check_instantiation(item, top=False)
                    continue
                f = self.check_function(item)
                functions.append(f)
                self._match_abstract(item, f, wanted.pop(item.name, None), bindings, t)
        finally:
            self.scope = outer
        missing = [name for name in wanted if abstract[name]]
        if missing:
            self.error(f"instance '{d.name}' does not implement the abstract method(s) {_names(missing)} "
                       f"of extern '{t.name}'", d.span, code="abstract-method")
        return tuple(functions)

    def _match_abstract(self, d: D.FunctionDecl, f: P.Function, m: T.Method | None, bindings: dict,
                        t: T.Extern) -> None:
        if m is None:
            self.error(f"'{d.name}' is not an abstract method of extern '{t.name}'", d.span, code="abstract-method")
            return
        # Parameters pair up by name when every name is the method's, else by position; the
        # implementation may leave out the method's @optional parameters.
        names = {p.name: p for p in m.params}
        if all(p.name in names for p in f.params):
            pairs = [(names[p.name], p) for p in f.params]
            left_out = [p for p in m.params if p.name not in {q.name for q in f.params}]
        else:
            pairs = list(zip(m.params, f.params))
            left_out = list(m.params[len(f.params):])
        ok = (subst(m.ret, bindings) == f.ret and len(f.params) <= len(m.params)
              and all((w.direction, subst(w.type, bindings)) == (h.direction, h.type) for w, h in pairs)
              and all(p.has_default for p in left_out))
        if not ok:
            self.error(f"'{d.name}' does not match the abstract method it implements: {m}", d.span,
                       code="abstract-method")

    def visit_This(self, e: E.This, expected) -> E.Expr:
        sym = self.scope.lookup("this")
        if sym is None:
            self.error("'this' can only be used in the methods of an instance's initializer", e.span,
                       code="invalid-context")
            return E.This(type=UNKNOWN, span=e.span)
        return E.This(type=sym.type, span=e.span)


def _names(names) -> str:
    return ", ".join(f"'{n}'" for n in names)
