"""Parsers to Python: ``packet_in`` calls (extract, lookahead, advance), the state machine,
``select`` transitions and key sets. Mixed into ``BlockGen``, whose statement generator
writes the states' bodies.
"""
from __future__ import annotations

from dataplane.engine.codegen.expr import mask
from dataplane.engine.codegen.layout import struct_units
from dataplane.engine.runtime import REJECTED
from dataplane.engine.structgen import class_name, field_attr
from dataplane.errors import InternalError
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.program import field_type


class ParserGen:
    """Parser generation for ``BlockGen``: uses its ``emit``, ``temp``, ``expr``, ``block``,
    ``indent``, ``out``, ``params``, ``program`` and ``ir_block``.

    ``reject_is_error``: whether ending in ``reject`` (explicitly or by no matching ``select``
    case) raises ``ParserError(REJECTED)``, so the architecture sees a rejected packet; BMv2
    ends such a parse as if accepted, the eBPF targets drop (or, uBPF, pass unparsed) it.
    """

    reject_is_error = False

    def packet_in_call(self, call: E.Call) -> str:
        name = call.target.member
        too_short = self.program.errors.index("PacketTooShort")
        if name == "extract":
            self.extract(call.args[0].value, call.args[1].value if len(call.args) > 1 else None, too_short,
                         call.type_args[0] if call.type_args else None)
            return ""
        if name == "advance":
            bits = self.expr(call.args[0].value)
            self.emit(f"_pos = PK.advance(_buf, _pos, {bits}, {too_short}, {self.error_or('ParserInvalidArgument', too_short)})")
            return ""
        if name == "length":
            return "len(_buf)"
        if name == "lookahead":
            t = T.strip_newtype(call.type)
            if isinstance(t, T.Header):
                return f"H_{t.name}.peek(_buf, _pos, {too_short})"
            width = t.bit_width()
            return f"PK.lookahead(_buf, _pos, {width}, {too_short})"
        raise InternalError(f"packet_in.{name}")

    def extract(self, target: E.Expr, size: E.Expr | None, too_short: int, type_arg: T.Type | None = None) -> None:
        h = self.temp()
        if isinstance(target, E.DontCareExpr) and type_arg is not None:
            # extract<H>(_): the header is read (and its bytes skipped) into a value nothing keeps.
            t = T.strip_newtype(type_arg)
            self.emit(f"{h} = {class_name(t.name)}()")
        else:
            t = T.strip_newtype(target.type)
            self.emit(f"{h} = {self.stack_element(target)}")
        layout = self.program.headers[t.name]
        is_next = _next_of_stack(target)
        if size is not None or any(f.varbit for f in layout.fields):
            size_src = self.expr(size) if size is not None else "0"
            self.emit(f"_pos = H_{t.name}.extract_varbit({h}, _buf, _pos, {size_src}, {too_short}, "
                      f"{self.error_or('HeaderTooShort', too_short)}, "
                      f"{self.error_or('ParserInvalidArgument', too_short)})")
        elif struct_units(layout) is not None:
            n = layout.width // 8
            self.emit(f"if _pos + {n} > _n:")
            self.emit(f"    raise ParserError({too_short})")
            self.extract_units(h, t, struct_units(layout))
            self.emit(f"{h}._valid = True")
            self.emit(f"_pos += {n}")
        else:
            n = layout.width // 8
            self.emit(f"if _pos + {n} > _n:")
            self.emit(f"    raise ParserError({too_short})")
            self.emit(f"_v = int.from_bytes(_buf[_pos:_pos + {n}], 'big')")
            for f in layout.fields:
                shift = layout.width - f.offset - f.width
                value = f"(_v >> {shift})" if shift else "_v"
                if f.offset:
                    value = f"({value} & {mask(f.width)})"
                ft = T.strip_newtype(field_type(t, f.name))
                if f.signed:
                    value = f"to_signed({value}, {f.width})"
                elif isinstance(ft, T.Bool):
                    value = f"({value} != 0)"
                self.emit(f"{h}.{field_attr(f.name)} = {value}")
            self.emit(f"{h}._valid = True")
            self.emit(f"_pos += {n}")
        for line in self.union_siblings_invalid(target):
            self.emit(line)
        self.emit(f"if _tr is not None: _tr.extract({_text(target)!r}, {h})")
        if is_next is not None:
            self.emit(f"{self.expr(is_next)}.advance()")

    def stack_element(self, target: E.Expr) -> str:
        """The header ``extract`` fills: a runtime stack index out of range is StackOutOfBounds."""
        node = target
        while isinstance(node, E.Member):
            node = node.expr
        if isinstance(node, E.Index) and not isinstance(node.index, E.Constant):
            sob = self.program.errors.index("StackOutOfBounds")
            src = f"{self.expr(node.expr)}.at_or_error({self.expr(node.index)}, {sob})"
            self.expr.bound.append((node, src))
            try:
                return self.expr(target)
            finally:
                self.expr.bound.pop()
        return self.expr(target)

    def extract_units(self, h: str, t: T.Header, units: list) -> None:
        """Fill header ``h`` from one ``struct`` unpack of its units (see codegen.layout)."""
        def convert(f, value: str) -> str:
            ft = T.strip_newtype(field_type(t, f.name))
            if f.signed:
                return f"to_signed({value}, {f.width})"
            if isinstance(ft, T.Bool):
                return f"({value} != 0)"
            return value

        targets, after = [], []
        for i, u in enumerate(units):
            direct = len(u.fields) == 1 and u.is_int
            f0 = u.fields[0]
            if direct and convert(f0, "x") == "x":
                targets.append(f"{h}.{field_attr(f0.name)}")
                continue
            tmp = f"_u{i}"
            pieces = u.pieces
            if len(pieces) > 1:
                # Split into struct integers: join them back, most significant first.
                names = [f"{tmp}_{j}" for j in range(len(pieces))]
                targets += names
                joined, below = [], u.nbytes * 8
                for name, nb in zip(names, pieces):
                    below -= nb * 8
                    joined.append(f"({name} << {below})" if below else name)
                value = f"({' | '.join(joined)})"
                if len(u.fields) == 1:
                    after.append(f"{h}.{field_attr(f0.name)} = {convert(f0, value)}")
                    continue
                after.append(f"{tmp} = {value}")
            else:
                targets.append(tmp)
                if not u.is_int:
                    if len(u.fields) == 1:
                        after.append(f"{h}.{field_attr(f0.name)} = {convert(f0, f'int.from_bytes({tmp}, {chr(39)}big{chr(39)})')}")
                        continue
                    after.append(f"{tmp} = int.from_bytes({tmp}, 'big')")
            for f in u.fields:
                shift = u.shift(f)
                value = f"({tmp} >> {shift})" if shift else tmp
                if f.offset > u.start:
                    value = f"({value} & {mask(f.width)})"
                after.append(f"{h}.{field_attr(f.name)} = {convert(f, value)}")
        self.emit(f"{', '.join(targets)}, = _unpack_{t.name}(_buf, _pos)")
        for line in after:
            self.emit(line)

    def error_or(self, member: str, fallback: int) -> int:
        """The code of error ``member``; ``fallback`` when the program's core.p4 does not declare it."""
        errors = self.program.errors
        return errors.index(member) if member in errors else fallback

    def parser(self) -> None:
        p: P.Parser = self.ir_block
        fn = "P_" + p.name
        saved = self.located(p.span)
        self.out.append(f"    def {fn}({', '.join(self.params + ['_ctx'])}):{self.at}")
        self.indent = 2
        # Block-level variables live on a per-call object; skip it when there are none.
        self.emit(f"_l = L_{p.name}()" if p.variables else "_l = None")
        self.emit("_buf = _ctx.buf")
        self.emit("_n = len(_buf)")
        self.emit("_pos = 0")
        self.emit("_tr = _ctx.trace")
        # The states run inside `while True` with `_s` naming the next one. With no loops in the
        # parse graph (the common case) the states go in topological order, each behind a plain
        # `if`, so one pass through the body runs the whole parse and `while` only serves `break`;
        # otherwise an if/elif chain dispatches on `_s` each time round.
        linear = _acyclic_order(p)
        order = linear if linear is not None else ["start"] + [s for s in p.states if s != "start"]
        number = {name: i for i, name in enumerate(order)}
        self.emit("_s = 0")
        self.emit("try:")
        self.indent += 1
        self.init_locals()
        self.emit("while True:")
        self.indent += 1
        for name in order:
            st = p.states[name]
            guarded = linear is None or name != "start"
            block_at = self.located(st.span)
            if guarded:
                keyword = "elif" if linear is None and name != "start" else "if"
                self.emit(f"{keyword} _s == {number[name]}:")
                self.indent += 1
            self.emit(f"if _tr is not None: _tr.state({name!r}, {self.locator.label(st.span)!r})")
            # The select keys may read the state's own locals: one name scope for both.
            self.names.push()
            for s in st.stmts:
                self.stmt(s)
            self.transition(st, number)
            self.names.pop()
            if guarded:
                self.indent -= 1
            self.at = block_at
        if linear is not None:
            self.emit("break")
        else:
            self.emit("else:")
            self.emit("    break")
        self.indent -= 2
        self.emit("except ParserError as _e:")
        self.emit("    _ctx.sm.parser_error = _e.code")
        self.emit("    if _tr is not None: _tr.parser_error(_e.code)")
        self.emit("_ctx.pos = _pos")
        self.indent = 1
        self.at = saved

    def transition(self, st: P.ParserState, number: dict[str, int]) -> None:
        def goto(state: str) -> str:
            # BMv2 treats an explicit `reject` like the end of parsing, without an error (§5.2).
            if state == "reject" and self.reject_is_error:
                return f"raise ParserError({REJECTED})"
            return "break" if state in ("accept", "reject") else f"_s = {number[state]}"

        if not st.select:
            self.emit(goto(st.next_state))
            return
        keys = []
        for k in st.select:
            v = self.temp()
            self.emit(f"{v} = {self.expr(k)}")
            keys.append((v, k.type))
        first = True
        for case in st.cases:
            if len(case.keysets) == 1 and isinstance(case.keysets[0], E.PathExpr):   # a value set
                conds = [f"{self.expr(case.keysets[0])}.matches(({''.join(v + ', ' for v, _ in keys)}))"]
            else:
                conds = [c for c in (self.keyset_cond(v, ks) for (v, _), ks in zip(keys, case.keysets)) if c != "True"]
            if not conds:
                # A default (or all-wildcard) case: the cases after it can never match.
                self.emit(goto(case.next_state) if first else "else:")
                if not first:
                    self.emit("    " + goto(case.next_state))
                return
            self.emit(("if " if first else "elif ") + " and ".join(conds) + ":")
            self.emit("    " + goto(case.next_state))
            first = False
        # No matching case: BMv2 ends the parse as if accepted, with no error (§5.2).
        self.emit("else:" if not first else "if True:")
        self.emit("    " + goto("reject") if self.reject_is_error else "    break")

    def keyset_cond(self, v: str, ks: E.Expr) -> str:
        if isinstance(ks, E.DefaultKeyset):
            return "True"
        if isinstance(ks, E.Mask):
            m = ks.mask.value
            return f"({v} & {m}) == {ks.value.value & m}"
        if isinstance(ks, E.Range):
            return f"{ks.lo.value} <= {v} <= {ks.hi.value}"
        return f"{v} == {self.expr(ks)}"


