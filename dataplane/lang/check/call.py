"""Type checker, part 3: calls (actions, functions, extern methods, header and table methods) and l-values."""
from __future__ import annotations

import dataclasses

from dataplane.errors import Span
from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.lang.check.infer import unbound
from dataplane.lang.check.size_methods import SIZE_METHODS, size_method_value
from dataplane.lang.check.types import UNKNOWN, is_unknown


def subst(t: T.Type, bindings: dict[str, T.Type]) -> T.Type:
    """``t`` with bound type variables replaced, also inside tuples, stacks and generic externs."""
    if isinstance(t, T.TypeVar):
        return bindings.get(t.name, t)
    if isinstance(t, T.Tuple):
        return T.Tuple(tuple(subst(x, bindings) for x in t.elements))
    if isinstance(t, T.Stack):
        return dataclasses.replace(t, element=subst(t.element, bindings))
    if isinstance(t, T.P4List):
        return T.P4List(subst(t.element, bindings))
    if isinstance(t, T.Extern) and t.type_args:
        return dataclasses.replace(t, type_args=tuple(subst(x, bindings) for x in t.type_args))
    return t


def unify(pattern: T.Type, actual: T.Type | None, bound: dict[str, T.Type]) -> None:
    """Bind the unbound type variables of ``pattern`` to the parts of ``actual`` they stand for
    (``Stack<T>`` against ``Stack<bit<16>>`` binds T)."""
    if actual is None or is_unknown(actual) or isinstance(actual, (T.InfInt, T.DontCare)):
        return
    if isinstance(pattern, T.TypeVar):
        if unbound(bound, pattern.name):  # '_' (as in E<_>) asks for inference: a typed argument binds it
            bound[pattern.name] = actual
    elif isinstance(pattern, T.Extern) and isinstance(actual, T.Extern) and pattern.name == actual.name:
        for p, a in zip(pattern.type_args, actual.type_args):
            unify(p, a, bound)
    elif isinstance(pattern, T.Tuple) and isinstance(actual, T.Tuple):
        for p, a in zip(pattern.elements, actual.elements):
            unify(p, a, bound)
    elif isinstance(pattern, (T.Stack, T.P4List)) and type(actual) is type(pattern):
        unify(pattern.element, actual.element, bound)


def _wildcards_filled(pattern: T.Type, actual: T.Type | None) -> T.Type:
    """``E<_, _>`` as a parameter type takes any ``E<...>``: the argument's own type."""
    if (isinstance(pattern, T.Extern) and isinstance(actual, T.Extern) and pattern.name == actual.name
            and any(isinstance(a, T.DontCare) for a in pattern.type_args)
            and all(isinstance(p, T.DontCare) or p == a for p, a in zip(pattern.type_args, actual.type_args))):
        return actual
    return pattern


