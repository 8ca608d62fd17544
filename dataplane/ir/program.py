"""The lowered whole-program IR that backends consume.

Everything here is resolved and typed: header layouts carry bit offsets, parser states
form a graph, tables name their keys, match kinds and actions, extern instances carry
their folded constructor arguments, and the package names the block for each slot.
Expressions and statements inside are the checker's typed nodes.
"""
from __future__ import annotations

from dataclasses import field
from typing import cast

from dataplane.errors import NO_SPAN, Span
from dataplane.ir.expr import Expr
from dataplane.ir.stmt import BlockStmt, Stmt
from dataplane.ir.types import Param, StructLike, Type
from dataplane.records import record


@record(frozen=True, slots=True)
class FieldLayout:
    name: str
    width: int
    offset: int  # bits from the start of the header, most significant first (network order)
    signed: bool = False
    varbit: bool = False


@record(frozen=True, slots=True)
class HeaderLayout:
    """A header type's wire format; ``width`` excludes varbit fields' variable part."""

    name: str
    fields: tuple[FieldLayout, ...]
    width: int
    kind: str = "header"

    @property
    def byte_width(self) -> int:
        return self.width // 8

    def field(self, name: str) -> FieldLayout:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


@record(frozen=True, slots=True)
class Variable:
    name: str
    type: Type
    init: Expr | None = None
    span: Span = NO_SPAN


@record(frozen=True, slots=True)
class Constant:
    name: str
    type: Type
    value: Expr
    span: Span = NO_SPAN


@record(frozen=True, slots=True)
class ExternInstance:
    """An instantiated extern object: ``register<bit<32>>(1024) r;``."""

    name: str
    extern: str
    type_args: tuple[Type, ...]
    args: tuple[Expr, ...]
    annotations: tuple = ()
    span: Span = NO_SPAN
    methods: tuple = ()   # Functions implementing the extern's abstract methods (an initializer)


@record(frozen=True, slots=True)
class BlockInstance:
    """A parser or control instantiated inside another: ``compute() c;``, or the anonymous
    instance a direct invocation ``compute.apply(...)`` creates (p4c names it after the type).

    ``args`` are the checked constructor arguments in the order of the block's constructor
    parameters, defaults filled in. The front end's inlining pass flattens every instance
    into the parser or control that holds it; backends never see one.
    """

    name: str
    block: str                      # the parser or control type instantiated
    args: tuple[Expr, ...] = ()
    annotations: tuple = ()
    span: Span = NO_SPAN


@record(frozen=True, slots=True)
class Action:
    name: str
    params: tuple[Param, ...]
    body: BlockStmt
    annotations: tuple = ()
    span: Span = NO_SPAN
    param_annotations: tuple = ()   # each parameter's annotations, in order (P4Info copies them)

    @property
    def data_params(self) -> tuple[Param, ...]:
        """Directionless parameters: the values the control plane supplies."""
        return tuple(p for p in self.params if not p.direction)


@record(frozen=True, slots=True)
class Function:
    name: str
    params: tuple[Param, ...]
    ret: Type
    body: BlockStmt
    span: Span = NO_SPAN


@record(frozen=True, slots=True)
class ActionCall:
    """An action with its argument values: a table's action-list item, default action or entry action."""

    action: str
    args: tuple[Expr, ...] = ()
    annotations: tuple = ()


@record(frozen=True, slots=True)
class TableKey:
    expr: Expr
    match_kind: str
    name: str  # the control-plane name: @name, else the expression as written
    span: Span = NO_SPAN
    annotations: tuple = ()


@record(frozen=True, slots=True)
class Entry:
    """A ``const entries`` element; each key is a typed Constant, Mask, Range or DefaultKeyset.

    ``priority`` is a ``priority = N :`` prefix, ``annotated_priority`` an ``@priority(N)``.
    """

    keys: tuple[Expr, ...]
    action: ActionCall
    priority: int | None = None
    span: Span = NO_SPAN
    is_const: bool = False
    annotated_priority: int | None = None


@record(frozen=True, slots=True)
class Table:
    name: str
    keys: tuple[TableKey, ...]
    actions: tuple[ActionCall, ...]
    default_action: ActionCall
    default_action_const: bool = False
    entries: tuple[Entry, ...] = ()
    entries_const: bool = False
    size: int | None = None
    implementation: str | None = None  # an extern instance name (action_profile / action_selector)
    counters: str | None = None        # a direct_counter instance name
    meters: str | None = None          # a direct_meter instance name
    properties: tuple[tuple[str, Expr], ...] = ()
    annotations: tuple = ()
    span: Span = NO_SPAN


@record(frozen=True, slots=True)
class SelectCase:
    keysets: tuple[Expr, ...]  # one per select key: Constant, Mask, Range or DefaultKeyset
    next_state: str


@record(frozen=True, slots=True)
class ParserState:
    name: str
    stmts: tuple[Stmt, ...]
    select: tuple[Expr, ...] = ()       # empty: unconditional transition to ``next_state``
    cases: tuple[SelectCase, ...] = ()
    next_state: str = "reject"
    span: Span = NO_SPAN

    @property
    def successors(self) -> tuple[str, ...]:
        if self.select:
            return tuple(dict.fromkeys(c.next_state for c in self.cases))
        return (self.next_state,)


