"""Calls to Python: arguments copied in and out as P4 passes them (spec §6.8), extern calls.

An action or function call evaluates its arguments left to right; ``in`` and ``inout``
values are copied in, and ``out``/``inout`` values are copied back after the call, in
parameter order, even when the action ends with ``exit`` (p4c's RemoveActionParameters
puts the copy-out before every ``exit``). Scalars are passed by value and returned.
Headers, structs and stacks are passed by reference when no difference can be seen:
the callee reaches the argument's storage by no other name, and no other argument of the
call overlaps it; otherwise they are copied. An ``out`` header passed by reference is
made invalid first (an uninitialized header is invalid). An out argument's l-value is
evaluated once, at its place among the arguments, before the call can change its index.
"""
from __future__ import annotations

from dataplane.engine.codegen.expr import is_object, is_scalar
from dataplane.engine.codegen.inline import _width
from dataplane.engine.structgen import default_value
from dataplane.errors import InternalError
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.ir.node import walk

_FIELD_LIST_FUNCTIONS = {"hash", "verify_checksum", "update_checksum", "verify_checksum_with_payload",
                         "update_checksum_with_payload", "digest", "clone3", "resubmit", "recirculate", "log_msg"}
_HASHED_FUNCTIONS = {"hash", "verify_checksum", "update_checksum", "verify_checksum_with_payload",
                     "update_checksum_with_payload"}
_FIELD_LIST_METHODS = {"pack"}   # Digest.pack: the control plane gets the field values
_CHECKSUM_FUNCTIONS = {"verify_checksum", "update_checksum", "verify_checksum_with_payload",
                       "update_checksum_with_payload"}