class CallMixin:
    """Overload choice, generic inference, argument directions and writability."""

    def visit_Call(self, e: E.Call, expected: T.Type | None) -> E.Expr:
        return self.check_call(e, expected)

    def check_call(self, e: E.Call, expected: T.Type | None = None) -> E.Expr:
        target = e.target
        type_args = tuple(self.resolve(t) for t in e.type_args)
        if isinstance(target, E.PathExpr):
            return self._call_path(e, target, type_args)
        if isinstance(target, E.Member):
            return self._call_member(e, target, type_args)
        if isinstance(target, E.TypeMember):
            call = self.direct_apply(e, target, type_args)
            if call is not None:
                return call
            named = self.types.get(target.type_name)
            if target.member in SIZE_METHODS and named is not None and not isinstance(named, (T.Extern, T.Block)):
                return self._size_method(e, target.member, named)
        self.error("this expression cannot be called", e.span, code="not-callable")
        return dataclasses.replace(e, type=UNKNOWN)

    def _size_method(self, e: E.Call, name: str, t: T.Type) -> E.Expr:
        """``x.minSizeInBits()`` and its kin on a value or a type's name: an ``int`` constant."""
        if e.args:
            self.error(f"'{name}' takes no arguments", e.span, code="arity")
        value = size_method_value(name, t)
        if value is None:
            self.error(f"'{name}' needs a type with a width, not {t}", e.span, code="invalid-type")
            return dataclasses.replace(e, type=UNKNOWN)
        return E.Constant(value, type=T.INT, span=e.span)

    def _call_path(self, e, target, type_args):
        sym = self._callable(target.name, e.args)
        if sym is None and self.check_recursion(target.name, e.span):
            return dataclasses.replace(e, type=UNKNOWN)
        if sym is None:
            self.check_expr(target)  # reports the unknown name with a suggestion
            return dataclasses.replace(e, type=UNKNOWN)
        path = E.PathExpr(target.name, sym.kind, type=sym.type, span=target.span)
        if sym.kind == "action":
            if self.in_context("parser"):
                self.error(f"action '{target.name}' cannot be called from a parser", e.span, code="invalid-context")
            elif self.in_context("function"):
                self.error(f"action '{target.name}' cannot be called from a function", e.span, code="invalid-context")
            candidates = [sym.type]
        elif sym.kind == "function":
            candidates = [sym.type]
        elif sym.kind == "extern_function":
            candidates = [sym.type] + list(sym.overloads)
            if target.name == "verify" and not self.in_context("parser"):
                self.error("'verify' can only be called in a parser", e.span, code="invalid-context")
        else:
            self.error(f"'{target.name}' is not a function or action", target.span, code="not-callable")
            return dataclasses.replace(e, type=UNKNOWN)
        call = self._finish_call(e, path, candidates, f"'{target.name}'", {}, type_args)
        if sym.kind == "extern_function" and isinstance(call.target.type, T.Method):
            self.check_extern_out_args(call.target.type, call.args, f"'{target.name}'", e.span)
        if sym.kind == "extern_function" and target.name == "static_assert" and call.args:
            return self._static_assert(call)
        return call

    def _static_assert(self, call: E.Call) -> E.Expr:
        """``static_assert(check[, message])`` is evaluated at compile time (p4c): ``true`` when
        the check holds, an error when it does not or is not a compile-time constant."""
        check = call.args[0].value
        if isinstance(check, E.BoolLiteral):
            if not check.value:
                given = call.args[1].value if len(call.args) > 1 else None
                message = f": {given.value}" if isinstance(given, E.StringLiteral) else ""
                self.error(f"static_assert failed{message}", call.span, code="static-assert")
            return E.BoolLiteral(True, type=T.BOOL, span=call.span)
        if not is_unknown(check.type):
            self.error("static_assert needs a condition known at compile time", check.span, code="static-assert")
        return call

    def _callable(self, name: str, args: tuple[E.Argument, ...]):
        """The symbol a call of ``name`` with ``args`` names: the innermost one, unless it cannot
        take that many arguments and a shadowed one can (as p4c resolves a call by its arity: an
        action named ``hash`` does not hide the extern function ``hash`` from a 5-argument call)."""
        symbols = self.scope.lookup_all(name)
        if not symbols:
            return None
        for sym in symbols:
            if sym.kind in ("action", "function", "extern_function"):
                candidates = [sym.type] + list(sym.overloads)
                if any(isinstance(m, T.Method) and _arity_ok(m, args) for m in candidates):
                    return sym
        return symbols[0]

    def _call_member(self, e, target, type_args):
        base = self.check_expr(target.expr)
        bt = base.type
        name = target.member
        if is_unknown(bt):
            return dataclasses.replace(e, type=UNKNOWN)
        member = E.Member(base, name, span=target.span)
        if isinstance(bt, (T.Header, T.HeaderUnion)) and name in ("isValid", "setValid", "setInvalid"):
            if bt.kind == "header_union" and name != "isValid":
                self.error(f"header_union has no method '{name}'; set a member header valid instead", e.span,
                           code="unknown-member")
            ret = T.BOOL if name == "isValid" else T.VOID
            return self._finish_call(e, member, [T.Method(name, (), ret)], f"'{name}'", {}, type_args)
        if name in SIZE_METHODS and not isinstance(bt, T.Extern):
            return self._size_method(e, name, bt)
        if isinstance(bt, T.Stack) and name in ("push_front", "pop_front") \
                and not isinstance(bt.element, (T.Header, T.HeaderUnion)):
            self.error(f"'{name}' is for header stacks, not an array of {bt.element}", e.span, code="unknown-member")
            return dataclasses.replace(e, type=UNKNOWN)
        if isinstance(bt, T.Stack) and name in ("push_front", "pop_front"):
            if len(e.args) != 1:
                self.error(f"'{name}' expects 1 argument, got {len(e.args)}", e.span, code="arity")
                return dataclasses.replace(e, type=UNKNOWN)
            count = self.const_int(e.args[0].value, f"the argument of '{name}'")
            if count is not None and count < 0:
                self.error(f"'{name}' needs a non-negative count", e.args[0].span, code="out-of-range")
            arg = E.Argument(E.Constant(count or 0, type=T.INT, span=e.args[0].span), span=e.args[0].span)
            self.check_writable(base)
            return E.Call(member, (), (arg,), type=T.VOID, span=e.span)
        if isinstance(bt, T.Extern):
            methods = [m for m in bt.methods if m.name == name]
            if not methods:
                self.error(f"extern '{bt.name}' has no method '{name}'", target.span, code="unknown-member")
                return dataclasses.replace(e, type=UNKNOWN)
            call = self._finish_call(e, member, methods, f"'{bt.name}.{name}'", self.extern_bindings(bt), type_args)
            if isinstance(call.target.type, T.Method):
                self.check_extern_out_args(call.target.type, call.args, f"'{bt.name}.{name}'", e.span)
            if bt.name in ("packet_in", "packet_out") and name in ("extract", "emit") and call.args:
                self._check_packet_arg(name, call.args)
            if bt.name == "packet_in" and name == "lookahead" and len(type_args) == 1:
                self._check_lookahead_type(type_args[0], e.type_args[0].span)
            return call
        if isinstance(bt, T.Table) and name == "apply":
            if self.in_context("action"):
                self.error(f"table '{bt.name}' cannot be applied inside an action", e.span, code="invalid-context")
            elif not self.in_context("apply"):
                self.error(f"table '{bt.name}' can only be applied in a control's apply block", e.span,
                           code="invalid-context")
            return self._finish_call(e, member, [T.Method("apply", (), T.ApplyResult(bt.name))], f"'{bt.name}.apply'", {}, type_args)
        if isinstance(bt, T.Block) and name == "apply" and bt.kind != "package":
            return self.block_apply(e, member, bt, type_args)
        checked = self.visit_Member(target, None)
        if not is_unknown(checked.type):
            self.error(f"'{name}' is not a method of {bt}", target.span, code="unknown-member")
        return dataclasses.replace(e, type=UNKNOWN)

    def _finish_call(self, e, target, candidates, what, bindings, type_args):
        result = self.check_args(e.args, candidates, what, e.span, bindings, type_args)
        if result is None:
            return E.Call(target, (), e.args, type=UNKNOWN, span=e.span)
        method, args, bound = result
        target = dataclasses.replace(target, type=method)
        return E.Call(target, tuple(bound.get(n, T.DontCare()) for n in method.type_params), args,
                      type=subst(method.ret, bound), span=e.span)

    def check_args(self, args: tuple[E.Argument, ...], candidates: list[T.Method], what: str, span: Span,
                   bindings: dict[str, T.Type], type_args: tuple[T.Type, ...] = ()):
        """Match ``args`` to one of ``candidates``; return (method, typed args, type bindings) or None."""
        n = len(args)
        fits = [m for m in candidates if _arity_ok(m, args)]
        if not fits:
            counts = sorted({len(m.params) for m in candidates})
            expected = " or ".join(str(c) for c in counts)
            self.error(f"{what} expects {expected} argument(s), got {n}", span, code="arity")
            for a in args:
                if a.value is not None:
                    self.check_expr(a.value)
            return None
        method = fits[0]
        if sum(len(m.params) == len(method.params) for m in fits) > 1:
            self.error(f"{what} is ambiguous: {sum(len(m.params) == len(method.params) for m in fits)} declarations "
                       f"take {len(method.params)} argument(s); name the arguments to choose one", span,
                       code="ambiguous")
        bound = dict(bindings)
        if type_args:
            if len(type_args) != len(method.type_params):
                self.error(f"{what} takes {len(method.type_params)} type argument(s), got {len(type_args)}", span,
                           code="arity")
            bound.update(zip(method.type_params, type_args))
        pairs = _pair(method, args)
        checked: list[tuple[T.Param, E.Argument, E.Expr | None]] = []
        for param, arg in pairs:
            if arg is None:
                checked.append((param, None, None))
                continue
            hint = subst(param.type, bound)
            value = self.check_expr(arg.value, None if isinstance(hint, T.TypeVar) else hint)
            unify(param.type, value.type, bound)
            checked.append((param, arg, value))
        if not self.check_inferred(checked, bound, what):
            return None
        out = []
        for param, arg, value in checked:
            if arg is None:
                continue
            ptype = _wildcards_filled(subst(param.type, bound), value.type)
            if isinstance(param.type, T.TypeVar):
                self.check_bound_direction(param, ptype, what, arg.span)
            if param.direction in ("out", "inout"):
                if not isinstance(value, E.DontCareExpr):
                    writable = self.check_writable(value, f"argument '{param.name}' of {what} is '{param.direction}'; ",
                                                   arg.value)
                    if writable and not is_unknown(value.type, ptype) and not isinstance(ptype, (T.TypeVar, T.DontCare)) \
                            and value.type != ptype:
                        self.error(f"type mismatch in argument '{param.name}' of {what}: expected {ptype}, got {value.type}",
                                   arg.span, code="type-mismatch")
            else:
                value = self.convert(value, ptype, f"argument '{param.name}' of {what}")
            out.append(E.Argument(value, arg.name, span=arg.span))
        return method, tuple(out), bound

    def _check_packet_arg(self, method: str, args: tuple[E.Argument, ...]) -> None:
        """``extract`` fills a header (with a varbit field iff it is given a size); ``emit`` takes
        headers, stacks, unions and structs of those."""
        arg = args[0]
        t = arg.value.type if arg.value is not None else None
        if is_unknown(t) or isinstance(t, T.DontCare):
            return
        if method == "extract" and not isinstance(t, T.Header):
            self.error(f"'extract' needs a header, not {t}", arg.span, code="invalid-type")
        elif method == "extract":
            varbits = [f.name for f in t.fields if isinstance(f.type, T.VarBits)]
            varbit = bool(varbits)
            if len(varbits) > 1:  # p4c checks this where a header is extracted
                self.error(f"header {t} has {len(varbits)} varbit fields ({', '.join(varbits)}); a header may "
                           "have only one", arg.span, code="invalid-type")
            elif varbit and len(args) == 1:
                self.error(f"header {t} has a varbit field: extract it with its size in bits, "
                           "extract(hdr, size)", arg.span, code="invalid-type")
            elif not varbit and len(args) == 2:
                self.error(f"header {t} has no varbit field, so 'extract' takes no size argument", arg.span,
                           code="invalid-type")
        elif method == "emit" and not _emittable(t):
            self.error(f"'emit' needs a header, header stack, header_union or a struct of those, not {t}", arg.span,
                       code="invalid-type")

    # ---- l-values ----------------------------------------------------------------------------------
    def check_writable(self, e: E.Expr, prefix: str = "", raw: E.Expr | None = None) -> bool:
        """Report unless ``e`` (checked from ``raw``, if given) names something that may be written."""
        target = e.expr if isinstance(e, E.Slice) else e
        if (isinstance(target, E.Index) and isinstance(target.expr.type, T.Tuple)
                and not isinstance(T.strip_newtype(target.type), (T.StructLike, T.Stack))):
            self.error(f"{prefix}a tuple's element cannot be written on its own; assign the whole tuple", e.span,
                       code="not-writable")
            return False
        root = e
        while isinstance(root, (E.Member, E.Index, E.Slice)):
            if isinstance(root, E.Member) and isinstance(root.expr.type, T.ApplyResult):
                break
            root = root.expr
        if isinstance(root, E.PathExpr):
            sym = self.scope.lookup(root.name)
            if sym is None:
                return False
            if sym.kind == "local":
                return True
            if sym.kind == "param":
                if sym.direction in ("out", "inout"):
                    return True
                why = "it is an 'in' parameter" if sym.direction == "in" else "it is a read-only action parameter"
                self.error(f"{prefix}cannot write to '{root.name}': {why}", e.span, code="not-writable")
                return False
            self.error(f"{prefix}cannot write to '{root.name}': it is a {_kind_name(sym.kind)}", e.span,
                       code="not-writable")
            return False
        if is_unknown(e.type):
            return False
        # A constant's name is replaced by its value, so look at the expression as written.
        while isinstance(raw, (E.Member, E.Index, E.Slice)):
            raw = raw.expr
        sym = self.scope.lookup(raw.name) if isinstance(raw, E.PathExpr) else None
        if sym is not None and sym.kind == "const":
            self.error(f"{prefix}cannot write to '{raw.name}': it is a constant", e.span, code="not-writable")
            return False
        self.error(f"{prefix}this expression cannot be written to", e.span, code="not-writable")
        return False


    def _check_lookahead_type(self, t: T.Type, span: Span) -> None:
        """``lookahead<T>`` reads a fixed number of bits: no void, no varbit."""
        if isinstance(t, T.Void):
            self.error("'lookahead' cannot return void; give it the type of the bits to read", span,
                       code="invalid-type")
        elif _has_varbit(t):
            self.error(f"'lookahead' needs a fixed-width type, and {t} has a varbit field", span, code="invalid-type")


