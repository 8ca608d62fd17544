"""Type checker: what p4c's targets refuse although the language allows it.

p4c runs these checks in the mid-end it shares between its back ends (BMv2's simple_switch,
PSA and PNA, p4test, DPDK), so a program that breaks one never runs on BMv2:

- ``/`` and ``%`` are evaluated at compile time; at run time only a division by a power
  of 2 survives (as a shift or a mask) (``CompileTimeOperations``);
- a switch statement becomes a table, so it needs ``match_kind exact`` from core.p4 and
  cannot be in an action (``EliminateSwitch``);
- a struct holding structs, headers or stacks cannot be an extern's ``out``/``inout``
  argument (``NestedStructs``), and a struct-typed field of a parser or control parameter
  holding such structs cannot be written by an extern (``FlattenInterfaceStructs``);
- v1model's ``V1MODEL_VERSION`` is one p4c knows (``GetV1ModelVersion``).

The mid-end only sees what the front end kept: p4c first removes what the program never
uses (a control no package instantiates, an action nothing calls or lists, everything when
there is no ``main``). So the mid-end rules are collected while checking and reported at
the end for the declarations the program uses.
"""
from __future__ import annotations

from dataplane.errors import Span
from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.ir.node import walk
from dataplane.lang.check.types import is_unknown

V1MODEL_VERSIONS = (20180101, 20200408)  # the first and the latest v1model.p4 p4c knows


def _power_of_two(e: E.Expr) -> bool:
    return isinstance(e, E.Constant) and e.value > 0 and e.value & (e.value - 1) == 0


def nested_struct(t: T.Type) -> bool:
    """A struct with a struct, header, union, tuple or stack field (p4c's ``isNestedStruct``)."""
    return isinstance(t, T.Struct) and any(
        isinstance(f.type, (T.StructLike, T.Tuple, T.Stack)) for f in t.fields)