def _acyclic_order(p: P.Parser) -> list[str] | None:
    """The states reachable from ``start`` in topological order, or None if the graph has a cycle."""
    def successors(name: str) -> list[str]:
        st = p.states[name]
        nexts = [c.next_state for c in st.cases] if st.select else [st.next_state]
        return [n for n in nexts if n in p.states]

    if "start" not in p.states:
        return None
    done: list[str] = []
    state = {}  # name -> 1 while on the DFS stack, 2 when finished
    stack = [("start", iter(successors("start")))]
    state["start"] = 1
    while stack:
        name, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            state[name] = 2
            done.append(name)
        elif state.get(nxt) == 1:
            return None
        elif nxt not in state:
            state[nxt] = 1
            stack.append((nxt, iter(successors(nxt))))
    return done[::-1]


def _text(e: E.Expr) -> str:
    from dataplane.ir.summary import format_expr

    return format_expr(e)


def _next_of_stack(target: E.Expr) -> E.Expr | None:
    """The stack whose ``nextIndex`` extracting into ``target`` advances: ``s.next`` for a
    header stack, ``s.next.member`` for a stack of header unions; None otherwise."""
    e = target
    if isinstance(e, E.Member) and e.member != "next" and isinstance(T.strip_newtype(e.expr.type), T.HeaderUnion):
        e = e.expr
    if isinstance(e, E.Member) and e.member == "next" and isinstance(T.strip_newtype(e.expr.type), T.Stack):
        return e.expr
    return None
