"""Expression nodes and syntactic type references.

The front end builds these with ``type=None``; the type checker returns copies with
``type`` set, implicit casts made explicit and compile-time constants folded.
"""
from __future__ import annotations

from dataplane.ir.node import Node
from dataplane.ir.types import Type
from dataplane.records import KW_ONLY, record

# ---- type references as written in the source ----------------------------------------

@record(frozen=True, slots=True)
class TypeRef(Node):
    """Base of syntactic types; the checker resolves them to ``dataplane.ir.types`` values."""


@record(frozen=True, slots=True)
class BitsRef(TypeRef):
    width: "Expr"
    signed: bool = False


@record(frozen=True, slots=True)
class VarbitRef(TypeRef):
    width: "Expr"


@record(frozen=True, slots=True)
class BaseTypeRef(TypeRef):
    """``bool``, ``error``, ``string``, ``void``, ``int``, ``match_kind`` or ``_``."""

    name: str


@record(frozen=True, slots=True)
class NamedTypeRef(TypeRef):
    name: str
    args: tuple[TypeRef, ...] = ()


@record(frozen=True, slots=True)
class StackRef(TypeRef):
    element: TypeRef
    size: "Expr"


@record(frozen=True, slots=True)
class TupleRef(TypeRef):
    elements: tuple[TypeRef, ...]


@record(frozen=True, slots=True)
class ListRef(TypeRef):
    element: TypeRef


# ---- expressions -------------------------------------------------------------------------

@record(frozen=True, slots=True)
class Expr(Node):
    _: KW_ONLY
    type: Type | None = None


@record(frozen=True, slots=True)
class Constant(Expr):
    """An integer; ``type`` is ``bit<W>``/``int<W>`` for width-prefixed literals, else ``int``."""

    value: int
    base: int = 10


@record(frozen=True, slots=True)
class BoolLiteral(Expr):
    value: bool


@record(frozen=True, slots=True)
class StringLiteral(Expr):
    value: str


@record(frozen=True, slots=True)
class PathExpr(Expr):
    """A name; ``ref`` says what it resolved to (``local``, ``param``, ``const``, ``instance``, ``action``, ``table``, ...)."""

    name: str
    ref: str = ""


@record(frozen=True, slots=True)
class This(Expr):
    """``this``: the instance whose abstract methods an initializer implements."""


@record(frozen=True, slots=True)
class Member(Expr):
    expr: Expr | None
    member: str


@record(frozen=True, slots=True)
class TypeMember(Expr):
    """``error.X``, ``MyEnum.A`` or ``HashAlgorithm.crc16``: a member of a named type."""

    type_name: str
    member: str


@record(frozen=True, slots=True)
class Index(Expr):
    expr: Expr | None
    index: Expr | None


@record(frozen=True, slots=True)
class Slice(Expr):
    expr: Expr | None
    hi: Expr | None
    lo: Expr | None


@record(frozen=True, slots=True)
class PlusSlice(Expr):
    """``x[lo +: width]`` as written; the checker lowers it to a ``Slice`` or a shift and cast."""

    expr: Expr | None
    lo: Expr | None
    width: Expr | None


@record(frozen=True, slots=True)
class Unary(Expr):
    op: str  # "!", "~", "-", "+"
    operand: Expr | None


@record(frozen=True, slots=True)
class Binary(Expr):
    op: str  # "+", "-", "*", "/", "%", "|+|", "|-|", "&", "|", "^", "<<", ">>", "++", "==", "!=", "<", ">", "<=", ">=", "&&", "||"
    left: Expr | None
    right: Expr | None


@record(frozen=True, slots=True)
class Mux(Expr):
    """``cond ? then : otherwise``."""

    cond: Expr | None
    then: Expr | None
    otherwise: Expr | None


@record(frozen=True, slots=True)
class Cast(Expr):
    to: TypeRef | None
    expr: Expr | None


@record(frozen=True, slots=True)
class Argument(Node):
    """A call argument, optionally named (``f(x = 1)``); ``None`` value means ``_`` (don't care)."""

    value: Expr | None
    name: str = ""


@record(frozen=True, slots=True)
class Call(Expr):
    target: Expr | None
    type_args: tuple[TypeRef, ...] = ()
    args: tuple[Argument, ...] = ()


@record(frozen=True, slots=True)
class ConstructorCall(Expr):
    """``TypeName<args>(ctor args)`` used as an expression (package arguments, ``implementation = ...``)."""

    type_ref: TypeRef | None
    args: tuple[Argument, ...] = ()


@record(frozen=True, slots=True)
class ListExpr(Expr):
    """``{a, b, c}``: a tuple/list value (field lists for hash and checksum)."""

    elements: tuple[Expr, ...]


@record(frozen=True, slots=True)
class NamedField(Node):
    name: str
    value: Expr


@record(frozen=True, slots=True)
class StructInit(Expr):
    """``{ f1 = e1, f2 = e2 }``, optionally with a trailing ``...``."""

    fields: tuple[NamedField, ...]
    has_rest: bool = False


@record(frozen=True, slots=True)
class InvalidHeader(Expr):
    """``{#}``: an invalid header of the type the context expects."""


@record(frozen=True, slots=True)
class DefaultValue(Expr):
    """``...`` as a value."""


@record(frozen=True, slots=True)
class DontCareExpr(Expr):
    """``_`` as an expression (out argument that is ignored, or a keyset wildcard)."""


# ---- keysets (select cases and table entries) ----------------------------------------------

@record(frozen=True, slots=True)
class Mask(Expr):
    value: Expr | None
    mask: Expr | None


@record(frozen=True, slots=True)
class Range(Expr):
    lo: Expr | None
    hi: Expr | None


@record(frozen=True, slots=True)
class DefaultKeyset(Expr):
    """``default`` or ``_`` in a keyset."""


@record(frozen=True, slots=True)
class TupleKeyset(Expr):
    elements: tuple[Expr, ...]