@record(frozen=True, slots=True)
class Parser:
    name: str
    params: tuple[Param, ...]
    variables: tuple[Variable, ...]
    instances: tuple[ExternInstance, ...]
    states: dict[str, ParserState]
    annotations: tuple = ()
    span: Span = NO_SPAN
    subblocks: tuple[BlockInstance, ...] = ()   # sub-parser instances (none after inlining)
    ctor_params: tuple[Param, ...] = ()


@record(frozen=True, slots=True)
class Control:
    name: str
    params: tuple[Param, ...]
    variables: tuple[Variable, ...]
    instances: tuple[ExternInstance, ...]
    actions: dict[str, Action]
    tables: dict[str, Table]
    body: BlockStmt
    annotations: tuple = ()
    span: Span = NO_SPAN
    subblocks: tuple[BlockInstance, ...] = ()   # sub-control instances (none after inlining)
    ctor_params: tuple[Param, ...] = ()


@record(frozen=True, slots=True)
class Package:
    """The ``main`` package instance: which declared block fills each slot."""

    name: str          # e.g. "main"
    type_name: str     # e.g. "V1Switch"
    blocks: tuple[tuple[str, str], ...]  # (slot parameter name, parser/control name) in order
    block_args: tuple[tuple[Expr, ...], ...] = ()  # each block's constructor arguments, same order
    annotations: tuple = ()   # of the ``main`` declaration (@pkginfo, ...)
    arg_externs: tuple[str, ...] = ()   # program.instances made by the package's own arguments


@record(slots=True)
class Program:
    source: str
    architecture: str
    headers: dict[str, HeaderLayout] = field(default_factory=dict)
    types: dict[str, Type] = field(default_factory=dict)      # every named type (headers, structs, enums, ...)
    errors: tuple[str, ...] = ()
    match_kinds: tuple[str, ...] = ()
    constants: dict[str, Constant] = field(default_factory=dict)
    actions: dict[str, Action] = field(default_factory=dict)  # top-level actions (NoAction, ...)
    functions: dict[str, Function] = field(default_factory=dict)
    instances: tuple[ExternInstance, ...] = ()                # top-level extern instances
    parsers: dict[str, Parser] = field(default_factory=dict)
    controls: dict[str, Control] = field(default_factory=dict)
    package: Package | None = None
    # Annotations of named type declarations (@controller_header, @p4runtime_translation, ...)
    type_annotations: dict[str, tuple] = field(default_factory=dict)

    def block(self, slot: str) -> Parser | Control:
        """The parser or control filling the package slot ``slot`` (e.g. ``ig``)."""
        assert self.package is not None
        for name, block in self.package.blocks:
            if name == slot:
                return self.parsers.get(block) or self.controls[block]
        raise KeyError(slot)


def control_plane_name(block: str, name: str, annotations: tuple) -> str:
    """The name p4c gives a table, action or extern instance of ``block`` in BMv2's JSON and P4Info:
    ``block.name``, where an ``@name`` replaces ``name`` and one starting with ``.`` is absolute
    (inlined sub-control objects carry ``@name("c1.t")``, so ``ingress.c1.t``). ``block`` is ""
    for a top-level action."""
    from dataplane.ir.node import annotation

    alias = annotation(annotations, "name")
    own = alias.string_value if alias is not None else name
    if own.startswith("."):
        return own[1:]
    return f"{block}.{own}" if block else own


def header_layout(t: StructLike) -> HeaderLayout:
    """Bit layout of a header type, fields packed most-significant first.

    A field of struct type is laid out as its own fields, in order, named ``outer.inner``.
    """
    from dataplane.ir.types import Bits, Enum, NewType, Struct, VarBits

    fields = []
    offset = 0

    def add(prefix: str, members: tuple) -> None:
        nonlocal offset
        for f in members:
            ft = f.type
            while isinstance(ft, NewType):
                ft = ft.base
            if isinstance(ft, Struct):
                add(prefix + f.name + ".", ft.fields)
                continue
            if isinstance(ft, VarBits):
                fields.append(FieldLayout(prefix + f.name, ft.max_width, offset, False, True))
                continue
            if isinstance(ft, Enum):
                ft = ft.underlying
            width = ft.bit_width()
            fields.append(FieldLayout(prefix + f.name, width, offset, isinstance(ft, Bits) and ft.signed))
            offset += width

    add("", t.fields)
    return HeaderLayout(t.name, tuple(fields), offset, t.kind)


def field_type(t: StructLike, path: str) -> Type:
    """The type of layout field ``path`` (``outer.inner`` for a field of a struct field) of ``t``."""
    from dataplane.ir.types import strip_newtype

    ft: Type = t
    for part in path.split("."):
        f = cast(StructLike, strip_newtype(ft)).get_field(part)
        assert f is not None, f"{t.name} has no field {path}"   # paths come from its own layout
        ft = f.type
    return ft
