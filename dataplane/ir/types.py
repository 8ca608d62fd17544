"""P4_16 types as frozen data; typedefs are resolved away before these exist."""
from __future__ import annotations

from dataclasses import field

from dataplane.records import record


class Type:
    """Base of all P4 types."""

    __slots__ = ()

    @property
    def is_integer(self) -> bool:
        return isinstance(self, (Bits, InfInt))

    def bit_width(self) -> int:
        """Width in bits when serialised in a header (varbit gives its maximum)."""
        raise TypeError(f"type {self} has no fixed width")


@record(frozen=True, slots=True)
class Bits(Type):
    """``bit<W>`` (unsigned) or ``int<W>`` (signed, two's complement)."""

    width: int
    signed: bool = False

    def __str__(self) -> str:
        return f"{'int' if self.signed else 'bit'}<{self.width}>"

    def bit_width(self) -> int:
        return self.width


@record(frozen=True, slots=True)
class VarBits(Type):
    max_width: int

    def __str__(self) -> str:
        return f"varbit<{self.max_width}>"

    def bit_width(self) -> int:
        return self.max_width


@record(frozen=True, slots=True)
class InfInt(Type):
    """The arbitrary-precision compile-time ``int`` type of untyped literals."""

    def __str__(self) -> str:
        return "int"


@record(frozen=True, slots=True)
class Bool(Type):
    def __str__(self) -> str:
        return "bool"

    def bit_width(self) -> int:
        return 1


@record(frozen=True, slots=True)
class String(Type):
    def __str__(self) -> str:
        return "string"


@record(frozen=True, slots=True)
class Void(Type):
    def __str__(self) -> str:
        return "void"


@record(frozen=True, slots=True)
class DontCare(Type):
    """Type of ``_`` in a type position (an unconstrained type argument)."""

    def __str__(self) -> str:
        return "_"


@record(frozen=True, slots=True)
class ErrorType(Type):
    members: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "error"


@record(frozen=True, slots=True)
class MatchKind(Type):
    def __str__(self) -> str:
        return "match_kind"


@record(frozen=True, slots=True)
class StructField:
    name: str
    type: Type
    annotations: tuple = field(default=(), compare=False)


@record(frozen=True, slots=True)
class StructLike(Type):
    """Common base of struct, header and header_union types (nominal: compared by name)."""

    name: str
    fields: tuple[StructField, ...] = field(compare=False)
    # Field name -> field, built on the first get_field: a struct of thousands of headers is
    # looked up once per member access, which a scan of its fields made quadratic.
    _by_name: dict | None = field(default=None, init=False, repr=False, compare=False)
    kind = "struct"

    def __str__(self) -> str:
        return self.name

    def get_field(self, name: str) -> StructField | None:
        index = self._by_name
        if index is None:
            index = {}
            for f in self.fields:
                index.setdefault(f.name, f)  # the first of a duplicated name, as a scan finds
            object.__setattr__(self, "_by_name", index)
        return index.get(name)

    def bit_width(self) -> int:
        return sum(f.type.bit_width() for f in self.fields)


@record(frozen=True, slots=True)
class Struct(StructLike):
    kind = "struct"


@record(frozen=True, slots=True)
class Header(StructLike):
    kind = "header"


@record(frozen=True, slots=True)
class HeaderUnion(StructLike):
    kind = "header_union"


@record(frozen=True, slots=True)
class Stack(Type):
    """Header stack ``H[size]``."""

    element: Type
    size: int

    def __str__(self) -> str:
        return f"{self.element}[{self.size}]"

    def bit_width(self) -> int:
        return self.element.bit_width() * self.size


@record(frozen=True, slots=True)
class Enum(Type):
    """An enum; serializable when ``underlying`` is set (then ``values`` holds each member's value)."""

    name: str
    members: tuple[str, ...] = field(compare=False)
    underlying: Bits | None = field(default=None, compare=False)
    values: tuple[int, ...] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.name

    def bit_width(self) -> int:
        if self.underlying is None:
            raise TypeError(f"enum {self.name} is not serializable")
        return self.underlying.width


