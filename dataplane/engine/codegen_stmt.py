"""Statements and calls to Python source lines (used for actions, functions, apply blocks, parser states)."""
from __future__ import annotations

from dataplane.errors import InternalError
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.engine.codegen_expr import ExprGen, is_scalar, mask, wrap
from dataplane.engine.codegen_inline import InlineExterns, _width
from dataplane.engine.codegen_loops import LoopGen
from dataplane.engine.structgen import default_value, py_name

_FIELD_LIST_FUNCTIONS = {"hash", "verify_checksum", "update_checksum", "verify_checksum_with_payload",
                         "update_checksum_with_payload", "digest", "clone3", "resubmit", "recirculate", "log_msg"}
_HASHED_FUNCTIONS = {"hash", "verify_checksum", "update_checksum", "verify_checksum_with_payload",
                     "update_checksum_with_payload"}
_CHECKSUM_FUNCTIONS = {"verify_checksum", "update_checksum", "verify_checksum_with_payload",
                       "update_checksum_with_payload"}


class Names:
    """Nested name scopes: P4 names to the Python expressions that hold them."""

    def __init__(self, base: dict[str, str]):
        self.frames = [dict(base)]
        self.used: set[str] = set(base.values())

    def __getitem__(self, name: str) -> str:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        raise KeyError(name)

    def fresh(self, name: str) -> str:
        """Bind ``name`` in the innermost scope to a new Python local (P4 allows shadowing)."""
        base = "v_" + name.replace(".", "__")
        py, i = base, 0
        while py in self.used:
            i += 1
            py = f"{base}_{i}"
        self.used.add(py)
        self.frames[-1][name] = py
        return py

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()


