"""The flattening of one top-level parser or control (see ``dataplane.lang.inline``): the locals
each instance brings in, how its parameters bind, and a control's ``apply`` calls inlined.
"""
from __future__ import annotations

import dataclasses

from dataplane.errors import DiagnosticSink, Span
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.ir.node import annotation, walk
from dataplane.lang.inline.rewrite import Env, Inst, Rewriter
from dataplane.lang.inline.support import (
    has_call,
    has_return,
    header_resets,
    locations,
    name_annotation,
    overlap,
    remove_returns,
    same,
)
from dataplane.lang.limits import DEFAULT_LIMITS, CompileLimits, LimitExceeded


class CopyBudget:
    """The IR nodes inlining may still copy (``CompileLimits.inline_nodes``): every call of a
    sub-block copies its body, so a control applying an instance twice, whose type does the
    same, and so on 40 times, would copy its innermost body 2**40 times."""

    def __init__(self, limits: CompileLimits = DEFAULT_LIMITS):
        self.limit = limits.inline_nodes
        self.left = self.limit
        self.sizes: dict[str, int] = {}

    def spend(self, decl: P.Parser | P.Control, span: Span) -> None:
        """Count a copy of ``decl`` (its body or states and its actions) inlined at ``span``."""
        size = self.sizes.get(decl.name)
        if size is None:
            roots: list = [decl.body] if isinstance(decl, P.Control) else \
                [s for st in decl.states.values() for s in st.stmts]
            roots += [a.body for a in getattr(decl, "actions", {}).values()]
            size = self.sizes[decl.name] = 1 + sum(1 for root in roots for _ in walk(root))
        self.left -= size
        if self.left < 0:
            raise LimitExceeded(f"inlining sub-parsers and sub-controls copies more than {self.limit} nodes of the "
                                "program (the limit of the compiler, lang/limits.py); it was at this call", span)


