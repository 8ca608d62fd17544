"""Type checker, part 6: parsers and controls used inside other parsers and controls.

A sub-block instance (``compute() c;``) and a direct invocation (``compute.apply(h);``,
which p4c's ``InstantiateDirectCalls`` turns into an anonymous instance named after the
type) are recorded as ``ir.program.BlockInstance`` in the enclosing block; their
``apply`` calls keep every argument in parameter order, defaults filled in, so the
inlining pass (``dataplane.lang.inline``) can pair parameters and arguments by position.
"""
from __future__ import annotations

import dataclasses
from contextlib import contextmanager

from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import Annotation
from dataplane.lang.check.types import UNKNOWN, is_unknown
from dataplane.lang.scope import Symbol


class BlockMixin:
    """Sub-parser and sub-control instances, their constructor arguments and apply calls."""

    @contextmanager
    def block_body(self, kind: str, d):
        """Check parser or control ``d``'s locals and body inside; yields the list its sub-block instances go to."""
        outer = (self.block_kind, self.block_scope, self.subblocks)
        self.block_decls[d.name] = d
        self.subblocks = subblocks = []
        with self.context(kind, kind):
            self.block_kind, self.block_scope = kind, self.scope
            try:
                yield subblocks
            finally:
                self.block_kind, self.block_scope, self.subblocks = outer
        # How deep instances nest below d: the inliner recurses once (or more) per level.
        self.block_depths[d.name] = 1 + max((self.block_depths.get(b.block, 1) for b in subblocks), default=0)

    def block_instance(self, d: D.Instantiation, t: T.Block, checked: E.Expr) -> P.BlockInstance | None:
        """The record of ``d``, an instance of parser or control ``t`` declared in a block."""
        holder = self.block_kind
        if holder is None:
            self.error(f"unsupported: {t.kind} '{t.name}' instantiated outside a parser or control", d.span,
                       code="unsupported")
            return None
        if t.kind != holder:
            self.error(f"a {holder} cannot instantiate {t.kind} '{t.name}'", d.span, code="instantiation")
            return None
        if t.type_params:
            self.error(f"unsupported: instance of generic {t.kind} '{t.name}'", d.span, code="unsupported")
            return None
        if self.block_depths.get(t.name, 1) >= self.limits.nesting:
            self.too_deep(d.span, f"{t.kind} instances nest in one another")
        args = self.ordered_args(t.constructor_params, getattr(checked, "args", ()), t.name, ctor=True)
        if args is None:
            return None
        return P.BlockInstance(d.name, t.name, args, d.annotations, d.span)

    def direct_apply(self, e: E.Call, target: E.TypeMember, type_args) -> E.Expr | None:
        """``Type.apply(...)`` on a parser or control type: an anonymous instance, then its apply.

        Returns None when ``target`` is not such a call.
        """
        t = self.types.get(target.type_name)
        if not isinstance(t, T.Block) or t.kind not in ("parser", "control") or target.member != "apply":
            return None
        if t.constructor_params:
            self.error(f"{t.kind} '{t.name}' has constructor parameters; instantiate it to apply it", e.span,
                       code="instantiation")
            return dataclasses.replace(e, type=UNKNOWN)
        name = self._anonymous_name(t.name)
        inst = self.block_instance(D.Instantiation(E.NamedTypeRef(t.name), (), name, span=e.span), t,
                                   E.ConstructorCall(None, (), type=t))
        if inst is None:
            return dataclasses.replace(e, type=UNKNOWN)
        # p4c names the instance after the type in the control plane (@name("Type")).
        inst = dataclasses.replace(inst, annotations=(Annotation("name", f'"{t.name}"', span=e.span),))
        self.subblocks.append(inst)
        self.block_scope.declare(Symbol(name, "instance", t, span=e.span))
        base = E.PathExpr(name, "instance", type=t, span=target.span)
        return self.block_apply(e, E.Member(base, "apply", span=target.span), t, type_args)

    def _anonymous_name(self, type_name: str) -> str:
        taken = {b.name for b in self.subblocks}
        name, i = type_name, 0
        while name in taken or name in self.block_scope.names:
            i += 1
            name = f"{type_name}_{i}"
        return name

    def block_apply(self, e: E.Call, member: E.Member, t: T.Block, type_args) -> E.Expr:
        """``inst.apply(args)`` on a parser or control instance (or constructor parameter)."""
        if t.kind == "control":
            if self.in_context("parser"):
                self.error(f"control '{t.name}' cannot be applied in a parser", e.span, code="invalid-context")
            elif self.in_context("action") or self.in_context("function") or not self.in_context("apply"):
                self.error(f"control '{t.name}' can only be applied in a control's apply block", e.span,
                           code="invalid-context")
        elif t.kind == "parser" and not self.in_context("parser"):
            self.error(f"parser '{t.name}' can only be applied in a parser state", e.span, code="invalid-context")
        call = self._finish_call(e, member, [T.Method("apply", t.params)], f"'{t.name}.apply'", {}, type_args)
        if is_unknown(call.type):
            return call
        args = self.ordered_args(t.params, call.args, t.name, ctor=False)
        if args is None:
            return dataclasses.replace(call, type=UNKNOWN)
        return dataclasses.replace(call, args=tuple(E.Argument(a, span=a.span) for a in args))

    def ordered_args(self, params: tuple[T.Param, ...], args: tuple[E.Argument, ...], block: str,
                     ctor: bool) -> tuple[E.Expr, ...] | None:
        """Checked ``args`` in the order of ``params``; a missing one takes its declared default."""
        positional = [a for a in args if not a.name]
        named = {a.name: a for a in args if a.name}
        decl = self.block_decls.get(block)
        decls = (decl.ctor_params if ctor else decl.params) if decl is not None else ()
        out = []
        for i, p in enumerate(params):
            arg = positional[i] if i < len(positional) else named.get(p.name)
            if arg is not None and arg.value is not None:
                out.append(arg.value)
                continue
            default = next((pd.default for pd in decls if pd.name == p.name), None)
            if default is None:
                if arg is not None:   # `_` for an out argument
                    out.append(E.DontCareExpr(type=p.type, span=arg.span))
                    continue
                return None  # check_args has reported it
            out.append(self.convert(self.check_expr(default, p.type), p.type, f"default of parameter '{p.name}'"))
        return tuple(out)