class CallGen:
    """Mixed into ``StmtGen``: uses its ``emit``, ``temp``, ``store``, ``expr``, ``indent``, ``callee``,
    ``leading_args``, ``pack_args``, ``special_call`` and ``find_action``."""

    def returns_outs(self, call: E.Call) -> bool:
        method = call.target.type
        return isinstance(method, T.Method) and any(
            p.direction in ("out", "inout") and is_scalar(a.value.type)
            for p, a in zip(method.params, call.args) if a.value is not None)

    # ---- extern calls ---------------------------------------------------------------------------
    def call_parts(self, call: E.Call):
        """(in-argument sources, out-argument targets, out widths) for an extern call."""
        method: T.Method = call.target.type
        ins, outs, widths = [], [], []
        name = call.target.name if isinstance(call.target, E.PathExpr) else call.target.member
        method_of_object = isinstance(call.target, E.Member) and isinstance(call.target.expr.type, T.Extern)
        psa = self.program.architecture == "psa"
        for p, a in zip(method.params, call.args):
            v = a.value
            # The data of an extern method generic in it (PSA/PNA `Hash.get_hash<D>(in D data)`,
            # `InternetChecksum.add<T>(in T data)`, `Digest.pack`): a header, struct or list is
            # the field list BMv2 makes of it. PSA's externs take it as one number and its width
            # (psa_switch concatenates the fields, every one, and pads on the left), a scalar
            # too; PNA's take the bytes it hashes; Digest.pack takes the field values.
            generic = method_of_object and isinstance(p.type, T.TypeVar) and p.type.name in method.type_params
            compound = isinstance(v, E.ListExpr) or not is_scalar(v.type)
            data = generic and (compound or (psa and p.name == "data"))
            if p.direction in ("out", "inout") and is_scalar(v.type):
                if p.direction == "inout":
                    ins.append(self.expr(v))
                outs.append(v)
                widths.append(str(_width(v.type)))
            elif data and name in _FIELD_LIST_METHODS:
                ins.append(self.expr.field_list(v))
            elif data and psa:
                ins.append(self.expr.number_and_width(v))
            elif (name in _HASHED_FUNCTIONS or data) and compound:
                ins.append(self.expr.packed_field_list(v))
            elif isinstance(v, E.ListExpr) or (name in _FIELD_LIST_FUNCTIONS and not is_scalar(v.type)):
                ins.append(self.expr.field_list(v))
            else:
                ins.append(self.expr(v))
        if name == "digest" and not method_of_object and len(call.args) == 2:
            # v1model's digest<T>: the struct's name, which P4Info names the digest by (p4c's
            # learn list), so the P4Runtime server tells two digests of as many fields apart.
            t = T.strip_newtype(call.args[1].value.type)
            ins.append(repr(t.name) if isinstance(t, T.StructLike) else "None")
        if name in _CHECKSUM_FUNCTIONS and len(call.args) >= 3:
            ck = call.args[2].value
            ins.append(f"{self.expr(ck.expr)}._valid" if isinstance(ck, E.Member) else "True")
        return ins, outs, widths

    def call_stmt(self, call: E.Call, result_target: str | None = None) -> None:
        self.trace_call(call)
        if result_target is None and (self.inline_csum16(call) or self.inline_hash(call)):
            return
        special = self.special_call(call)
        if special is not None:
            if special:
                self.emit(special if result_target is None else f"{result_target} = {special}")
            return
        if _is_p4_callable(call):
            self.p4_call_stmt(call, result_target)
            return
        fn = self.callee(call)
        ins, outs, widths = self.call_parts(call)
        args = ", ".join(self.leading_args(call) + self.pack_args(call, ins) + widths)
        src = f"{fn}({args})"
        targets = ["_" if isinstance(o, E.DontCareExpr) else self.expr(o) for o in outs]
        if any(isinstance(o, E.Slice) for o in outs):
            # Out values into slices: take the returned value(s), then merge each into its field.
            tmp = self.temp()
            self.emit(f"{tmp} = {src}")
            values = [tmp] if len(outs) + (result_target is not None) == 1 else \
                [f"{tmp}[{i}]" for i in range(len(outs) + (result_target is not None))]
            if result_target is not None:
                self.emit(f"{result_target} = {values.pop(0)}")
            for o, v in zip(outs, values):
                self.store(o, v)
            return
        if result_target is not None:
            targets = [result_target] + targets
        if not targets:
            self.emit(src)
        elif len(targets) == 1:
            self.emit(f"{targets[0]} = {src}")
        else:
            self.emit(f"{', '.join(targets)} = {src}")

    def call_expr(self, call: E.Call) -> str:
        special = self.special_call(call)
        if special is not None:
            return special
        if _is_p4_callable(call):
            return self.p4_call_expr(call)
        ins, outs, widths = self.call_parts(call)
        src = f"{self.callee(call)}({', '.join(self.leading_args(call) + self.pack_args(call, ins) + widths)})"
        if outs:
            raise InternalError("a call with out arguments used inside an expression")
        return src

    def assign_expr(self, target: E.Expr, value: str) -> str:
        """An expression that stores ``value`` into the scalar l-value ``target``."""
        if isinstance(target, E.DontCareExpr):
            return "None"
        if isinstance(target, E.Slice):
            return self.assign_expr(target.expr, self.slice_update(target, value))
        src = self.expr(target)
        obj, dot, attr = src.rpartition(".")
        if dot and obj and attr.isidentifier():
            return f"setattr({obj}, {attr!r}, {value})"
        if src.isidentifier():
            return f"({src} := {value})"
        raise InternalError(f"unsupported: out argument {src} of a call inside an expression")

    # ---- actions and functions ------------------------------------------------------------------
    def p4_args(self, call: E.Call):
        """Plan the arguments of an action or function call.

        Returns (in sources, copy-out steps in parameter order, bindings to drop afterwards);
        a step is ("scalar", target expression, index among the returned outs) or ("object",
        Python expression statement).
        """
        method: T.Method = call.target.type
        pairs = [(p, a.value) for p, a in zip(method.params, call.args) if a.value is not None]
        touched = self.callee_touches(call)
        ins: list[str] = []
        steps: list[tuple] = []
        bindings: list = []
        n_scalar = 0
        for i, (p, v) in enumerate(pairs):
            writes = p.direction in ("out", "inout")
            if isinstance(v, E.DontCareExpr) and is_object(p.type):
                ins.append(default_value(p.type))   # `_` for an out header: a value nobody keeps
                continue
            if is_scalar(v.type):
                if not writes:
                    ins.append(self.expr(v))
                    continue
                walrus = self.bind_lvalue(v, bindings) if _dynamic_lvalue(v) else None
                if p.direction == "inout":
                    ins.append(self.expr(v) if walrus is None else self.expr_with(v, walrus))
                else:
                    ins.append("None" if walrus is None else f"({walrus[1]}, None)[1]")
                steps.append(("scalar", v, n_scalar))
                n_scalar += 1
                continue
            if isinstance(v, (E.ListExpr, E.StructInit, E.InvalidHeader, E.Call)) and not writes:
                ins.append(self.expr(v))   # a new value already
                continue
            copy = _root(v) is None or _root(v) in touched or any(
                j != i and _root(w) == _root(v) and (writes or q.direction in ("out", "inout"))
                for j, (q, w) in enumerate(pairs))
            if not writes:
                ins.append(f"{self.expr(v)}._clone()" if copy else self.expr(v))
                continue
            obj = self.temp()
            if not copy:
                fresh = f"{obj}._invalidate()" if p.direction == "out" else None
                ins.append(f"(({obj} := {self.expr(v)}), {fresh})[0]" if fresh else self.expr(v))
                continue
            tmp = self.temp()
            made = f"{tmp} := {obj}._clone()" if p.direction == "inout" else f"{tmp} := {default_value(v.type)}"
            ins.append(f"(({obj} := {self.expr(v)}), ({made}))[1]")
            steps.append(("object", f"{obj}.copy_from({tmp})"))
        return ins, steps, bindings

    def bind_lvalue(self, v: E.Expr, bindings: list) -> tuple[E.Expr, str] | None:
        """Evaluate the object part of scalar l-value ``v`` once: (object node, walrus source);
        the node is bound to the temporary for the stores after the call."""
        node = _object_part(v)
        if node is None:
            return None
        tmp = self.temp()
        walrus = f"({tmp} := {self.expr(node)})"
        self.expr.bound.append((node, tmp))
        bindings.append(node)
        return node, walrus

    def expr_with(self, v: E.Expr, walrus: tuple[E.Expr, str]) -> str:
        """``v`` with its object part evaluated by the walrus source (which binds the temporary)."""
        node, src = walrus
        self.expr.bound.append((node, src))
        try:
            return self.expr(v)
        finally:
            self.expr.bound.pop()

    def unbind(self, bindings: list) -> None:
        for node in bindings:
            for i in range(len(self.expr.bound) - 1, -1, -1):
                if self.expr.bound[i][0] is node:
                    del self.expr.bound[i]
                    break

    def p4_call_stmt(self, call: E.Call, result_target: str | None) -> None:
        ins, steps, bindings = self.p4_args(call)
        args = ", ".join(self.leading_args(call) + self.pack_args(call, ins))
        src = f"{self.callee(call)}({args})"
        n_scalar = sum(1 for s in steps if s[0] == "scalar")
        has_result = _has_result(call) and result_target is not None
        returned = None
        if n_scalar or _has_result(call):
            returned = self.temp()
        exits = bool(steps) and self.callee_may_exit(call)
        if exits:
            self.emit("try:")
            self.indent += 1
        self.emit(f"{returned} = {src}" if returned else src)
        if exits:
            self.indent -= 1
            self.emit("except ExitSignal as _x:")
            self.indent += 1
            # The action ran up to its `exit`; its out values were taken there (ExitOuts).
            self.copy_out(steps, "_x.values", n_scalar, False)
            self.emit("raise EXIT")
            self.indent -= 1
        self.copy_out(steps, returned, n_scalar, _has_result(call))
        if has_result:
            self.emit(f"{result_target} = {returned}[0]" if n_scalar else f"{result_target} = {returned}")
        self.unbind(bindings)

    def copy_out(self, steps: list, returned: str | None, n_scalar: int, has_result: bool) -> None:
        for step in steps:
            if step[0] == "object":
                self.emit(step[1])
                continue
            _, target, k = step
            if has_result:
                value = f"{returned}[{k + 1}]"
            else:
                value = returned if n_scalar == 1 else f"{returned}[{k}]"
            self.store(target, value)

    def p4_call_expr(self, call: E.Call) -> str:
        """A function call inside an expression: its copy-out made by expressions, then its value."""
        ins, steps, bindings = self.p4_args(call)
        src = f"{self.callee(call)}({', '.join(self.leading_args(call) + self.pack_args(call, ins))})"
        n_scalar = sum(1 for s in steps if s[0] == "scalar")
        if not steps:
            self.unbind(bindings)
            return src
        if not _has_result(call):
            raise InternalError("a call without a value used inside an expression")
        tmp = self.temp()
        parts = [f"({tmp} := {src})"]
        for step in steps:
            if step[0] == "object":
                parts.append(step[1])
            else:
                parts.append(self.assign_expr(step[1], f"{tmp}[{step[2] + 1}]"))
        self.unbind(bindings)
        value = f"{tmp}[0]" if n_scalar else tmp
        return f"({', '.join(parts)}, {value})[-1]"

    # ---- what a callee can do -------------------------------------------------------------------
    def find_action(self, name: str):
        """The action declaration ``name`` refers to (BlockGen knows its control's)."""
        return self.program.actions.get(name)

    def callee_touches(self, call: E.Call) -> frozenset:
        """Names outside its parameters that an action may read or write, following the actions
        it calls; functions reach only their parameters."""
        target = call.target
        if not (isinstance(target, E.PathExpr) and target.ref == "action"):
            return frozenset()
        cache = self.__dict__.setdefault("_touches", {})
        if target.name in cache:
            return cache[target.name]
        cache[target.name] = frozenset()   # a cycle (not legal P4) ends here
        action = self.find_action(target.name)
        if action is None:
            return frozenset()
        own = {p.name for p in action.params}
        names = set()
        for n in walk(action.body):
            if isinstance(n, E.PathExpr) and n.ref not in ("action", "function", "extern_function") \
                    and n.name not in own:
                names.add(n.name)
            elif isinstance(n, E.Call) and isinstance(n.target, E.PathExpr) and n.target.ref == "action":
                names |= self.callee_touches(n)
        cache[target.name] = frozenset(names)
        return cache[target.name]

    def callee_may_exit(self, call: E.Call) -> bool:
        target = call.target
        return isinstance(target, E.PathExpr) and target.ref == "action" and self.action_may_exit(target.name)

    def action_may_exit(self, name: str) -> bool:
        """Whether action ``name`` can execute ``exit``, itself or in an action it calls."""
        cache = self.__dict__.setdefault("_exits", {})
        if name not in cache:
            cache[name] = False
            action = self.find_action(name)
            cache[name] = action is not None and any(
                isinstance(n, S.Exit) or (isinstance(n, E.Call) and isinstance(n.target, E.PathExpr)
                                          and n.target.ref == "action" and self.action_may_exit(n.target.name))
                for n in walk(action.body))
        return cache[name]


