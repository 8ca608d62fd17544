"""The checker's shared state, declared once with its types.

``Checker`` is split by topic into mixins (``check_types``, ``check_expr``, ``check_stmt``,
``check_table``, ...); each reads and writes this state through ``self``. As p4c's
``typeChecker.h`` declares everything its ``typeCheck*.cpp`` files use, this class declares
every attribute the mixins share, so a reader (and a type checker) finds them in one place.
"""
from __future__ import annotations

from dataplane.errors import DiagnosticSink, Span
from dataplane.ir import decl as D
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import Visitor
from dataplane.lang.scope import Scope


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
    listed_actions: list[tuple]               # (action, signature, declaration, table) tables list

    def __init__(self, sink: DiagnosticSink, source: str = "<input>"):
        self.sink = sink
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
        self.listed_actions = []
