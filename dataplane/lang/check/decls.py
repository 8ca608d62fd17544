"""Type checker: rules on declarations p4c checks before any use.

Type parameters are distinct and no parameter reuses their names; an extern's
constructor has no return type and no method is declared twice with the same parameters;
``type`` applies to bit<W>, int<W>, bool or another
``type``; a tuple holds no strings or ``_``; ``out`` and ``@optional`` parameters have
no default value; methods return no ``int``; a parser or control is not named inside
itself; a top-level function or action does not reuse a type's name; annotations p4c
reads have the bodies it expects (``@name`` and ``@deprecated`` a string, a structured
annotation's name used once and its values constants, ``@pkginfo`` with key=value pairs).
"""
from __future__ import annotations

import re

from dataplane.errors import Span
from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.lang.check.types import is_unknown

_STRING = re.compile(r'^\s*"(?:[^"\\]|\\.)*"\s*$', re.S)


def _is_string(body: str) -> bool:
    return bool(_STRING.match(body))


class DeclRulesMixin:
    """Checks on declarations: type parameters, externs, headers, ``type``, tuples, annotations."""

    def check_type_params(self, type_params: tuple[str, ...], params: tuple[D.ParamDecl, ...], span: Span) -> None:
        """Type parameters are distinct, and no value parameter is named like one."""
        seen: set[str] = set()
        for n in type_params:
            if n in seen:
                self.error(f"type parameter '{n}' is declared twice", span, code="duplicate")
                return
            seen.add(n)
        for p in params:
            if p.name in seen:
                self.error(f"parameter '{p.name}' has the name of a type parameter", p.span, code="invalid-declaration")
                return

    def check_param_default(self, p: D.ParamDecl, t: T.Type) -> None:
        """A default value is a compile-time constant of the parameter's type; ``out`` and
        ``@optional`` parameters have none."""
        if p.default is None:
            return
        if p.direction == "out":
            self.error(f"parameter '{p.name}' is 'out' and cannot have a default value", p.span, code="invalid-type")
        elif any(a.name == "optional" for a in p.annotations):
            self.error(f"parameter '{p.name}' is @optional and cannot also have a default value", p.span,
                       code="invalid-declaration")
        elif not is_unknown(t):
            value = self.convert(self.check_expr(p.default, t), t, f"the default value of '{p.name}'")
            if not is_unknown(value.type) and not self._ctor_constant(value):
                self.error(f"the default value of parameter '{p.name}' must be a compile-time constant",
                           p.default.span, code="not-constant")

    def check_generic_fields(self, d: D.StructTypeDecl) -> None:
        """A generic header or header_union's fields: no tuples or stacks whatever the type arguments."""
        for f in d.fields:
            if isinstance(f.type_ref, (E.TupleRef, E.StackRef)) or (
                    d.kind == "header_union" and not isinstance(f.type_ref, E.NamedTypeRef)):
                if d.kind != "struct":
                    self.error(f"{d.kind} field '{f.name}' cannot have a tuple or stack type", f.span,
                               code="invalid-type")
                    return

    def check_extern_decl(self, d: D.ExternDecl) -> None:
        """A constructor has no return type; a method or constructor is not declared twice alike."""
        seen: dict[tuple, D.MethodDecl] = {}
        for m in d.methods:
            if m.name == d.name and m.ret is not None:
                self.error(f"constructor '{m.name}' of extern '{d.name}' cannot have a return type", m.span,
                           code="invalid-type")
                continue
            sig = (m.name, tuple(p.name for p in m.params))
            if sig in seen:
                self.error(f"'{m.name}' is declared twice in extern '{d.name}' with the same parameters "
                           f"(first at line {seen[sig].span.line})", m.span, code="duplicate")
            seen[sig] = m

    def check_method_return(self, ret: T.Type, span: Span) -> None:
        """A method cannot return a compile-time ``int``."""
        if isinstance(ret, T.InfInt):
            self.error("a method cannot return int; give the result a width (bit<W> or int<W>)", span,
                       code="invalid-type")

    def check_newtype_base(self, d: D.TypedefDecl, base: T.Type) -> bool:
        """``type`` gives a new name to bit<W>, int<W>, bool or another ``type``."""
        if is_unknown(base) or isinstance(base, (T.Bits, T.Bool, T.NewType, T.InfInt)):  # p4c also takes int
            return True
        self.error(f"'type' applies only to bit<W>, int<W>, bool or another 'type', not {base} ('{d.name}'); "
                   "use typedef", d.span, code="invalid-type")
        return False

    def check_tuple_elements(self, elements: tuple[T.Type, ...], span: Span) -> bool:
        for t in elements:
            if isinstance(t, (T.String, T.DontCare, T.Block, T.Extern)):
                what = (f"{t.kind} {t.name}" if isinstance(t, T.Block) else f"extern {t}" if isinstance(t, T.Extern)
                        else f"a value of type {t}")
                self.error(f"a tuple cannot hold {what}", span, code="invalid-type")
                return False
        return True

    def check_recursion(self, name: str, span: Span) -> bool:
        """A call of the function being checked: P4 has no recursion (p4c: the name is not found)."""
        if name in self.functions_being_checked:
            self.error(f"function '{name}' calls itself; P4 has no recursion", span, code="recursion")
            return True
        return False

    def check_self_reference(self, name: str, span: Span) -> bool:
        """A parser or control cannot name itself inside its own declaration."""
        if name in self.blocks_being_checked:
            self.error(f"'{name}' is used inside its own declaration; a parser or control cannot refer to "
                       "itself", span, code="recursion")
            return False
        return True

    def check_type_args(self, generic: str, args: tuple[T.Type, ...], span: Span, struct: bool) -> bool:
        """Type arguments cannot contain the generic type itself; a struct's cannot be parsers or controls."""
        for a in args:
            if self._mentions(a, generic, set()):
                self.error(f"'{generic}' cannot have itself as a type argument ({a})", span, code="invalid-type")
                return False
            if struct and isinstance(a, T.Block):
                self.error(f"{a.kind} '{a.name}' cannot be a type argument of '{generic}'", span, code="invalid-type")
                return False
        return True

    def _mentions(self, t: T.Type, name: str, seen: set) -> bool:
        """Whether type ``t`` is, or is built from, a specialization of the generic type ``name``."""
        if id(t) in seen:
            return False
        seen.add(id(t))
        if isinstance(t, T.Extern):
            return t.name == name or any(self._mentions(a, name, seen) for a in t.type_args)
        if isinstance(t, T.Block):
            return any(self._mentions(p.type, name, seen) for p in t.params + t.constructor_params)
        if isinstance(t, T.StructLike):
            origin = self.specialized_from.get(t.name)
            return origin == name or any(self._mentions(f.type, name, seen) for f in t.fields)
        if isinstance(t, (T.Tuple,)):
            return any(self._mentions(x, name, seen) for x in t.elements)
        if isinstance(t, (T.Stack, T.P4List)):
            return self._mentions(t.element, name, seen)
        return False

    def check_declared_name(self, d) -> None:
        """'main' names the package instance, not a type. (A function or block named main is
        unused and p4c drops it before it looks for main.)"""
        types = (D.ExternDecl, D.StructTypeDecl, D.EnumDecl, D.TypedefDecl, D.BlockTypeDecl)
        if getattr(d, "name", None) == "main" and isinstance(d, types):
            self.error("'main' is reserved for the package instance (e.g. V1Switch(...) main;)", d.span,
                       code="reserved")

    def check_field_annotations(self, d: D.StructTypeDecl) -> None:
        """``@match(kind)`` on a value_set struct's field names a match_kind; ``@length(e)`` on a
        header's varbit names only fields declared before it or constants (p4c resolves e there:
        spec-ex32_e.p4)."""
        earlier: set[str] = set()
        for f in d.fields:
            for a in f.annotations:
                if a.name == "match" and a.body.strip() not in self.match_kinds:
                    self.error(f"@match needs a match_kind ({', '.join(self.match_kinds)}), not "
                               f"{a.body.strip() or 'nothing'}", a.span, code="annotation")
                elif a.name == "length" and not a.structured:
                    for name in _NAME.findall(_STRING_LITERAL.sub('""', a.body)):
                        sym = self.scope.lookup(name)
                        if name not in earlier and sym is None and name not in self.types and name not in _TYPE_WORDS:
                            self.error(f"@length: '{name}' is not declared (nor a field before '{f.name}')",
                                       a.span, code="annotation")
                            break
            earlier.add(f.name)

    def check_param_block_type(self, p: T.Param, decl: D.ParamDecl) -> None:
        """A parameter's type may be a parser or control type (a prototype), not a declared parser or control."""
        t = p.type
        if isinstance(t, T.Block) and t.kind in ("parser", "control") and (
                t.name in self.program.controls or t.name in self.program.parsers):
            self.error(f"parameter '{p.name}' cannot have the type of {t.kind} '{t.name}', which is a declaration; "
                       f"declare a {t.kind} type ({t.kind} {t.name}_t(...);) and use that", decl.span,
                       code="invalid-type")

    def check_top_level_name(self, d) -> None:
        """A top-level function or action is not named like a parser, control, package or other type."""
        t = self.types.get(d.name)
        if t is not None and not is_unknown(t):
            self.error(f"'{d.name}' is declared again: it already names {_describe(t)}", d.span, code="duplicate")

    def check_annotations(self, annotations: tuple) -> None:
        seen: dict[str, object] = {}
        for a in annotations:
            first = seen.get(a.name)
            if first is not None and (a.structured or first.structured):
                self.error(f"@{a.name} is given twice, and a structured annotation's name may be used once", a.span,
                           code="duplicate")
            seen.setdefault(a.name, a)
            if a.name == "name" and not a.structured and not _is_string(a.body):
                self.error(f"@name needs a string, not {a.body.strip() or 'nothing'}", a.span, code="annotation")
            elif a.name == "deprecated" and a.body.strip() and not _is_string(a.body):
                self.error(f"@deprecated needs a string, not {a.body.strip()}", a.span, code="annotation")
            elif a.structured:
                self.check_structured_values(a)
            elif a.name == "pkginfo" and "=" not in a.body:
                self.error("@pkginfo needs key=value pairs, e.g. @pkginfo(name=\"x\")", a.span, code="annotation")

    def check_structured_values(self, a) -> None:
        """A structured annotation's values are compile-time ints, strings or bools (p4c's type
        checker visits them): a list (``{2, 3}``) is an illegal type; a name must be a constant,
        not a type, an extern instance or nothing declared."""
        code = _STRING_LITERAL.sub('""', a.body)
        if "{" in code:
            self.error(f"@{a.name}: illegal type for a structured annotation value (a list); it must be an "
                       "int, a string or a bool", a.span, code="annotation")
            return
        code = _KEY.sub(" ", code)   # the keys of key=value pairs are not names
        for name in _NAME.findall(code):
            if name in ("true", "false"):
                continue
            sym = self.scope.lookup(name)
            if sym is None or sym.kind != "const":
                what = "nothing declared" if sym is None and name not in self.types else \
                    "a type" if sym is None else _KINDS.get(sym.kind, f"a {sym.kind}")
                self.error(f"@{a.name}: structured annotation values must be compile-time constants; "
                           f"'{name}' is {what}", a.span, code="annotation")
                return


_STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_KEY = re.compile(r"(?:^|,)\s*[A-Za-z_]\w*\s*=(?!=)")
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")
_TYPE_WORDS = {"bit", "int", "varbit", "bool"}
_KINDS = {"instance": "an extern instance", "action": "an action", "extern_function": "an extern function"}


def _describe(t: T.Type) -> str:
    if isinstance(t, T.Block):
        return f"{t.kind} {t.name}"
    return f"type {t}"