def _is_p4_callable(call: E.Call) -> bool:
    return isinstance(call.target, E.PathExpr) and call.target.ref in ("action", "function")


def _has_result(call: E.Call) -> bool:
    method = call.target.type
    return isinstance(method, T.Method) and not isinstance(method.ret, T.Void)


def _root(e: E.Expr) -> str | None:
    """The variable or parameter an l-value is part of; None for a value made by the expression."""
    while isinstance(e, (E.Member, E.Index, E.Slice)):
        e = e.expr
    return e.name if isinstance(e, E.PathExpr) else None


def _dynamic_lvalue(e: E.Expr) -> bool:
    """Whether evaluating l-value ``e`` twice could reach another location (an index that is not
    a constant, a stack's ``next``/``last``, a call)."""
    for n in walk(e):
        if isinstance(n, E.Index) and not isinstance(n.index, E.Constant):
            return True
        if isinstance(n, E.Call):
            return True
        if isinstance(n, E.Member) and n.member in ("next", "last") and isinstance(n.expr.type, T.Stack):
            return True
    return False


def _object_part(e: E.Expr) -> E.Expr | None:
    """The innermost header/struct/stack element holding scalar l-value ``e``; None for a variable."""
    while isinstance(e, E.Slice):
        e = e.expr
    if isinstance(e, E.Member) and is_object(e.expr.type):
        return e.expr
    return None
