"""Statements and calls to Python source lines (used for actions, functions, apply blocks, parser states)."""
from __future__ import annotations

from dataplane.engine.codegen.calls import CallGen, _is_p4_callable
from dataplane.engine.codegen.expr import ExprGen, is_object, mask, wrap
from dataplane.engine.codegen.index import RuntimeIndexGen
from dataplane.engine.codegen.inline import InlineExterns
from dataplane.engine.codegen.loops import LoopGen
from dataplane.engine.source_map import Locator
from dataplane.engine.structgen import default_value, py_name
from dataplane.errors import InternalError
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.ir.node import Visitor, walk


class Names:
    """Nested name scopes: P4 names to the Python expressions that hold them."""

    def __init__(self, base: dict[str, str]):
        self.frames = [dict(base)]
        self.used: set[str] = set(base.values())
        # Per base name, the suffix the last search stopped at: ``used`` only grows, so the first
        # free suffix never moves back, and a block with thousands of `v` parameters stays linear.
        self._next: dict[str, int] = {}

    def __getitem__(self, name: str) -> str:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        raise KeyError(name)

    def fresh(self, name: str) -> str:
        """Bind ``name`` in the innermost scope to a new Python local (P4 allows shadowing)."""
        base = "v_" + name.replace(".", "__")
        i = self._next.get(base, 0)
        py = f"{base}_{i}" if i else base
        while py in self.used:
            i += 1
            py = f"{base}_{i}"
        self._next[base] = i
        self.used.add(py)
        self.frames[-1][name] = py
        return py

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()


