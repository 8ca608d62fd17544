"""Parsers, controls (with their actions and tables) and deparsers to Python functions.

Every function is generated inside ``build(_rt)`` so that each switch gets its own
closures over its own tables and extern instances.
"""
from __future__ import annotations

from dataplane.engine.codegen.expr import is_scalar, mask
from dataplane.engine.codegen.layout import struct_units
from dataplane.engine.codegen.parser import ParserGen
from dataplane.engine.codegen.stmt import Names, StmtGen
from dataplane.engine.structgen import default_value, field_attr, py_name
from dataplane.errors import InternalError
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import walk
from dataplane.ir.program import field_type
from dataplane.ir.summary import format_expr


def ident(*parts: str) -> str:
    """A Python identifier for a block's object; inlined names (``c1.t``) keep their dots as ``__``."""
    return "_".join(p.replace(".", "__") for p in parts)


class BlockGen(ParserGen, StmtGen):
    """Generates one parser or control; ``block`` is its name, ``params`` its P4 parameters."""

    def __init__(self, program: P.Program, block, out: list[str]):
        base = {p.name: "v_" + p.name for p in block.params}
        if isinstance(block, P.Control):
            # A scalar out/inout parameter of a top-level control (eBPF's `out bool accept`) is
            # a runtime.Box the architecture passes: the body and its actions write its value.
            for p in block.params:
                if p.direction in ("out", "inout") and is_scalar(p.type):
                    base[p.name] = f"v_{p.name}.value"
        self.block_name = block.name
        self.trace_local: str | None = None     # the trace read once at a control's start (control())
        self.local_vars = {v.name for v in block.variables}
        for v in block.variables:
            base[v.name] = f"_l.{py_name(v.name)}"
        for inst in block.instances:
            base[inst.name] = "x_" + ident(block.name, inst.name)
        for inst in program.instances:
            base.setdefault(inst.name, "x_" + inst.name)
        if isinstance(block, P.Control):
            for t in block.tables:
                base[t] = "T_" + ident(block.name, t)
        super().__init__(program, Names(base))
        self.ir_block = block
        self.guard_indices = isinstance(block, P.Control)   # p4c's HSIndexSimplify leaves parsers alone
        self.out = out
        self.inline_tables: dict[str, tuple[str, str, str, str]] = {}
        self.params = ["v_" + p.name for p in block.params]

    # ---- calls the generic StmtGen cannot place -------------------------------------------------------
    def callee(self, call: E.Call) -> str:
        target = call.target
        if isinstance(target, E.PathExpr):
            if target.ref == "action":
                return "A_" + ident(self.block_name, target.name)
            if target.ref == "function":
                return "F_" + target.name
            return "f_" + target.name
        if isinstance(target, E.Member):
            bt = target.expr.type
            if isinstance(bt, T.Extern):
                return f"{self.expr(target.expr)}.{target.member}"
            if isinstance(bt, T.Table):
                return self.expr(target.expr)
            if isinstance(bt, T.Block):
                raise InternalError("unsupported: applying a sub-parser or sub-control in the engine")
        raise InternalError(f"cannot call {target}")

    def trace_call(self, call: E.Call) -> None:
        """``--trace`` names each extern call with its P4 position, as BMv2's log does; extracts
        and emits are traced (or not) by the parser and deparser themselves."""
        target = call.target
        if isinstance(target, E.Member) and isinstance(target.expr.type, T.Extern):
            if target.expr.type.name in ("packet_in", "packet_out"):
                return
            name = f"{format_expr(target.expr)}.{target.member}"
        elif isinstance(target, E.PathExpr) and target.ref == "extern_function" and target.name != "static_assert":
            name = target.name
        else:
            return
        tr = self.trace_local or "_ctx.trace"
        self.emit(f"if {tr} is not None: {tr}.extern({name!r}, {self.locator.label(call.span)!r})")

    def pack_args(self, call: E.Call, ins: list[str]) -> list[str]:
        target = call.target
        if isinstance(target, E.PathExpr) and target.ref == "action":
            return [f"({''.join(i + ', ' for i in ins)})"]  # see action(): one tuple
        return ins

    def leading_args(self, call: E.Call) -> list[str]:
        target = call.target
        if isinstance(target, E.PathExpr) and target.ref == "action":
            return self.params + ["_l", "_ctx"]
        if isinstance(target, E.PathExpr) and target.ref == "function":
            return []
        if isinstance(target, E.Member) and isinstance(target.expr.type, T.Table):
            return self.params + ["_l", "_ctx"]
        return ["_ctx"]

    def special_call(self, call: E.Call) -> str | None:
        src = super().special_call(call)
        if src is not None:
            return src
        target = call.target
        if isinstance(target, E.Member) and isinstance(target.expr.type, T.Extern):
            ext = target.expr.type.name
            if ext == "packet_out" and target.member == "emit":
                self.emit_value(call.args[0].value)
                return ""
            if ext == "packet_in":
                return self.packet_in_call(call)
            if ext == "InternetChecksum" and self.program.architecture == "psa":
                inline = self.inline_internet_checksum(call)
                if inline is not None:
                    return inline
            if ext == "register" and self.inline_register(call):
                return ""
            if ext == "register" and target.member == "read":
                # BMv2 leaves the destination unchanged when the index is out of range,
                # so the current value goes in and comes back in that case.
                dst, index = call.args[0].value, call.args[1].value
                if not isinstance(dst, E.DontCareExpr):
                    self.store(dst, f"{self.expr(target.expr)}.read_keep(_ctx, {self.expr(index)}, {self.expr(dst)})")
                return ""
        if isinstance(target, E.PathExpr) and target.name == "verify" and target.ref == "extern_function":
            cond, err = (self.expr(a.value) for a in call.args)
            self.emit(f"if not {cond}:")
            self.emit(f"    raise ParserError({err})")
            return ""
        if isinstance(target, E.PathExpr) and target.name == "static_assert":
            return "True"
        return None

    # ---- the deparser --------------------------------------------------------------------------------
    def emit_value(self, e: E.Expr) -> None:
        t = T.strip_newtype(e.type)
        src = self.expr(e)
        if isinstance(t, T.Stack):
            v = self.temp()
            self.emit(f"for {v} in {src}.elems:")
            self.indent += 1
            element = T.strip_newtype(t.element)
            if isinstance(element, T.HeaderUnion):   # a stack of unions: each one's valid member
                for f in element.fields:
                    self.emit_header(f"{v}.{py_name(f.name)}", T.strip_newtype(f.type))
            else:
                self.emit_header(v, element)
            self.indent -= 1
        elif isinstance(t, T.Header):
            self.emit_header(src, t)
        elif isinstance(t, (T.Struct, T.HeaderUnion)):
            for f in t.fields:
                self.emit_value(E.Member(e, f.name, type=f.type))
        else:
            raise InternalError(f"emit of {t}")

    def emit_header(self, src: str, t: T.Header) -> None:
        layout = self.program.headers[t.name]
        units = struct_units(layout)
        if units is not None and not src.isidentifier():
            h = self.temp()
            self.emit(f"{h} = {src}")
            src = h
        self.emit(f"if {src}._valid:")
        self.indent += 1
        if any(f.varbit for f in layout.fields):
            self.emit(f"_out.append(H_{t.name}.deparse({src}))")
        elif units is not None:
            # One struct.pack; a field outside its width (never made by generated code, which
            # wraps every store) makes pack fail, and the big-integer form below then gives
            # exactly what it always gave.
            h = src
            args = []
            for u in units:
                parts = []
                for f in u.fields:
                    value = self.deparse_value(h, t, f)
                    shift = u.shift(f)
                    parts.append(f"({value} << {shift})" if shift else value)
                arg = parts[0] if len(parts) == 1 else f"({' | '.join(parts)})"
                args.append(arg if u.is_int else f"{arg}.to_bytes({u.nbytes}, 'big')")
            self.emit("try:")
            self.emit(f"    _out.append(_pack_{t.name}({', '.join(args)}))")
            self.emit("except (_StructError, OverflowError):")
            self.indent += 1
            self.emit_header_int(h, t, layout)
            self.indent -= 1
        else:
            self.emit_header_int(src, t, layout)
        self.indent -= 1

    def deparse_value(self, src: str, t: T.Header, f) -> str:
        value = f"{src}.{field_attr(f.name)}"
        ft = T.strip_newtype(field_type(t, f.name))
        if isinstance(ft, T.Bool):
            return f"(1 if {value} else 0)"
        if f.signed:
            return f"({value} & {mask(f.width)})"
        return value

    def emit_header_int(self, src: str, t: T.Header, layout) -> None:
        """The header as one big integer, shifted and or-ed together, then to bytes."""
        parts = []
        for f in layout.fields:
            value = self.deparse_value(src, t, f)
            shift = layout.width - f.offset - f.width
            parts.append(f"({value} << {shift})" if shift else value)
        self.emit(f"_out.append(({' | '.join(parts)}).to_bytes({layout.width // 8}, 'big'))")

    # ---- packet_in in parsers ------------------------------------------------------------------------
    def control(self) -> None:
        c: P.Control = self.ir_block
        ctx_params = ", ".join(self.params + ["_l", "_ctx"])
        for name in sorted(self.used_actions()):
            self.action(self.find_action(name), ctx_params)
        for t in c.tables.values():
            self.table(t, ctx_params)
        saved = self.located(c.span)
        self.out.append(f"    def C_{c.name}({', '.join(self.params + ['_ctx'])}):{self.at}")
        self.indent = 2
        self.emit(f"_l = L_{c.name}()" if c.variables else "_l = None")
        for p in c.params:
            if isinstance(p.type, T.Extern) and p.type.name == "packet_out":
                self.emit(f"_out = v_{p.name}")
        self.emit("_tr = _ctx.trace")   # set before a control runs, not during it: read once, not a call
        self.emit("try:")
        self.indent += 1
        self.init_locals()
        self.trace_local = "_tr"
        self.block(c.body.stmts)
        self.trace_local = None
        self.indent -= 1
        self.emit("except ExitSignal:")
        self.emit("    pass")
        self.indent = 1
        self.at = saved

    def init_locals(self) -> None:
        """The block's variable initializers, in order, each time the block runs (p4c moves them
        to the start of the apply block or of the start state)."""
        for v in self.ir_block.variables:
            if v.init is not None:
                self.assign_to(f"_l.{py_name(v.name)}", v.type, v.init)

    def used_actions(self) -> set[str]:
        c: P.Control = self.ir_block
        names = set(c.actions)
        for t in c.tables.values():
            names.update(a.action for a in t.actions)
            names.add(t.default_action.action)
        # Actions called directly (PSA's send_to_port(ostd, p) in an apply block or an action),
        # and the actions those call.
        todo = [c.body] + [self.find_action(n).body for n in names]
        while todo:
            for n in walk(todo.pop()):
                if isinstance(n, E.Call) and isinstance(n.target, E.PathExpr) and n.target.ref == "action" \
                        and n.target.name not in names:
                    names.add(n.target.name)
                    todo.append(self.find_action(n.target.name).body)
        return names

    def find_action(self, name: str) -> P.Action:
        return self.ir_block.actions.get(name) or self.program.actions[name]

    def action(self, a: P.Action, ctx_params: str) -> None:
        self.names.push()
        outs = []
        args = []
        for p in a.params:
            py = self.names.fresh(p.name)
            args.append(py)
            if p.direction in ("out", "inout") and is_scalar(p.type):
                outs.append(py)
        fn = "A_" + ident(self.block_name, a.name)
        # Actions take their arguments as one tuple (a table entry's args, as stored): calling
        # with *args costs a tuple build and the slower call form on every table hit.
        saved = self.located(a.span)
        self.out.append(f"    def {fn}({ctx_params}, _a):{self.at}")
        self.indent = 2
        if args:
            self.emit(f"{''.join(x + ', ' for x in args)}= _a")
        where = self.locator.label(a.span)
        shown = "".join(x + ", " for x in args)
        self.emit(f"if _ctx.trace is not None: _ctx.trace.action({a.name!r}, ({shown}), {where!r})")
        self.returns = f"return ({', '.join(outs)},)" if len(outs) > 1 else (f"return {outs[0]}" if outs else "return")
        for p, py in zip(a.params, args):
            if p.direction == "out" and is_scalar(p.type):
                self.emit(f"{py} = {default_value(p.type)}")
        catch_exit = bool(outs) and self.action_may_exit(a.name)
        if catch_exit:
            self.emit("try:")
            self.indent += 1
        self.block(a.body.stmts)
        if catch_exit:
            self.indent -= 1
            # `exit` still copies the out values back (p4c puts the copy-out before each exit).
            self.emit("except ExitSignal:")
            self.emit(f"    raise ExitOuts({self.returns[len('return '):]})")
        if outs:
            self.emit(self.returns)
        self.returns = "return"
        self.names.pop()
        self.out.append(f"    ACTIONS[{self.block_name + '.' + a.name!r}] = {fn}")
        self.indent = 1
        self.at = saved

    def bound_actions(self, t: P.Table, ctx_params: str) -> None:
        """An action listed with arguments for its directional parameters (``a(hdr.x)`` in
        ``actions``) runs through a wrapper that passes them, copied in and out as a call does;
        the entry's action data follows. The table's runtime binds ``TABLE/action`` first."""
        for ac in t.actions:
            if not ac.args:
                continue
            action = self.find_action(ac.action)
            data = [p for p in action.params if not p.direction]
            fn = f"A_{ident(self.block_name, t.name)}__{ident(ac.action)}"
            saved = self.located(t.span)
            self.out.append(f"    def {fn}({ctx_params}, _a):{self.at}")
            self.indent = 2
            self.names.push()
            placeholders = []
            for i, p in enumerate(data):
                self.names.frames[-1][f" data{i}"] = f"_a[{i}]"
                placeholders.append(E.Argument(E.PathExpr(f" data{i}", "param", type=p.type)))
            method = T.Method(ac.action, action.params)
            call = E.Call(E.PathExpr(ac.action, "action", type=method),
                          args=tuple(E.Argument(v) for v in ac.args) + tuple(placeholders), type=T.VOID)
            self.call_stmt(call)
            self.names.pop()
            self.indent = 1
            self.at = saved
            self.out.append(f"    ACTIONS[{self.block_name + '.' + t.name + '/' + ac.action!r}] = {fn}")

    def table(self, t: P.Table, ctx_params: str) -> None:
        self.bound_actions(t, ctx_params)
        fn = "T_" + ident(self.block_name, t.name)
        rt = "t_" + ident(self.block_name, t.name)
        qualified = self.block_name + '.' + t.name
        saved = self.located(t.span)
        at = self.at
        where = self.locator.label(t.span)
        self.out.append(f"    {rt} = _rt.tables[{qualified!r}]{at}")
        keys = [self.expr(k.expr) for k in t.keys]
        key = "(" + "".join(k + ", " for k in keys) + ")"
        # A table without selector, direct counter or meter, whose runtime class keeps the
        # standard lookup, is looked up in its match structure directly (the common case).
        self.out.append(f"    pl_{fn} = {rt}.plain_lookup{at}")
        self.out.append(f"    m_{fn} = {rt}.match.lookup if pl_{fn} else None{at}")
        self.out.append(f"    if pl_{fn}:{at}")
        self.out.append(f"        def {fn}({ctx_params}):{at}")
        self.indent = 3
        self.emit(f"_k = {key}")
        self.emit(f"_e = m_{fn}(_k)")
        self.emit("if _e is None:")
        self.emit(f"    _e = {rt}.default")
        self.emit(f"if _ctx.trace is not None: _ctx.trace.table({qualified!r}, _k, _e, {where!r})")
        self.emit(f"_e.fn({ctx_params}, _e.args)")
        self.emit("return _e")
        self.out.append(f"    else:{at}")
        self.out.append(f"        def {fn}({ctx_params}):{at}")
        self.emit(f"_e = {rt}.lookup({key}, _ctx)")
        self.emit(f"_e.fn({ctx_params}, _e.args)")
        self.emit("return _e")
        self.indent = 1
        self.at = saved
        # Key sources made here, in the control's scope (a table's keys are not resolved where it is applied).
        self.inline_tables[fn] = (rt, key, qualified, ctx_params, where)

    def visit_CallStmt(self, s):
        call = s.call
        target = call.target
        if (isinstance(target, E.Member) and isinstance(target.expr.type, T.Table) and target.member == "apply"
                and not call.args):
            fn = self.expr(target.expr)
            if fn in self.inline_tables:
                self.inline_apply(fn)
                return
        super().visit_CallStmt(s)

    def inline_apply(self, fn: str) -> None:
        """``t.apply();`` as a statement: the fast path of T_ (see ``table``) inline, the call otherwise."""
        rt, key, qualified, ctx_params, where = self.inline_tables[fn]
        k, e = self.temp(), self.temp()
        self.emit(f"if pl_{fn}:")
        self.indent += 1
        self.emit(f"{k} = {key}")
        self.emit(f"{e} = m_{fn}({k})")
        self.emit(f"if {e} is None:")
        self.emit(f"    {e} = {rt}.default")
        self.emit(f"if _ctx.trace is not None: _ctx.trace.table({qualified!r}, {k}, {e}, {where!r})")
        self.emit(f"{e}.fn({ctx_params}, {e}.args)")
        self.indent -= 1
        self.emit("else:")
        self.emit(f"    {fn}({ctx_params})")
