"""The type checker: walks declarations in order and returns the typed, lowered ``ir.program.Program``.

It is split by topic into mixins (types, expressions, calls, statements, tables); this
module holds the shared state and the declarations that own scopes: externs, parsers,
controls, actions, functions, instantiations and the ``main`` package.
"""
from __future__ import annotations

from contextlib import contextmanager

from dataplane.errors import InternalError, Span
from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.ir.node import annotation
from dataplane.lang.check.blocks import BlockMixin
from dataplane.lang.check.call import CallMixin
from dataplane.lang.check.compare import CompareMixin
from dataplane.lang.check.decls import DeclRulesMixin
from dataplane.lang.check.entries import EntriesMixin
from dataplane.lang.check.expr import ExprMixin
from dataplane.lang.check.infer import InferenceMixin
from dataplane.lang.check.initializer import InitializerMixin
from dataplane.lang.check.instances import InstancesMixin
from dataplane.lang.check.names import NamesMixin
from dataplane.lang.check.package import PackageMixin
from dataplane.lang.check.params import ParamRulesMixin
from dataplane.lang.check.parser_graph import ParserGraphMixin
from dataplane.lang.check.state import CheckerState
from dataplane.lang.check.stmt import StmtMixin
from dataplane.lang.check.table import TableMixin
from dataplane.lang.check.target import TargetRulesMixin
from dataplane.lang.check.type_size import TypeSizeMixin
from dataplane.lang.check.types import UNKNOWN, TypeMixin, is_unknown
from dataplane.lang.check.value_set import ValueSetMixin
from dataplane.lang.scope import Symbol

_BLOCK_CONTEXTS = ("parser", "control", "action", "function")