class StmtGen(LoopGen, InlineExterns):
    """Emits indented Python lines for statements; subclasses supply the block context."""

    def __init__(self, program, names: Names):
        self.program = program
        self.names = names
        self.expr = ExprGen(program, names, self)
        self.out: list[str] = []
        self.indent = 1
        self.tmp = 0
        self.returns = "return"  # what `return;` becomes (actions with scalar out params return them)
        self.ret_outs: list[str] = []  # a function's scalar out/inout params, returned after its value

    def emit(self, line: str) -> None:
        self.out.append("    " * self.indent + line)

    def temp(self) -> str:
        self.tmp += 1
        return f"_t{self.tmp}"

    # ---- statements -------------------------------------------------------------------------
    def stmt(self, s: S.Stmt) -> None:
        getattr(self, "stmt_" + type(s).__name__)(s)

    def block(self, stmts) -> None:
        self.names.push()
        start = len(self.out)
        for s in stmts:
            self.stmt(s)
        if len(self.out) == start:
            self.emit("pass")
        self.names.pop()

    def stmt_BlockStmt(self, s):
        self.block(s.stmts)

    def stmt_Empty(self, s):
        self.emit("pass")

    def stmt_VarDecl(self, s):
        t = self.type_of_decl(s)
        py = self.names.fresh(s.name)
        if s.init is not None and not isinstance(s.init, (E.ListExpr, E.StructInit, E.InvalidHeader)):
            value = self.expr(s.init)
            if not is_scalar(t):
                self.emit(f"{py} = {default_value(t)}")
                self.emit(f"{py}.copy_from({value})")
            else:
                self.emit(f"{py} = {value}")
            return
        self.emit(f"{py} = {default_value(t)}")
        if s.init is not None:
            self.assign_to(py, t, s.init)

    def type_of_decl(self, s: S.VarDecl) -> T.Type:
        if s.resolved is None:
            raise InternalError(f"variable '{s.name}' reached code generation without a type")
        return s.resolved

    def stmt_ConstDecl(self, s):
        py = self.names.fresh(s.name)
        self.emit(f"{py} = {self.expr(s.value)}")

    def stmt_Assign(self, s):
        lhs = s.lhs
        if isinstance(lhs, E.Slice):
            self.store(lhs, self.expr(s.rhs))
            return
        self.assign_to(self.expr(lhs), lhs.type, s.rhs)
        siblings = self.union_siblings_invalid(lhs)
        if siblings:
            self.emit(f"if {self.expr(lhs)}._valid: {'; '.join(siblings)}")

    def store(self, target: E.Expr, value: str) -> None:
        """Emit ``target = value`` for a scalar l-value; a slice replaces only its bits."""
        if isinstance(target, E.DontCareExpr):
            return
        if isinstance(target, E.Slice):
            self.store(target.expr, self.slice_update(target, value))
            return
        self.emit(f"{self.expr(target)} = {value}")

    def slice_update(self, target: E.Slice, value: str) -> str:
        """The new value of ``target.expr`` after writing ``value`` into the slice ``target``."""
        base = self.expr(target.expr)
        lo, width = target.lo.value, target.hi.value - target.lo.value + 1
        new = f"({base} & ~{mask(width) << lo}) | ((({value}) & {mask(width)}) << {lo})"
        # int<W> values are kept as Python ints in [-2^(W-1), 2^(W-1)); a slice may set the sign bit.
        bt = T.strip_newtype(target.expr.type)
        return wrap(new, bt) if isinstance(bt, T.Bits) and bt.signed else new

    def union_siblings_invalid(self, e: E.Expr) -> list[str]:
        """Statements invalidating the other members when header ``e``, a header_union member, becomes valid.

        At most one member of a union is valid (BMv2 ``HeaderUnion::make_header_valid``).
        """
        if not isinstance(e, E.Member):
            return []
        ut = T.strip_newtype(e.expr.type) if e.expr.type is not None else None
        if not isinstance(ut, T.HeaderUnion):
            return []
        parent = self.expr(e.expr)
        return [f"{parent}.{py_name(f.name)}._valid = False" for f in ut.fields if f.name != e.member]

    def assign_to(self, target: str, t: T.Type, rhs: E.Expr) -> None:
        """``target = rhs`` with P4's value semantics for headers, structs and stacks."""
        t = T.strip_newtype(t)
        if isinstance(rhs, E.InvalidHeader):
            self.emit(f"{target}._valid = False")
            return
        if isinstance(t, T.StructLike) and isinstance(rhs, (E.ListExpr, E.StructInit)):
            if isinstance(rhs, E.ListExpr):
                pairs = list(zip(t.fields, rhs.elements))
            else:
                given = {f.name: f.value for f in rhs.fields}
                pairs = [(f, given[f.name]) for f in t.fields if f.name in given]
            for f, value in pairs:
                self.assign_to(f"{target}.{py_name(f.name)}", f.type, value)
            if isinstance(t, T.Header):
                self.emit(f"{target}._valid = True")
            return
        if not is_scalar(t):
            self.emit(f"{target}.copy_from({self.expr(rhs)})")
            return
        if isinstance(rhs, E.Call) and self.returns_outs(rhs):
            self.call_stmt(rhs, result_target=target)
            return
        self.emit(f"{target} = {self.expr(rhs)}")

    def stmt_If(self, s):
        self.emit(f"if {self.expr(s.cond)}:")
        self.indent += 1
        self.block(s.then.stmts if isinstance(s.then, S.BlockStmt) else (s.then,))
        self.indent -= 1
        other = s.otherwise
        if other is None:
            return
        if isinstance(other, S.If):
            self.emit("else:")
            self.indent += 1
            self.stmt(other)
            self.indent -= 1
            return
        self.emit("else:")
        self.indent += 1
        self.block(other.stmts if isinstance(other, S.BlockStmt) else (other,))
        self.indent -= 1

    def stmt_Exit(self, s):
        self.emit("raise EXIT")

    def stmt_Return(self, s):
        if s.value is not None:
            if self.ret_outs:
                self.emit(f"return ({self.expr(s.value)}, {', '.join(self.ret_outs)},)")
            else:
                self.emit(f"return {self.expr(s.value)}")
        else:
            self.emit(self.returns)

    def stmt_Switch(self, s):
        subject = self.temp()
        is_action = isinstance(s.expr.type, T.ActionEnum)
        self.emit(f"{subject} = {self.expr(s.expr)}" + (".name" if is_action and not _ends_in_action_run(s.expr) else ""))
        pending: list[str] = []
        first = True
        for case in s.cases:
            if isinstance(case.label, E.DefaultKeyset):
                cond = "True"
            else:
                label = repr(case.label.name) if is_action else self.expr(case.label)
                pending.append(label)
                if case.body is None:
                    continue
                cond = f"{subject} in ({', '.join(pending)},)"
                pending = []
            if case.body is None and cond == "True":
                continue
            self.emit(("if " if first else "elif ") + cond + ":")
            first = False
            self.indent += 1
            self.block(case.body.stmts if case.body is not None else ())
            self.indent -= 1

    def stmt_CallStmt(self, s):
        self.call_stmt(s.call)

    # ---- calls ----------------------------------------------------------------------------------
    def returns_outs(self, call: E.Call) -> bool:
        method = call.target.type
        return isinstance(method, T.Method) and any(
            p.direction in ("out", "inout") and is_scalar(a.value.type)
            for p, a in zip(method.params, call.args) if a.value is not None)

    def call_parts(self, call: E.Call):
        """(in-argument sources, out-argument targets, out widths) for a generic call."""
        method: T.Method = call.target.type
        ins, outs, widths = [], [], []
        name = call.target.name if isinstance(call.target, E.PathExpr) else call.target.member
        p4_callable = _is_p4_callable(call)
        for p, a in zip(method.params, call.args):
            v = a.value
            if p.direction in ("out", "inout") and is_scalar(v.type):
                if p4_callable:
                    # Actions and functions take every parameter in place (None for an out) and
                    # return the new values of their scalar out/inout parameters.
                    ins.append(self.expr(v) if p.direction == "inout" else "None")
                    outs.append(v)
                    continue
                if p.direction == "inout":
                    ins.append(self.expr(v))
                outs.append(v)
                widths.append(str(_width(v.type)))
            elif name in _HASHED_FUNCTIONS and (isinstance(v, E.ListExpr) or not is_scalar(v.type)):
                ins.append(self.expr.packed_field_list(v))
            elif isinstance(v, E.ListExpr) or (name in _FIELD_LIST_FUNCTIONS and not is_scalar(v.type)):
                ins.append(self.expr.field_list(v))
            else:
                ins.append(self.expr(v))
        if name in _CHECKSUM_FUNCTIONS and len(call.args) >= 3:
            ck = call.args[2].value
            ins.append(f"{self.expr(ck.expr)}._valid" if isinstance(ck, E.Member) else "True")
        return ins, outs, widths

    def call_stmt(self, call: E.Call, result_target: str | None = None) -> None:
        if result_target is None and (self.inline_csum16(call) or self.inline_hash(call)):
            return
        special = self.special_call(call)
        if special is not None:
            if special:
                self.emit(special if result_target is None else f"{result_target} = {special}")
            return
        fn = self.callee(call)
        ins, outs, widths = self.call_parts(call)
        args = ", ".join(self.leading_args(call) + self.pack_args(call, ins) + widths)
        src = f"{fn}({args})"
        targets = ["_" if isinstance(o, E.DontCareExpr) else self.expr(o) for o in outs]
        if targets and _is_p4_callable(call) and _has_result(call):
            # A function returns (value, outs...): copy out first, then assign the value (P4 order).
            tmp = self.temp()
            self.emit(f"{tmp} = {src}")
            for i, o in enumerate(outs):
                self.store(o, f"{tmp}[{i + 1}]")
            if result_target is not None:
                self.emit(f"{result_target} = {tmp}[0]")
            return
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
        ins, outs, widths = self.call_parts(call)
        src = f"{self.callee(call)}({', '.join(self.leading_args(call) + self.pack_args(call, ins) + widths)})"
        if not self.returns_outs(call):
            return src
        if not (_is_p4_callable(call) and _has_result(call)):
            raise InternalError("a call with out arguments used inside an expression")
        # Copy-out inside an expression (e.g. the right operand of &&): bind the result tuple,
        # store each out value, then yield the function's value.
        tmp = self.temp()
        parts = [f"({tmp} := {src})"]
        for i, o in enumerate(outs):
            parts.append(self.assign_expr(o, f"{tmp}[{i + 1}]"))
        return f"({', '.join(parts)}, {tmp}[0])[-1]"

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

    def leading_args(self, call: E.Call) -> list[str]:
        return ["_ctx"]

    def pack_args(self, call: E.Call, ins: list[str]) -> list[str]:
        """The in-argument sources as the callee takes them (BlockGen packs an action's into one tuple)."""
        return ins

    def callee(self, call: E.Call) -> str:
        raise NotImplementedError

    def special_call(self, call: E.Call) -> str | None:
        """Source for calls the generator inlines (header methods, stacks); None when generic."""
        target = call.target
        if isinstance(target, E.Member):
            bt = T.strip_newtype(target.expr.type)
            base = lambda: self.expr(target.expr)  # noqa: E731 - evaluated only when needed
            if isinstance(bt, (T.Header, T.HeaderUnion)):
                if target.member == "isValid":
                    return f"{base()}._valid"
                if target.member == "setValid":
                    return "; ".join([f"{base()}.set_valid()"] + self.union_siblings_invalid(target.expr))
                if target.member == "setInvalid":
                    return f"{base()}._valid = False"
            if isinstance(bt, T.Stack) and target.member in ("push_front", "pop_front"):
                return f"{base()}.{target.member}({call.args[0].value.value})"
        return None


def _is_p4_callable(call: E.Call) -> bool:
    return isinstance(call.target, E.PathExpr) and call.target.ref in ("action", "function")


def _has_result(call: E.Call) -> bool:
    method = call.target.type
    return isinstance(method, T.Method) and not isinstance(method.ret, T.Void)


def _ends_in_action_run(e: E.Expr) -> bool:
    return isinstance(e, E.Member) and e.member == "action_run"