class TargetRulesMixin:
    """Checks for constructs p4c's back ends cannot compile."""

    def target_error(self, message: str, span: Span) -> None:
        """A mid-end error: reported by ``report_target_errors`` if its declaration is used."""
        self.target_errors.append((message, span))

    def report_target_errors(self, prog: D.P4Program) -> None:
        """Report the mid-end errors in what p4c keeps: blocks the package instantiates, used actions."""
        if self.program.package is None or not self.target_errors:
            return
        blocks = self.instance_counts(prog)
        called = {n.name for n in walk(prog) if isinstance(n, D.ActionRef)}
        called |= {n.target.name for n in walk(prog) if isinstance(n, E.Call) and isinstance(n.target, E.PathExpr)}
        for message, span in self.target_errors:
            if _used(prog.decls, span, blocks, called):
                self.error(message, span, code="target")

    def check_run_time_division(self, e: E.Binary, left: E.Expr, right: E.Expr) -> None:
        """``a / b`` and ``a % b`` with a run-time operand: only a constant power-of-2 divisor remains."""
        if isinstance(left, E.Constant) and (isinstance(right, E.Constant) or left.value == 0):
            return
        if _power_of_two(right) or self.in_kept_compound_assignment:
            return
        what = "division" if e.op == "/" else "remainder"
        self.target_error(f"'{e.op}' needs operands known at compile time or a constant power-of-2 divisor "
                   f"(p4c's targets have no run-time {what})", e.span)

    def check_switch_target(self, span: Span, on_action_run: bool) -> None:
        """p4c turns a switch on a value into a table: it needs 'exact' and cannot sit in an action."""
        if self.in_context("action"):
            self.target_error("switch statements cannot be used in actions on BMv2 (p4c turns them into tables, "
                       "which actions cannot apply); use if/else", span)
        elif not on_action_run and "exact" not in self.match_kinds:
            self.target_error("a switch statement needs match_kind 'exact' (p4c implements it as a table); "
                       "include core.p4", span)

    def check_extern_out_args(self, method: T.Method, args: tuple[E.Argument, ...], what: str, span: Span) -> None:
        """An extern's out/inout argument cannot be a struct holding structs, headers or stacks."""
        for param, arg in zip(_by_param(method, args), args):
            if param is None or param.direction not in ("out", "inout") or arg.value is None:
                continue
            if nested_struct(arg.value.type):
                self.target_error(f"argument '{param.name}' of {what} is '{param.direction}' and has type "
                           f"{arg.value.type}, a struct holding structs or headers: p4c's targets cannot pass "
                           "one out of an extern; pass its fields", arg.span)
                return
            self.check_struct_write(arg.value, f"'{param.direction}' argument '{param.name}' of {what}")

    def check_struct_write(self, target: E.Expr, how: str) -> None:
        """A struct-typed field of a parser/control parameter whose struct holds structs, written by an extern."""
        if not isinstance(target, E.Member) or not isinstance(target.type, T.Struct):
            return
        root = target
        while isinstance(root, E.Member):
            root = root.expr
        if not isinstance(root, E.PathExpr) or not nested_struct(root.type):
            return
        if self.declaring_scope_kind(root.name) not in ("parser", "control"):
            return  # a local, or an action's parameter (p4c sees through those only after inlining)
        self.target_error(f"'{_path(target)}' is a struct inside parameter '{root.name}', and p4c's targets cannot write "
                   f"a whole struct there from an extern ({how}); write its fields", target.span)

    def declaring_scope_kind(self, name: str) -> str | None:
        """The kind of the scope that declares ``name`` (``control`` for a control's parameters)."""
        scope = self.scope
        while scope is not None:
            if name in scope.names:
                return scope.kind
            scope = scope.parent
        return None

    def check_v1model_version(self, name: str, value: E.Expr, span: Span) -> None:
        """``__v1model_version`` (set from V1MODEL_VERSION in v1model.p4) is a version p4c knows."""
        if name != "__v1model_version" or is_unknown(value.type):
            return
        if not isinstance(value, E.Constant) or value.value < 0:
            self.error("V1MODEL_VERSION must be a non-negative number"
                       + (f", got {value.value}" if isinstance(value, E.Constant) else ""), span, code="target")
        elif not V1MODEL_VERSIONS[0] <= value.value <= V1MODEL_VERSIONS[1]:
            self.error(f"unknown V1MODEL_VERSION {value.value}: versions from {V1MODEL_VERSIONS[0]} to "
                       f"{V1MODEL_VERSIONS[1]} are supported", span, code="target")


def _by_param(method: T.Method, args: tuple[E.Argument, ...]) -> list:
    """The parameter each argument binds (by name or position)."""
    out = []
    for i, a in enumerate(args):
        if a.name:
            out.append(next((p for p in method.params if p.name == a.name), None))
        else:
            out.append(method.params[i] if i < len(method.params) else None)
    return out


def _path(e: E.Expr) -> str:
    parts = []
    while isinstance(e, E.Member):
        parts.append(e.member)
        e = e.expr
    parts.append(e.name if isinstance(e, E.PathExpr) else "?")
    return ".".join(reversed(parts))


def _contains(outer: Span, inner: Span) -> bool:
    return (outer.file == inner.file and (outer.line, outer.col) <= (inner.line, inner.col)
            and (inner.line, inner.col) <= (outer.end_line, outer.end_col))


def _used(decls, span: Span, blocks: dict[str, int], called: set[str]) -> bool:
    """Whether the declaration around ``span`` survives p4c's removal of unused declarations."""
    for d in decls:
        if not _contains(d.span, span):
            continue
        if isinstance(d, (D.ControlDecl, D.ParserDecl)):
            if blocks.get(d.name, 0) == 0:
                return False
            return _used(d.locals, span, blocks, called)
        if isinstance(d, (D.ActionDecl, D.FunctionDecl)):
            return d.name in called
        return True
    return True