class Checker(CheckerState, TypeMixin, ExprMixin, CallMixin, StmtMixin, TableMixin, ValueSetMixin, InitializerMixin, BlockMixin,
              PackageMixin, EntriesMixin, ParamRulesMixin, CompareMixin, InferenceMixin, InstancesMixin,
              TargetRulesMixin, NamesMixin, ParserGraphMixin, DeclRulesMixin, TypeSizeMixin):
    """Checks a parsed program and lowers it to ``ir.program.Program``; the state it shares
    with its mixins is declared in ``state.CheckerState``. Expressions and statements
    dispatch through ``visit`` (``visit_<Node>`` in the mixins), top-level declarations through
    ``dispatch("top_", ...)``."""

    # ---- shared helpers ----------------------------------------------------------------------
    def generic_visit(self, node, *args):
        # Every expression and statement the builder makes has a rule; reaching here is a bug.
        raise InternalError(f"the checker has no rule for {type(node).__name__} (at {node.span})")

    def error(self, message: str, span: Span, code: str) -> None:
        """Report an error with its catalogue code (``dataplane.diagnostics``)."""
        self.sink.error(message, span, code)

    def in_context(self, kind: str) -> bool:
        """Whether checking is inside ``kind``; for a block kind (parser, control, action,
        function) only the innermost one counts: a function in an instance initializer
        inside a parser is a function, not a parser."""
        if kind in _BLOCK_CONTEXTS:
            return next((k for k in reversed(self.contexts) if k in _BLOCK_CONTEXTS), None) == kind
        return kind in self.contexts

    @contextmanager
    def context(self, kind: str, scope_kind: str | None = None):
        outer = self.scope
        self.contexts.append(kind)
        if scope_kind is not None:
            self.scope = outer.child(scope_kind)
        try:
            yield
        finally:
            self.contexts.pop()
            self.scope = outer

    def declare_value(self, sym: Symbol) -> None:
        if sym.kind != "param":
            self.check_shadowed_param(sym.name, sym.span)
        old = self.scope.declare(sym)
        if old is not None:
            self.error(f"'{sym.name}' is already declared in this scope", sym.span, code="duplicate")

    def add_instance(self, inst: P.ExternInstance) -> None:
        """Record an instance created implicitly, e.g. by a table's ``implementation = action_profile(...)``."""
        self.instances.append(inst)

    # ---- the program -----------------------------------------------------------------------------
    def check_program(self, prog: D.P4Program) -> P.Program:
        self.keep_opassign = any(annotation(getattr(d, "annotations", ()), "test_keep_opassign") for d in prog.decls)
        for d in prog.decls:
            self.check_top(d)
        p = self.program
        self.check_control_plane_names(prog)
        self.report_target_errors(prog)
        p.errors = tuple(self.error_members)
        p.match_kinds = tuple(self.match_kinds)
        p.types = {n: t for n, t in self.types.items() if not is_unknown(t)}
        p.type_annotations = {d.name: d.annotations for d in prog.decls
                              if isinstance(d, (D.StructTypeDecl, D.EnumDecl, D.TypedefDecl)) and d.annotations}
        for special, generic in self.specialized_from.items():   # S<bit<8>> has S's annotations
            if generic in p.type_annotations:
                p.type_annotations[special] = p.type_annotations[generic]
        if not self.sink.has_errors():  # a field of an erroneous type has no width
            p.headers = {n: P.header_layout(t) for n, t in p.types.items() if isinstance(t, T.Header) and n == t.name}
        if p.package is None and not self.sink.has_errors():
            last = prog.decls[-1].span if prog.decls else Span(p.source, 1, 1)
            # p4c checks such a program and only warns; running it is what needs a package.
            self.sink.warning("the program has no 'main' package instance (e.g. V1Switch(...) main;): "
                              "it can be checked but not run", last, code="no-main")
        return p

    def check_top(self, d) -> None:
        self.check_annotations(getattr(d, "annotations", ()))
        self.check_declared_name(d)
        if isinstance(d, (D.ActionDecl, D.FunctionDecl)):
            self.check_top_level_name(d)
        if isinstance(d, D.StructTypeDecl):
            self.check_field_annotations(d)
        self.dispatch("top_", d)

    # One rule per kind of top-level declaration.
    def top_StructTypeDecl(self, d: D.StructTypeDecl) -> None:
        self.declare_struct(d)

    def top_EnumDecl(self, d: D.EnumDecl) -> None:
        self.declare_enum(d)

    def top_TypedefDecl(self, d: D.TypedefDecl) -> None:
        self.declare_typedef(d)

    def top_ErrorDecl(self, d: D.ErrorDecl) -> None:
        self._extend(self.error_members, d.members, "error", d.span)

    def top_MatchKindDecl(self, d: D.MatchKindDecl) -> None:
        self._extend(self.match_kinds, d.members, "match_kind", d.span)

    def top_ConstDecl(self, d: S.ConstDecl) -> None:
        checked = self.visit_ConstDecl(d)
        self.program.constants[d.name] = P.Constant(d.name, checked.value.type or UNKNOWN, checked.value, d.span)

    def top_ExternDecl(self, d: D.ExternDecl) -> None:
        self.declare_extern(d)

    def top_MethodDecl(self, d: D.MethodDecl) -> None:
        m = self.method_type(d)
        self.declare_value(Symbol(d.name, "extern_function", m, decl=d, span=d.span))

    def top_BlockTypeDecl(self, d: D.BlockTypeDecl) -> None:
        if d.kind == "package":
            self.declare_package(d)
        else:
            self.declare_block_type(d.kind, d.name, d.type_params, d.params, (), d.span)

    def top_ParserDecl(self, d: D.ParserDecl) -> None:
        self.program.parsers[d.name] = self.check_parser(d)

    def top_ControlDecl(self, d: D.ControlDecl) -> None:
        self.program.controls[d.name] = self.check_control(d)

    def top_ActionDecl(self, d: D.ActionDecl) -> None:
        self.program.actions[d.name] = self.check_action(d)

    def top_FunctionDecl(self, d: D.FunctionDecl) -> None:
        self.program.functions[d.name] = self.check_function(d)

    def top_Instantiation(self, d: D.Instantiation) -> None:
        inst = self.check_instantiation(d, top=True)
        if inst is not None:
            self.program.instances += (inst,)

    def top_Unsupported(self, d: D.Unsupported) -> None:
        self.error(f"unsupported: {d.what}", d.span, code="unsupported")

    def top_Node(self, d) -> None:
        self.error(f"unsupported: {type(d).__name__} at top level", d.span, code="unsupported")

    def _extend(self, into: list[str], members, what: str, span: Span) -> None:
        for m in members:
            if m in into:
                self.error(f"{what} member '{m}' is declared twice", span, code="duplicate")
            else:
                into.append(m)

    # ---- parameters and locals ---------------------------------------------------------------
    def _declare_params(self, params: tuple[T.Param, ...], decls: tuple[D.ParamDecl, ...]) -> None:
        for p, d in zip(params, decls):
            self.declare_value(Symbol(p.name, "param", p.type, direction=p.direction, span=d.span))

    def _check_local(self, item, variables: list, instances: list) -> None:
        """A parser's or control's local declaration, by its class (``local_<Node>``)."""
        self.dispatch("local_", item, variables, instances)

    def local_VarDecl(self, item: S.VarDecl, variables: list, instances: list) -> None:
        checked = self.visit_VarDecl(item)
        sym = self.scope.lookup(item.name)
        variables.append(P.Variable(item.name, sym.type if sym else UNKNOWN, checked.init, item.span))

    def local_ConstDecl(self, item: S.ConstDecl, variables: list, instances: list) -> None:
        self.visit_ConstDecl(item)

    def local_Instantiation(self, item: D.Instantiation, variables: list, instances: list) -> None:
        inst = self.check_instantiation(item, top=False)
        if isinstance(inst, P.BlockInstance):
            self.subblocks.append(inst)
        elif inst is not None:
            instances.append(inst)

    def local_ValueSetDecl(self, item: D.ValueSetDecl, variables: list, instances: list) -> None:
        inst = self.check_value_set(item)
        if inst is not None:
            instances.append(inst)

    def local_Unsupported(self, item: D.Unsupported, variables: list, instances: list) -> None:
        self.error(f"unsupported: {item.what}", item.span, code="unsupported")

    def local_Node(self, item, variables: list, instances: list) -> None:
        self.error(f"unsupported: {type(item).__name__} here", item.span, code="unsupported")

    # ---- parsers ------------------------------------------------------------------------------
    def check_parser(self, d: D.ParserDecl) -> P.Parser:
        block = self.declare_block_type("parser", d.name, d.type_params, d.params, d.ctor_params, d.span)
        self.blocks_being_checked.add(d.name)
        variables: list[P.Variable] = []
        instances: list[P.ExternInstance] = []
        states: dict[str, P.ParserState] = {}
        with self.block_body("parser", d) as subblocks:
            self._declare_params(block.params + block.constructor_params, d.params + d.ctor_params)
            for item in d.locals:
                self._check_local(item, variables, instances)
            names = {"accept", "reject"}
            for st in d.states:
                if st.name in names:
                    self.error(f"state '{st.name}' is declared twice" if st.name not in ("accept", "reject")
                               else f"state '{st.name}' is predefined and cannot be declared", st.span,
                               code="duplicate")
                names.add(st.name)
            if "start" not in names:
                self.error(f"parser '{d.name}' has no 'start' state", d.span, code="parser-graph")
            for st in d.states:
                states[st.name] = self._check_state(st, names)
            self.check_parser_ends(d)
        self.blocks_being_checked.discard(d.name)
        return P.Parser(d.name, block.params, tuple(variables), tuple(instances), states, d.annotations, d.span,
                        tuple(subblocks), block.constructor_params)

    def _check_state(self, st: D.StateDecl, names: set[str]) -> P.ParserState:
        outer = self.scope
        self.scope = outer.child()
        try:
            stmts = tuple(self.check_stmt(s) for s in st.stmts)
            tr = st.transition
            if tr is None:
                return P.ParserState(st.name, stmts, next_state="reject", span=st.span)
            if tr.state:
                self._check_state_name(tr.state, names, tr.span)
                return P.ParserState(st.name, stmts, next_state=tr.state, span=st.span)
            keys = tuple(self.check_expr(k) for k in tr.select)
            for k, raw in zip(keys, tr.select):
                if not is_unknown(k.type) and not isinstance(T.strip_newtype(k.type), (T.Bits, T.Bool, T.Enum, T.ErrorType)):
                    self.error(f"cannot select on a value of type {k.type}", raw.span, code="operand-type")
            cases = []
            for case in tr.cases:
                self._check_state_name(case.state, names, case.span)
                cases.append(P.SelectCase(self._select_keysets(case.keyset, keys), case.state))
            if not keys:   # `select () { default: s; }`: the first case always matches
                return P.ParserState(st.name, stmts, next_state=cases[0].next_state if cases else "reject",
                                     span=st.span)
            return P.ParserState(st.name, stmts, keys, tuple(cases), "reject", st.span)
        finally:
            self.scope = outer

    def _select_keysets(self, keyset: E.Expr, keys: tuple[E.Expr, ...]) -> tuple[E.Expr, ...]:
        if isinstance(keyset, E.PathExpr):
            sym = self.scope.lookup(keyset.name)
            if sym is not None and sym.kind == "value_set":
                return (self.value_set_keyset(keyset, sym, keys),)
        if isinstance(keyset, E.DefaultKeyset):
            return tuple(E.DefaultKeyset(type=k.type, span=keyset.span) for k in keys)
        parts = keyset.elements if isinstance(keyset, E.TupleKeyset) else (keyset,)
        if len(parts) != len(keys):
            self.error(f"select case has {len(parts)} value(s) for {len(keys)} key(s)", keyset.span, code="keyset")
            return tuple(E.DefaultKeyset(type=UNKNOWN, span=keyset.span) for _ in keys)
        return tuple(self.check_keyset(p, k.type or UNKNOWN, None, "select case") for p, k in zip(parts, keys))

    def _check_state_name(self, name: str, names: set[str], span: Span) -> None:
        if name not in names:
            self.error(f"unknown parser state '{name}'", span, code="unknown-state")

    # ---- controls, actions, functions ------------------------------------------------------------
    def check_control(self, d: D.ControlDecl) -> P.Control:
        block = self.declare_block_type("control", d.name, d.type_params, d.params, d.ctor_params, d.span)
        self.blocks_being_checked.add(d.name)
        variables: list[P.Variable] = []
        instances: list[P.ExternInstance] = []
        actions: dict[str, P.Action] = {}
        tables: dict[str, P.Table] = {}
        outer_instances, self.instances = self.instances, instances
        with self.block_body("control", d) as subblocks:
            self._declare_params(block.params + block.constructor_params, d.params + d.ctor_params)
            for item in d.locals:
                if isinstance(item, D.ActionDecl):
                    actions[item.name] = self.check_action(item)
                elif isinstance(item, D.TableDecl):
                    tables[item.name] = self.check_table(item)
                    self.declare_value(Symbol(item.name, "table", T.Table(item.name), span=item.span))
                else:
                    self._check_local(item, variables, instances)
            with self.context("apply"):
                body = self.check_block(d.body)
        self.instances = outer_instances
        self.blocks_being_checked.discard(d.name)
        return P.Control(d.name, block.params, tuple(variables), tuple(instances), actions, tables, body,
                         d.annotations, d.span, tuple(subblocks), block.constructor_params)

    def check_action(self, d: D.ActionDecl) -> P.Action:
        params = self.resolve_params(d.params)
        self.check_action_params(d.name, params, d.params)
        seen_data = False
        for p, pd in zip(params, d.params):
            if not p.direction:
                seen_data = True
            elif seen_data:
                self.error(f"action '{d.name}': directional parameter '{p.name}' must come before "
                           "the action data (directionless) parameters", pd.span, code="invalid-declaration")
        self.declare_value(Symbol(d.name, "action", T.Method(d.name, params), decl=d, span=d.span))
        with self.context("action", "action"):
            self._declare_params(params, d.params)
            body = self.check_block(d.body)
        return P.Action(d.name, params, body, d.annotations, d.span, tuple(pd.annotations for pd in d.params))

    def check_function(self, d: D.FunctionDecl) -> P.Function:
        self.check_type_params(d.type_params, d.params, d.span)
        self.type_vars.append({n: T.TypeVar(n, d.name) for n in d.type_params})
        try:
            ret = self.resolve(d.ret)
            params = self.resolve_params(d.params)
            outer_ret = self.return_type
            self.return_type = ret
            self.functions_being_checked.add(d.name)
            with self.context("function", "function"):
                self._declare_params(params, d.params)
                body = self.check_block(d.body)
            self.functions_being_checked.discard(d.name)
            self.return_type = outer_ret
            # Declared after its body: P4 has no recursion, so a function does not see itself (as in p4c).
            self.declare_value(Symbol(d.name, "function", T.Method(d.name, params, ret, d.type_params), span=d.span))
            if ret != T.VOID and not _always_returns(body):
                self.error(f"function '{d.name}' does not return a value on every path", d.span, code="missing-return")
        finally:
            self.type_vars.pop()
        return P.Function(d.name, params, ret, body, d.span)

    # ---- instantiations and the package ------------------------------------------------------------
    def check_instantiation(self, d: D.Instantiation, top: bool) -> P.ExternInstance | P.BlockInstance | None:
        t = self.resolve(d.type_ref)
        if is_unknown(t):
            self.declare_value(Symbol(d.name, "instance", UNKNOWN, span=d.span))
            return None
        if not self.check_instance_form(d, t, top):
            return None
        if isinstance(t, T.Block) and t.kind == "package":
            if top:
                self.check_package_instance(d, t)
            else:
                self.error(f"a package ('{t.name}') can only be instantiated at the top level", d.span,
                           code="instantiation")
            return None
        if top and not self.check_top_instance(t, d.name, d.span):
            self.declare_value(Symbol(d.name, "instance", UNKNOWN, span=d.span))
            return None
        checked = self.check_expr(E.ConstructorCall(d.type_ref, d.args, span=d.span))
        self.declare_value(Symbol(d.name, "instance", checked.type, span=d.span))
        if isinstance(t, T.Block) and not top and not is_unknown(checked.type):
            return self.block_instance(d, t, checked)
        if not isinstance(t, T.Extern):  # an error already reported
            return None
        args = tuple(a.value for a in getattr(checked, "args", ()))
        methods = self.check_initializer(d, checked.type) if not is_unknown(checked.type) else ()
        return P.ExternInstance(d.name, t.name, getattr(checked.type, "type_args", ()), args, d.annotations, d.span,
                                methods)


def _always_returns(s: S.Stmt) -> bool:
    if isinstance(s, (S.Return, S.Exit)):
        return True
    if isinstance(s, S.BlockStmt):
        return any(_always_returns(x) for x in s.stmts)
    if isinstance(s, S.If):
        return s.otherwise is not None and _always_returns(s.then) and _always_returns(s.otherwise)
    return False