class Flattener:
    """Flattens one top-level parser or control: collects the locals its instances bring in."""

    def __init__(self, program: P.Program, sink: DiagnosticSink, top: P.Parser | P.Control,
                 copies: CopyBudget | None = None):
        self.program = program
        self.sink = sink
        self.top = top
        self.copies = copies or CopyBudget()
        self.decls: dict[str, P.Parser | P.Control] = {**program.parsers, **program.controls}
        self.variables: list[P.Variable] = []
        self.instances: list[P.ExternInstance] = []
        self.actions: dict[str, P.Action] = {}
        self.tables: dict[str, P.Table] = {}
        self.states: dict[str, P.ParserState] = {}
        # Names as the engine spells them in Python (dots as "__"), so no two can meet there.
        self.used: set[str] = {_mangle(n) for n in [v.name for v in top.variables] + [i.name for i in top.instances]
                               + list(getattr(top, "actions", ())) + list(getattr(top, "tables", ()))
                               + list(getattr(top, "states", ()))}
        self.stack: list[str] = [top.name]   # blocks being inlined, against recursive instantiation
        self.returns: dict[str, bool] = {}   # by control name: whether its declared body has a return

    # ---- names ------------------------------------------------------------------------------------------
    def fresh(self, base: str) -> str:
        name, i = base, 0
        while _mangle(name) in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(_mangle(name))
        return name

    def add_variable(self, base: str, t: T.Type, span: Span, init: E.Expr | None = None) -> str:
        name = self.fresh(base)
        self.variables.append(P.Variable(name, t, init, span))
        return name

    def is_block_level(self, e: E.Expr) -> bool:
        """Whether every name in ``e`` can be read from the block's actions and tables (not a statement local)."""
        locals_ = {v.name for v in self.variables}
        return all(n.ref != "local" or n.name in locals_ for n in walk(e) if isinstance(n, E.PathExpr))

    def error(self, message: str, span: Span, code: str) -> None:
        self.sink.error(message, span, code)

    # ---- the top-level block --------------------------------------------------------------------------
    def top_env(self, args: tuple[E.Expr, ...]) -> tuple[Env, Rewriter]:
        top = self.top
        env = Env("", "")
        params = top.ctor_params
        if len(args) == len(params):
            env.values.update({p.name: a for p, a in zip(params, args)})
        rw = Rewriter(env, self, rename_decls=False)
        self.variables = [dataclasses.replace(v, init=rw.expr(v.init)) for v in top.variables]
        self.instances = [dataclasses.replace(i, args=tuple(rw.expr(a) for a in i.args)) for i in top.instances]
        self.add_subblocks(top, env, rw)
        return env, rw

    def flatten_control(self, args: tuple[E.Expr, ...]) -> P.Control:
        top: P.Control = self.top
        env, rw = self.top_env(args)
        for a in top.actions.values():
            self.actions[a.name] = self.action(rw, a, a.name, a.annotations)
        for t in top.tables.values():
            self.tables[t.name] = self.table(rw, t, t.name, t.annotations)
        body = rw.block(top.body)
        return dataclasses.replace(top, variables=tuple(self.variables), instances=tuple(self.instances),
                                   actions=self.actions, tables=self.tables, body=body, subblocks=(), ctor_params=())

    # ---- instances ----------------------------------------------------------------------------------------
    def add_subblocks(self, decl, env: Env, rw: Rewriter) -> None:
        """Record ``decl``'s parser/control instances in ``env`` (their locals come at the first apply)."""
        for b in decl.subblocks:
            callee = self.decls[b.block]
            values, blocks = {}, {}
            for p, a in zip(callee.ctor_params, b.args):
                if isinstance(a.type, T.Block):
                    inst = env.blocks.get(a.name) if isinstance(a, E.PathExpr) else None
                    if inst is None:
                        self.error(f"unsupported: argument '{p.name}' of '{b.name}' must name a {a.type.kind} "
                                   f"instance", b.span, code="unsupported")
                        continue
                    inst.escaped = True   # applied from inside another block
                    blocks[p.name] = inst
                else:
                    values[p.name] = rw.expr(a)
            alias = annotation(b.annotations, "name")
            own = alias.string_value if alias is not None else b.name
            cp = own if own.startswith(".") else (env.cp + "." + own if env.cp else own)
            env.blocks[b.name] = Inst(callee, env.prefix + b.name, cp, values, blocks)
        sites = _apply_sites(decl)
        for name, calls in sites.items():
            inst = env.blocks.get(name)
            if inst is not None:
                inst.sites = calls

    def instantiate(self, inst: Inst, args: list[E.Expr], span: Span) -> None:
        """Bring ``inst``'s locals into the flattened block at its first apply; decide its parameters."""
        decl = inst.decl
        env = Env(inst.name + ".", inst.cp, dict(inst.values), {}, dict(inst.blocks))
        inst.env = env
        self.bind_params(inst, args, span)
        names = env.names
        for v in decl.variables:
            names[("local", v.name)] = self.fresh(env.prefix + v.name)
        for i in decl.instances:
            names[("instance", i.name)] = self.fresh(env.prefix + i.name)
            if i.extern == "value_set":   # select keysets name it as a value_set
                names[("value_set", i.name)] = names[("instance", i.name)]
        for kind, items in (("action", getattr(decl, "actions", {})), ("table", getattr(decl, "tables", {}))):
            for n in items:
                names[(kind, n)] = self.fresh(env.prefix + n)
        rw = Rewriter(env, self, rename_decls=True)
        for v in decl.variables:
            self.variables.append(P.Variable(names[("local", v.name)], v.type, rw.expr(v.init), v.span))
        for i in decl.instances:
            self.instances.append(dataclasses.replace(
                i, name=names[("instance", i.name)], args=tuple(rw.expr(a) for a in i.args),
                annotations=self.cp_annotations(env, i.name, i.annotations, i.span)))
        self.add_subblocks(decl, env, rw)
        if isinstance(decl, P.Control):
            for a in decl.actions.values():
                new = names[("action", a.name)]
                self.actions[new] = self.action(rw, a, new, self.cp_annotations(env, a.name, a.annotations, a.span))
            for t in decl.tables.values():
                new = names[("table", t.name)]
                self.tables[new] = self.table(rw, t, new, self.cp_annotations(env, t.name, t.annotations, t.span))

    def bind_params(self, inst: Inst, args: list[E.Expr], span: Span) -> None:
        """Each apply parameter reads as its argument (``direct``) or as a temporary (``temp``).

        p4c's ``GeneralInliner::inline_subst``: arguments replace parameters when every call
        passes the same ones and no two overlap (and, as p4c orders side effects first, have
        no call). A parameter the instance's actions, tables or sub-instances read also needs
        an argument they can read (not a statement-level local of the caller, which p4c would
        have moved to the block) and that no action parameter name hides.
        """
        env = inst.env
        params = inst.decl.params
        same_sites = all(len(s) == len(inst.sites[0]) and all(same(a, b) for a, b in zip(s, inst.sites[0]))
                         for s in inst.sites)
        locs = [locations(a) for a in args]
        captured = _action_param_names(inst.decl, self.decls)
        outside = _params_read_outside_body(inst.decl)
        for i, (p, a) in enumerate(zip(params, args)):
            if not p.direction:
                env.values[p.name] = a
                inst.modes[p.name] = "value"
                continue
            aliased = any(overlap(locs[i], locs[j]) for j, q in enumerate(params) if j != i and q.direction)
            names = {n.name for n in walk(a) if isinstance(n, E.PathExpr)}
            reachable = p.name not in outside or (self.is_block_level(a) and not names & captured)
            if same_sites and not inst.escaped and not aliased and not isinstance(a, E.DontCareExpr) \
                    and not has_call(a) and reachable:
                env.values[p.name] = a
                inst.modes[p.name] = "direct"
                continue
            temp = self.add_variable(env.prefix + p.name, p.type, span)
            env.values[p.name] = E.PathExpr(temp, "local", type=p.type, span=span)
            inst.modes[p.name] = "temp"

    def cp_annotations(self, env: Env, name: str, annotations: tuple, span: Span) -> tuple:
        """``@name`` of an inlined table, action or extern instance: p4c's name relative to the top block."""
        alias = annotation(annotations, "name")
        own = alias.string_value if alias is not None else name
        return name_annotation(annotations, own if own.startswith(".") else f"{env.cp}.{own}", span)

    def callee(self, rw: Rewriter, call: E.Call) -> Inst | None:
        base = call.target.expr
        inst = rw.env.blocks.get(base.name)
        if inst is None:
            self.error(f"unsupported: applying '{base.name}' here", call.span, code="unsupported")
            return None
        if inst.decl.name in self.stack:
            self.error(f"{inst.decl.name} instantiates itself (recursive instantiation)", call.span, code="recursion")
            return None
        return inst

    def bind_call(self, rw: Rewriter, inst: Inst, call: E.Call) -> list[E.Expr]:
        """The call's arguments in the flattened block, the instance's locals brought in at its first call."""
        args = [rw.expr(a.value) for a in call.args]
        if inst.env is None:
            self.instantiate(inst, args, call.span)
        else:
            for p, a in zip(inst.decl.params, args):
                if inst.modes.get(p.name) == "value" and not same(a, inst.env.values[p.name]):
                    self.error(f"directionless parameter '{p.name}' of '{inst.decl.name}' must get the same value "
                               f"at every apply", a.span, code="sub-block")
        return args

    def copy_in(self, inst: Inst, args: list[E.Expr], span: Span) -> list[S.Stmt]:
        out: list[S.Stmt] = []
        for p, a in zip(inst.decl.params, args):
            mode = inst.modes[p.name]
            target = inst.env.values[p.name] if mode == "temp" else a
            if mode == "temp" and p.direction in ("in", "inout"):
                out.append(S.Assign(target, a, span=span))
            elif mode != "value" and p.direction == "out":
                out += header_resets(target, p.type, span)
        return out

    def copy_out(self, inst: Inst, args: list[E.Expr], span: Span) -> list[S.Stmt]:
        return [S.Assign(a, inst.env.values[p.name], span=span) for p, a in zip(inst.decl.params, args)
                if inst.modes[p.name] == "temp" and p.direction in ("out", "inout")
                and not isinstance(a, E.DontCareExpr)]

    # ---- control apply ------------------------------------------------------------------------------------
    def apply(self, rw: Rewriter, call: E.Call) -> list[S.Stmt]:
        """``inst.apply(args);`` in a control: the inlined body between copy-in and copy-out."""
        inst = self.callee(rw, call)
        if inst is None:
            return []
        if isinstance(inst.decl, P.Parser):
            self.error("unsupported: a sub-parser call inside a conditional or block of a state", call.span,
                       code="unsupported")
            return []
        self.copies.spend(inst.decl, call.span)
        args = self.bind_call(rw, inst, call)
        stmts = self.copy_in(inst, args, call.span)
        self.stack.append(inst.decl.name)
        body = Rewriter(inst.env, self, rename_decls=True).block(inst.decl.body)
        self.stack.pop()
        # The rewritten body keeps the declared body's returns and no others (those of the sub-controls
        # inlined into it are gone): asking the declared body, once, keeps a deep nest linear.
        if inst.decl.name not in self.returns:
            self.returns[inst.decl.name] = has_return(inst.decl.body.stmts)
        if self.returns[inst.decl.name]:
            flag = E.PathExpr(self.fresh(inst.env.prefix + "hasReturned"), "local", type=T.BOOL, span=call.span)
            decl = S.VarDecl(E.BaseTypeRef("bool"), flag.name, E.BoolLiteral(False, type=T.BOOL), resolved=T.BOOL,
                             span=call.span)
            body = dataclasses.replace(body, stmts=(decl,) + tuple(remove_returns(body.stmts, flag)))
        stmts.append(body)
        stmts += self.copy_out(inst, args, call.span)
        return [S.BlockStmt(tuple(stmts), span=call.span)]

    # ---- actions and tables of an instance -----------------------------------------------------------------------
    def action(self, rw: Rewriter, a: P.Action, name: str, annotations: tuple) -> P.Action:
        rw.push({p.name: None for p in a.params})   # an action's parameters shadow the block's names
        try:
            body = rw.block(a.body)
        finally:
            rw.pop()
        return dataclasses.replace(a, name=name, body=body, annotations=annotations)

    def table(self, rw: Rewriter, t: P.Table, name: str, annotations: tuple) -> P.Table:
        def call(c: P.ActionCall) -> P.ActionCall:
            return dataclasses.replace(c, action=rw.new_name("action", c.action),
                                       args=tuple(rw.expr(x) for x in c.args))

        def inst(n: str | None) -> str | None:
            return rw.new_name("instance", n) if n is not None else None

        return dataclasses.replace(
            t, name=name, annotations=annotations,
            keys=tuple(dataclasses.replace(k, expr=rw.expr(k.expr)) for k in t.keys),
            actions=tuple(call(c) for c in t.actions), default_action=call(t.default_action),
            entries=tuple(dataclasses.replace(e, action=call(e.action)) for e in t.entries),
            implementation=inst(t.implementation), counters=inst(t.counters), meters=inst(t.meters),
            properties=tuple((n, rw.expr(v)) for n, v in t.properties))


