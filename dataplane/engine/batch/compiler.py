"""The block compiler: one parser or control of a program to functions over a batch's columns.

``BlockCompiler`` joins the expression, statement, call, table, parser and deparser
compilers; ``BatchState`` is what they run on. Construction raises ``BatchUnsupported``
(with the construct and its location) for anything that cannot run exactly.
"""
from __future__ import annotations

import numpy as np

from dataplane.engine.batch.actions import ActionMixin
from dataplane.engine.batch.calls import CallMixin
from dataplane.engine.batch.columns import Columns
from dataplane.engine.batch.deparser import DeparserMixin
from dataplane.engine.batch.exprs import ExprMixin
from dataplane.engine.batch.parser import ParserMixin
from dataplane.engine.batch.refuse import refuse
from dataplane.engine.batch.stmts import StmtMixin
from dataplane.engine.batch.values import leaves, zeros
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.ir.node import Visitor


class BatchState:
    """The columns of one batch while it runs: fields, validity, locals; offsets, emits, exits."""

    __slots__ = ("n", "cols", "data", "lengths", "pos", "exited", "emits", "packet_length", "_zero",
                 "returned", "retval", "origin", "scratch")

    def __init__(self, data: np.ndarray, lengths: np.ndarray, scratch: bool = False):
        self.n = len(lengths)
        self.cols = Columns(data)
        # Where each header was last extracted: an offset shared by every packet, or one per
        # packet (-1: not extracted); the deparser keeps packets whose headers stay there.
        self.origin: dict[str, int | np.ndarray] = {}
        # ``data`` is the caller's to give away: the deparser may write the outputs into it.
        self.scratch = scratch
        self.data = data
        self.lengths = lengths
        self.pos = np.zeros(self.n, dtype=np.int64)
        self.exited = None
        self.returned = None   # packets past a ``return`` in the running action or function
        self.retval = None
        self.emits: list = []
        self.packet_length = lengths.astype(np.float64)
        self._zero = None

    def reindex(self, take: np.ndarray) -> None:
        """Rows become ``take``'s (copies of packets, for multicast); the caller re-indexes columns."""
        self.n = len(take)
        self.scratch = True   # a copy now
        self.data = self.data[take]
        self.cols.data = self.data
        self.lengths = self.lengths[take]
        self.pos = self.pos[take]
        self.packet_length = self.packet_length[take]
        self._zero = None
        for base, at in self.origin.items():
            if not isinstance(at, int):
                self.origin[base] = at[take]

    def init(self, columns) -> None:
        """Zero the columns (``(path, is bool)`` pairs, ``kinds``). They share two read-only zero
        arrays: every write makes a new array."""
        z = self._zero
        if z is None:
            z = self._zero = (zeros(T.Bits(8), self.n), zeros(T.Bool(), self.n))
            for a in z:
                a.flags.writeable = False
        put = dict.__setitem__     # not assignments: ``written`` is left alone
        cols = self.cols
        for path, is_bool in columns:
            put(cols, path, z[is_bool])


def kinds(columns: list[tuple[str, T.Type]]) -> list[tuple[str, bool]]:
    """``(path, type)`` columns as ``BatchState.init`` takes them: ``(path, is a bool column)``."""
    return [(path, isinstance(T.strip_newtype(t), T.Bool)) for path, t in columns]


class BlockCompiler(ExprMixin, StmtMixin, CallMixin, ActionMixin, ParserMixin, DeparserMixin, Visitor):
    """Compiles one block; ``roots`` maps its parameter names to column roots (``hdr``, ``meta``, ``sm``).

    Statements and expressions dispatch through ``ir.node.Visitor`` (``visit_<ClassName>``, in
    ``stmts`` and ``exprs``); a class with no method is a construct this engine refuses.
    """

    def generic_visit(self, node, *args):
        kind = "statement" if isinstance(node, S.Stmt) else "expression"
        refuse(node, f"{kind} {type(node).__name__}")

    def __init__(self, program: P.Program, block, roots: dict[str, str], tables: dict, instances: dict,
                 snapshots: dict, sm_root: str = "sm"):
        self.program = program
        self.block_ir = block
        self.block_name = block.name
        self.control = block if isinstance(block, P.Control) else None
        self.scope: dict[str, str] = dict(roots)
        self.tables = tables
        self.snapshots = snapshots
        self.sm_root = sm_root
        self.action_cache: dict = {}
        self.apply_cache: dict = {}
        self.instances = {}
        for inst in program.instances:
            if inst.name in instances:
                self.instances[inst.name] = instances[inst.name]
        for inst in block.instances:
            key = f"{block.name}.{inst.name}"
            if key in instances:
                self.instances[inst.name] = instances[key]
            else:
                refuse(inst, f"extern instance {inst.extern} {inst.name}")
        self.packet_params = {p.name: T.strip_newtype(p.type).name for p in block.params
                              if isinstance(T.strip_newtype(p.type), T.Extern)}
        self.locals: list[tuple[str, T.Type]] = []
        self.local_inits = []
        for v in block.variables:
            path = f"V.{block.name}.{v.name}"
            self.locals += leaves(v.type, path, v)
            self.scope[v.name] = path
        self.local_kinds = kinds(self.locals)
        for v in block.variables:
            if v.init is not None:
                self.local_inits.append(self.assigner(self.scope[v.name], v.type, v.init, v))

    def start(self, st: BatchState, act: np.ndarray) -> None:
        """Fresh block-level variables (the per-packet engine makes them anew on every call)."""
        st.init(self.local_kinds)
        for f in self.local_inits:
            f(st, act)
        st.exited = None

    def compile_control(self):
        body = self.stmt(self.control.body)

        def run(st, act):
            self.start(st, act)
            body(st, act)
            st.exited = None
        return run

    # packet_in / packet_out calls reach here through call_stmt
    def call_stmt(self, call: E.Call):
        target = call.target
        if isinstance(target, E.Member) and isinstance(target.expr, E.PathExpr) \
                and target.expr.name in self.packet_params:
            kind = self.packet_params[target.expr.name]
            if kind == "packet_in":
                return self.packet_in_call(call)
            if kind == "packet_out":
                return self.packet_out_call(call)
        if isinstance(target, E.PathExpr) and target.ref == "extern_function" and target.name == "verify" \
                and self.control is None:
            return self.parser_verify(call)
        return super().call_stmt(call)

    def call_expr(self, call: E.Call):
        target = call.target
        if isinstance(target, E.Member) and isinstance(target.expr, E.PathExpr) \
                and self.packet_params.get(target.expr.name) == "packet_in":
            if target.member == "length":
                return lambda st, act: st.lengths.astype(np.uint64)
            return self.lookahead(call)
        return super().call_expr(call)

    def parser_verify(self, call: E.Call):
        cond = self.expr(call.args[0].value)
        code = self.expr(call.args[1].value)
        err = self.sm_root + ".parser_error"

        def verify(st, act):
            bad = act & ~np.asarray(cond(st, act), dtype=bool)
            if bad.any():
                st.cols[err] = np.where(bad, code(st, act), st.cols[err])
                st.exited = bad if st.exited is None else st.exited | bad
        return verify