def _has_varbit(t: T.Type) -> bool:
    if isinstance(t, T.VarBits):
        return True
    if isinstance(t, T.StructLike):
        return any(_has_varbit(f.type) for f in t.fields)
    if isinstance(t, T.Stack):
        return _has_varbit(t.element)
    return False


def _emittable(t: T.Type) -> bool:
    if isinstance(t, (T.Header, T.HeaderUnion, T.Stack)):
        return True
    return isinstance(t, T.Struct) and all(_emittable(f.type) for f in t.fields)


def _kind_name(kind: str) -> str:
    return {"const": "constant", "instance": "extern instance", "extern_function": "function"}.get(kind, kind)


def _arity_ok(m: T.Method, args: tuple[E.Argument, ...]) -> bool:
    named = {a.name for a in args if a.name}
    names = {p.name for p in m.params}
    if named - names:
        return False
    if len(args) > len(m.params):
        return False
    positional = [a for a in args if not a.name]
    for i, p in enumerate(m.params):
        supplied = i < len(positional) or p.name in named
        if not supplied and not p.has_default:
            return False
    return True


def _pair(m: T.Method, args: tuple[E.Argument, ...]):
    positional = [a for a in args if not a.name]
    named = {a.name: a for a in args if a.name}
    out = []
    for i, p in enumerate(m.params):
        out.append((p, positional[i] if i < len(positional) else named.get(p.name)))
    return out