@record(frozen=True, slots=True)
class NewType(Type):
    """A ``type T N;`` declaration: a distinct type with the representation of ``base``."""

    name: str
    base: Type = field(compare=False)

    def __str__(self) -> str:
        return self.name

    def bit_width(self) -> int:
        return self.base.bit_width()


@record(frozen=True, slots=True)
class Tuple(Type):
    """Type of a list expression ``{a, b}`` and of ``tuple<...>``."""

    elements: tuple[Type, ...]

    def __str__(self) -> str:
        return "tuple<" + ", ".join(map(str, self.elements)) + ">"


@record(frozen=True, slots=True)
class P4List(Type):
    """``list<T>``: any number of compile-time values of type T (extern constructor arguments)."""

    element: Type

    def __str__(self) -> str:
        return f"list<{self.element}>"


@record(frozen=True, slots=True)
class TypeVar(Type):
    """A generic type parameter such as ``T`` in ``extern register<T>``."""

    name: str
    owner: str = ""

    def __str__(self) -> str:
        return self.name


@record(frozen=True, slots=True)
class Param:
    direction: str  # "in", "out", "inout" or "" (directionless)
    type: Type
    name: str
    has_default: bool = False


@record(frozen=True, slots=True)
class Method(Type):
    """Signature of a function, extern method, action or block constructor."""

    name: str
    params: tuple[Param, ...]
    ret: Type = Void()
    type_params: tuple[str, ...] = ()

    def __str__(self) -> str:
        tp = f"<{', '.join(self.type_params)}>" if self.type_params else ""
        ps = ", ".join(f"{(p.direction + ' ') if p.direction else ''}{p.type} {p.name}" for p in self.params)
        return f"{self.ret} {self.name}{tp}({ps})"


@record(frozen=True, slots=True)
class Extern(Type):
    """An extern object type; ``type_args`` are filled in for an instantiation."""

    name: str
    type_params: tuple[str, ...] = field(default=(), compare=False)
    constructors: tuple[Method, ...] = field(default=(), compare=False)
    methods: tuple[Method, ...] = field(default=(), compare=False)
    type_args: tuple[Type, ...] = ()
    abstract: tuple[tuple[str, bool], ...] = field(default=(), compare=False)   # (method, required) an instance implements

    def __str__(self) -> str:
        if self.type_args:
            return f"{self.name}<{', '.join(map(str, self.type_args))}>"
        return self.name


@record(frozen=True, slots=True)
class Block(Type):
    """A parser, control or package type (declared or prototyped)."""

    kind: str  # "parser", "control" or "package"
    name: str
    params: tuple[Param, ...] = field(compare=False)
    type_params: tuple[str, ...] = field(default=(), compare=False)
    constructor_params: tuple[Param, ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        return self.name


@record(frozen=True, slots=True)
class Table(Type):
    name: str

    def __str__(self) -> str:
        return f"table {self.name}"


@record(frozen=True, slots=True)
class ApplyResult(Type):
    """The struct that ``t.apply()`` returns: ``hit``, ``miss`` and ``action_run``."""

    table: str

    def __str__(self) -> str:
        return f"apply_result({self.table})"


@record(frozen=True, slots=True)
class ActionEnum(Type):
    """Type of ``t.apply().action_run``: the enumeration of a table's actions."""

    table: str

    def __str__(self) -> str:
        return f"action_list({self.table})"


BOOL = Bool()
INT = InfInt()
VOID = Void()
STRING = String()
MATCH_KIND = MatchKind()


def strip_newtype(t: Type) -> Type:
    """The representation type behind any ``type`` declarations."""
    while isinstance(t, NewType):
        t = t.base
    return t


def is_header_like(t: Type) -> bool:
    return isinstance(t, (Header, HeaderUnion))