def _mangle(name: str) -> str:
    return name.replace(".", "__")


def _apply_sites(decl) -> dict[str, list[tuple[E.Expr, ...]]]:
    """Each instance's apply calls in ``decl`` (its arguments, as written there)."""
    roots = [decl.body] if isinstance(decl, P.Control) else [s for st in decl.states.values() for s in st.stmts]
    sites: dict[str, list[tuple[E.Expr, ...]]] = {}
    for root in roots:
        for n in walk(root):
            if isinstance(n, E.Call) and isinstance(n.target, E.Member) and n.target.member == "apply" \
                    and isinstance(n.target.expr, E.PathExpr) and isinstance(n.target.expr.type, T.Block):
                sites.setdefault(n.target.expr.name, []).append(tuple(a.value for a in n.args))
    return sites


def _params_read_outside_body(decl) -> set[str]:
    """Names of ``decl``'s apply parameters read outside its apply body or states (in its actions,
    tables, variable initializers), or passed on to one of its own instances."""
    roots: list = [v.init for v in decl.variables if v.init is not None]
    for a in getattr(decl, "actions", {}).values():
        roots.append(a.body)
    for t in getattr(decl, "tables", {}).values():
        roots += [k.expr for k in t.keys] + [v for _, v in t.properties]
        roots += [x for c in t.actions + (t.default_action,) for x in c.args]
    for calls in _apply_sites(decl).values():
        roots += [a for args in calls for a in args if a is not None]
    return {n.name for root in roots for n in walk(root) if isinstance(n, E.PathExpr) and n.ref == "param"}


def _action_param_names(decl, decls: dict) -> set[str]:
    """Parameter names of the actions of ``decl`` and of the blocks it instantiates: an argument
    naming one of them would be captured inside those actions if substituted there."""
    names: set[str] = set()
    for a in getattr(decl, "actions", {}).values():
        names.update(p.name for p in a.params)
    for b in decl.subblocks:
        if b.block != decl.name and b.block in decls:
            names |= _action_param_names(decls[b.block], decls)
    return names
