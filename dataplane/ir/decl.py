"""Declaration nodes: types, externs, parsers, controls, actions, tables, instances."""
from __future__ import annotations

from dataplane.ir.expr import Argument, Call, Expr, TypeRef
from dataplane.ir.node import Node
from dataplane.ir.stmt import BlockStmt, ConstDecl, Stmt, VarDecl
from dataplane.records import record


@record(frozen=True, slots=True)
class Decl(Node):
    pass


@record(frozen=True, slots=True)
class FieldDecl(Node):
    type_ref: TypeRef
    name: str
    annotations: tuple = ()


@record(frozen=True, slots=True)
class StructTypeDecl(Decl):
    """``header``, ``header_union`` or ``struct`` (``kind`` says which); generic when it has ``type_params``."""

    kind: str
    name: str
    fields: tuple[FieldDecl, ...]
    annotations: tuple = ()
    type_params: tuple[str, ...] = ()


@record(frozen=True, slots=True)
class EnumDecl(Decl):
    name: str
    members: tuple[str, ...]
    underlying: TypeRef | None = None
    values: tuple[Expr, ...] = ()
    annotations: tuple = ()


@record(frozen=True, slots=True)
class TypedefDecl(Decl):
    """``typedef`` (``is_new=False``) or ``type`` (``is_new=True``)."""

    type_ref: TypeRef
    name: str
    is_new: bool = False
    annotations: tuple = ()


@record(frozen=True, slots=True)
class ErrorDecl(Decl):
    members: tuple[str, ...]


@record(frozen=True, slots=True)
class MatchKindDecl(Decl):
    members: tuple[str, ...]


@record(frozen=True, slots=True)
class ParamDecl(Node):
    direction: str
    type_ref: TypeRef
    name: str
    default: Expr | None = None
    annotations: tuple = ()


@record(frozen=True, slots=True)
class MethodDecl(Decl):
    """A function prototype: an extern function, an extern method or an extern constructor (``ret`` is None)."""

    name: str
    ret: TypeRef | None
    type_params: tuple[str, ...]
    params: tuple[ParamDecl, ...]
    annotations: tuple = ()
    is_abstract: bool = False


@record(frozen=True, slots=True)
class ExternDecl(Decl):
    name: str
    type_params: tuple[str, ...]
    methods: tuple[MethodDecl, ...]
    annotations: tuple = ()


@record(frozen=True, slots=True)
class FunctionDecl(Decl):
    name: str
    ret: TypeRef
    type_params: tuple[str, ...]
    params: tuple[ParamDecl, ...]
    body: BlockStmt
    annotations: tuple = ()


@record(frozen=True, slots=True)
class ActionDecl(Decl):
    name: str
    params: tuple[ParamDecl, ...]
    body: BlockStmt
    annotations: tuple = ()


@record(frozen=True, slots=True)
class Instantiation(Decl):
    """``Type<args>(ctor args) name;``."""

    type_ref: TypeRef
    args: tuple[Argument, ...]
    name: str
    annotations: tuple = ()
    initializer: tuple | None = None   # ``= { ... }``: functions implementing abstract methods, instances they use


@record(frozen=True, slots=True)
class ValueSetDecl(Decl):
    """``value_set<T>(size) name;`` in a parser: a set the control plane fills, used as a select case."""

    type_ref: TypeRef
    size: Expr
    name: str
    annotations: tuple = ()


# ---- tables ---------------------------------------------------------------------------------

@record(frozen=True, slots=True)
class KeyElement(Node):
    expr: Expr
    match_kind: str
    annotations: tuple = ()


@record(frozen=True, slots=True)
class ActionRef(Node):
    """An entry of a table's ``actions`` list: a name with arguments for its directional parameters."""

    name: str
    args: tuple[Argument, ...] = ()
    annotations: tuple = ()
    top: bool = False          # written `.a`: the top-level action, not a control's own


@record(frozen=True, slots=True)
class EntryDecl(Node):
    """An ``entries`` element: keyset, action call, optional priority; ``is_const`` when written
    ``const`` in a table whose entries are not all constant."""

    keys: tuple[Expr, ...]
    action: ActionRef
    priority: Expr | None = None
    annotations: tuple = ()
    is_const: bool = False


@record(frozen=True, slots=True)
class TableProperty(Node):
    """One table property: ``key``, ``actions``, ``default_action``, ``entries`` or any ``name = expr``."""

    name: str
    value: object  # tuple[KeyElement] | tuple[ActionRef] | ActionRef | tuple[EntryDecl] | Expr
    is_const: bool = False
    annotations: tuple = ()


@record(frozen=True, slots=True)
class TableDecl(Decl):
    name: str
    properties: tuple[TableProperty, ...]
    annotations: tuple = ()

    def prop(self, name: str) -> TableProperty | None:
        for p in self.properties:
            if p.name == name:
                return p
        return None


# ---- parsers ----------------------------------------------------------------------------------

@record(frozen=True, slots=True)
class SelectCase(Node):
    keyset: Expr
    state: str


@record(frozen=True, slots=True)
class Transition(Node):
    """``transition s;`` (``select`` empty, ``state`` set) or ``transition select(...) {...}``."""

    state: str = ""
    select: tuple[Expr, ...] = ()
    cases: tuple[SelectCase, ...] = ()


@record(frozen=True, slots=True)
class StateDecl(Decl):
    name: str
    stmts: tuple[Stmt, ...]
    transition: Transition | None
    annotations: tuple = ()


@record(frozen=True, slots=True)
class ParserDecl(Decl):
    name: str
    type_params: tuple[str, ...]
    params: tuple[ParamDecl, ...]
    ctor_params: tuple[ParamDecl, ...]
    locals: tuple[Decl | Stmt, ...]
    states: tuple[StateDecl, ...]
    annotations: tuple = ()


@record(frozen=True, slots=True)
class ControlDecl(Decl):
    name: str
    type_params: tuple[str, ...]
    params: tuple[ParamDecl, ...]
    ctor_params: tuple[ParamDecl, ...]
    locals: tuple[Decl | Stmt, ...]
    body: BlockStmt
    annotations: tuple = ()


@record(frozen=True, slots=True)
class BlockTypeDecl(Decl):
    """A ``parser``/``control`` prototype or a ``package`` declaration (ends with ``;``)."""

    kind: str
    name: str
    type_params: tuple[str, ...]
    params: tuple[ParamDecl, ...]
    annotations: tuple = ()


@record(frozen=True, slots=True)
class Unsupported(Decl):
    """A valid P4 construct this front end does not implement; the checker reports it."""

    what: str


@record(frozen=True, slots=True)
class P4Program(Node):
    """The parsed translation unit, prelude included, in source order."""

    decls: tuple[Decl | ConstDecl, ...]


__all__ = [
    "Decl", "FieldDecl", "StructTypeDecl", "EnumDecl", "TypedefDecl", "ErrorDecl", "MatchKindDecl",
    "ParamDecl", "MethodDecl", "ExternDecl", "FunctionDecl", "ActionDecl", "Instantiation",
    "KeyElement", "ActionRef", "EntryDecl", "TableProperty", "TableDecl", "SelectCase", "Transition",
    "StateDecl", "ParserDecl", "ControlDecl", "BlockTypeDecl", "Unsupported", "P4Program",
    "VarDecl", "ConstDecl", "Call",
]