class StmtGen(RuntimeIndexGen, LoopGen, CallGen, InlineExterns, Visitor):
    """Emits indented Python lines for statements; subclasses supply the block context.

    ``stmt`` dispatches through ``Visitor`` to ``visit_<ClassName>`` per statement class.
    """

    def __init__(self, program, names: Names):
        self.program = program
        self.names = names
        self.expr = ExprGen(program, names, self)
        self.out: list[str] = []
        self.indent = 1
        self.tmp = 0
        self.returns = "return"  # what `return;` becomes (actions with scalar out params return them)
        self.ret_outs: list[str] = []  # a function's scalar out/inout params, returned after its value
        # Shared by the module's generators (backend.generate sets it); ``at`` is the P4
        # position comment that ends each line emitted for the current statement.
        self.locator = Locator()
        self.at = ""

    def emit(self, line: str) -> None:
        self.out.append("    " * self.indent + line + self.at)

    def located(self, span) -> str:
        """Make ``span`` the position of the lines emitted next; returns the one to restore."""
        saved = self.at
        self.at = self.locator.comment(span) or saved
        return saved

    def temp(self) -> str:
        self.tmp += 1
        return f"_t{self.tmp}"

    # ---- statements -------------------------------------------------------------------------
    def generic_visit(self, s) -> None:
        raise InternalError(f"no code generator for statement {type(s).__name__}")

    def block(self, stmts) -> None:
        self.names.push()
        start = len(self.out)
        for s in stmts:
            self.stmt(s)
        if len(self.out) == start:
            self.emit("pass")
        self.names.pop()

    def visit_BlockStmt(self, s):
        self.block(s.stmts)

    def visit_Empty(self, s):
        self.emit("pass")

    def visit_VarDecl(self, s):
        t = self.type_of_decl(s)
        init = s.init
        if init is None or isinstance(init, E.InvalidHeader) or (
                is_object(t) and isinstance(init, (E.ListExpr, E.StructInit)) and _constant_init(init)):
            py = self.names.fresh(s.name)
            self.emit(f"{py} = {default_value(t)}")   # a fresh header is invalid already
            if init is not None and not isinstance(init, E.InvalidHeader):
                self.assign_to(py, t, init)
            return
        value = self.expr(init)
        py = self.names.fresh(s.name)   # bound after the initializer, which cannot see the new name
        if is_object(t) and not isinstance(init, (E.ListExpr, E.StructInit)):
            self.emit(f"{py} = {default_value(t)}")
            self.emit(f"{py}.copy_from({value})")
        else:
            self.emit(f"{py} = {value}")   # a scalar, a tuple, or a new object made by the initializer

    def type_of_decl(self, s: S.VarDecl) -> T.Type:
        if s.resolved is None:
            raise InternalError(f"variable '{s.name}' reached code generation without a type")
        return s.resolved

    def visit_ConstDecl(self, s):
        py = self.names.fresh(s.name)
        self.emit(f"{py} = {self.expr(s.value)}")

    def visit_Assign(self, s):
        lhs = s.lhs
        bindings = self.anchor_assignment(lhs, s.rhs)
        if isinstance(lhs, E.Slice):
            self.store(lhs, self.expr(s.rhs))
        else:
            self.assign_to(self.expr(lhs), lhs.type, s.rhs)
            siblings = self.union_siblings_invalid(lhs)
            if siblings:
                self.emit(f"if {self.expr(lhs)}._valid: {'; '.join(siblings)}")
        self.unbind(bindings)

    def anchor_assignment(self, lhs: E.Expr, rhs: E.Expr) -> list:
        """Evaluate the location ``lhs`` names once, before ``rhs`` (spec §6.8: l-values are
        evaluated once, left to right): when its index holds a call, or when a call on the right
        could change what the index reads. A compound assignment's read of the same l-value on
        the right (``a[f()] |= x`` is checked as ``a[f()] = a[f()] | x``) reads that location."""
        has_call = lambda e: any(isinstance(n, E.Call) for n in walk(e))  # noqa: E731
        if not (has_call(lhs) or (_dynamic(lhs) and has_call(rhs))):
            return []
        node = _location_object(lhs)
        if node is None:
            return []
        tmp = self.temp()
        self.emit(f"{tmp} = {self.expr(node)}")
        bound = [node]
        self.expr.bound.append((node, tmp))
        if isinstance(rhs, E.Binary) and rhs.left == lhs:
            again = _location_object(rhs.left)
            if again is not None:
                self.expr.bound.append((again, tmp))
                bound.append(again)
        return bound

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
            self.emit(f"{target}._valid = False" if isinstance(t, T.Header) else f"{target}._invalidate()")
            return
        if isinstance(t, T.StructLike) and isinstance(rhs, (E.ListExpr, E.StructInit)) and _constant_init(rhs):
            # Constant fields: set them in place (nothing on the right reads the target).
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
        if is_object(t):
            self.emit(f"{target}.copy_from({self.expr(rhs)})")
            return
        if isinstance(rhs, E.Call) and (self.returns_outs(rhs) or _is_p4_callable(rhs)):
            self.call_stmt(rhs, result_target=target)
            return
        self.emit(f"{target} = {self.expr(rhs)}")

    def visit_If(self, s, guard: str = ""):
        cond = self.expr(s.cond)
        self.emit(f"if {guard} and {cond}:" if guard else f"if {cond}:")
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

    def visit_Exit(self, s):
        self.emit("raise EXIT")

    def visit_Return(self, s):
        if s.value is not None:
            if self.ret_outs:
                self.emit(f"return ({self.expr(s.value)}, {', '.join(self.ret_outs)},)")
            else:
                self.emit(f"return {self.expr(s.value)}")
        else:
            self.emit(self.returns)

    def visit_Switch(self, s):
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

    def visit_CallStmt(self, s):
        self.call_stmt(s.call)

    # ---- what subclasses supply --------------------------------------------------------------
    def trace_call(self, call: E.Call) -> None:
        """Report an extern call to the packet's trace (blocks do; functions have no context)."""

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


def _ends_in_action_run(e: E.Expr) -> bool:
    return isinstance(e, E.Member) and e.member == "action_run"


def _dynamic(e: E.Expr) -> bool:
    """Whether l-value ``e`` has an index that is not a constant (or a stack's next/last)."""
    return any((isinstance(n, E.Index) and not isinstance(n.index, E.Constant))
               or (isinstance(n, E.Member) and n.member in ("next", "last") and isinstance(n.expr.type, T.Stack))
               for n in walk(e))


def _location_object(e: E.Expr) -> E.Expr | None:
    """The object (header, struct, stack element) whose field or whole value l-value ``e`` names."""
    while isinstance(e, E.Slice):
        e = e.expr
    if isinstance(e, E.Member) and is_object(e.expr.type):
        return e.expr
    if isinstance(e, (E.Index, E.Member)) and is_object(e.type):
        return e
    return None


def _constant_init(e: E.Expr) -> bool:
    """A list or struct expression whose leaves are all constants."""
    if isinstance(e, E.ListExpr):
        return all(_constant_init(x) for x in e.elements)
    if isinstance(e, E.StructInit):
        return all(_constant_init(f.value) for f in e.fields)
    if isinstance(e, E.Cast):
        return _constant_init(e.expr)
    return isinstance(e, (E.Constant, E.BoolLiteral, E.TypeMember, E.InvalidHeader))
