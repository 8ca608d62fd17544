"""The checker's shared state, declared once with its types.

``Checker`` is split by topic into mixins (``types``, ``expr``, ``stmt``,
``table``, ...); each reads and writes this state through ``self``. As p4c's
``typeChecker.h`` declares everything its ``typeCheck*.cpp`` files use, this class declares
every attribute the mixins share, so a reader (and a type checker) finds them in one place.
"""
from __future__ import annotations

from typing import Any

from dataplane.errors import DiagnosticSink, Span
from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import Visitor
from dataplane.lang.bounded import Deadline
from dataplane.lang.limits import DEFAULT_LIMITS, CompileLimits, LimitExceeded
from dataplane.lang.scope import Scope

_DEADLINE_EVERY = 4096      # visits between looks at the clock (a look costs about as much as a visit)


class CheckerState(Visitor):
    """What the checker knows while it walks a program, in declaration order."""

    sink: DiagnosticSink
    program: P.Program
    # Types: every named type, the generic parameters in scope, generic structs and their instances.
    types: dict[str, T.Type]
    type_vars: list[dict[str, T.Type]]
    generic_structs: dict[str, D.StructTypeDecl]
    specialized: dict[tuple, T.Type]          # (generic name, type arguments) -> the type
    specialized_from: dict[str, str]          # specialized generic struct type -> the generic's name
    error_members: list[str]
    match_kinds: list[str]
    # Names: the current scope and the kinds of construct being checked (innermost last).
    scope: Scope
    contexts: list[str]
    return_type: T.Type | None                # of the function being checked
    switch_subject: E.Expr | None             # the expression of the switch statement being checked
    keep_opassign: bool                       # p4test's @test_keep_opassign: compound assignments stay
    in_kept_compound_assignment: bool
    target_errors: list[tuple[str, Span]]     # mid-end errors, reported where the program uses them
    blocks_being_checked: set[str]            # parsers and controls whose bodies are being checked
    functions_being_checked: set[str]         # to tell a recursive call from an unknown name
    table_actions: dict[str, set[str]]
    instances: list[P.ExternInstance]         # of the control being checked (tables add implicit ones)
    package_overloads: dict[str, list]        # package name -> [(type, declaration)]
    # The parser or control being checked: its kind, its scope and its sub-block instances.
    block_kind: str | None
    block_scope: Scope | None
    subblocks: list[P.BlockInstance]
    block_decls: dict[str, D.ParserDecl | D.ControlDecl]  # for default argument values
    # Bounds (lang.limits): statements, expressions and types being checked inside one another.
    limits: CompileLimits
    deadline: Deadline
    depth: int
    visits: int
    block_depths: dict[str, int]              # parser/control -> how deep its sub-block instances nest
    type_sizes: dict[int, tuple]              # id(type) -> (type, (levels, fields)): type_size

    def __init__(self, sink: DiagnosticSink, source: str = "<input>", limits: CompileLimits = DEFAULT_LIMITS,
                 deadline: Deadline | None = None):
        self.sink = sink
        self.limits = limits
        self.deadline = deadline or Deadline(limits.seconds)
        self.depth = 0
        self.visits = 0
        self.block_depths = {}
        self.type_sizes = {}
        self.program = P.Program(source=source, architecture="")
        self.types = {}
        self.type_vars = []
        self.generic_structs = {}
        self.specialized = {}
        self.specialized_from = {}
        self.error_members = []
        self.match_kinds = []
        self.scope = Scope(kind="global")
        self.contexts = []
        self.return_type = None
        self.switch_subject = None
        self.keep_opassign = False
        self.in_kept_compound_assignment = False
        self.target_errors = []
        self.blocks_being_checked = set()
        self.functions_being_checked = set()
        self.table_actions = {}
        self.instances = []
        self.package_overloads = {}
        self.block_kind = None
        self.block_scope = None
        self.subblocks = []
        self.block_decls = {}

    def visit(self, node: Any, *args: Any) -> Any:
        """``Visitor.visit``, counting how deep statements and expressions nest: one level over
        ``limits.nesting`` is a ``limit`` error there, before the passes recurse deeper than
        they have room for (``lang.bounded``). Every few thousand visits, the clock."""
        depth = self.depth = self.depth + 1
        try:
            if depth > self.limits.nesting:
                self.too_deep(node.span)
            self.visits += 1
            if not self.visits % _DEADLINE_EVERY:
                self.deadline.check(node.span)
            try:
                method = self._tables["visit_"][type(node)]
            except KeyError:
                method = type(self).rule("visit_", type(node))
            return method(self, node, *args)
        finally:
            self.depth = depth - 1

    def too_deep(self, span: Span, what: str = "statements, expressions and types nest") -> None:
        """Stop at ``span``: ``what`` more than ``limits.nesting`` levels deep."""
        raise LimitExceeded(f"{what} more than {self.limits.nesting} levels deep here "
                            "(the limit of the compiler, lang/limits.py)", span)
