"""``P4DataTypeSpec`` and ``P4TypeInfo`` as p4c's TypeSpecConverter builds them.

Converting a type gives its spec (``bitstring``, ``bool``, ``struct {name}``, ...) and records
every named type it reaches in ``type_info``: structs, headers, header unions, enums,
serializable enums, ``error`` and user types (``type``), the latter with their
``@p4runtime_translation`` (translated type) or their original type.
"""
from __future__ import annotations

import re

from p4.config.v1 import p4types_pb2

from dataplane.control.p4info.annotations import add_annotations, split_top_level, unquote
from dataplane.control.p4info.ids import P4InfoError
from dataplane.ir import types as T
from dataplane.ir.node import annotation


def bytes_of(value: int, width: int) -> bytes:
    """``value`` in ``width`` bits as P4Runtime's minimal big-endian bytes (p4c's stringRepr)."""
    if value < 0:
        value &= (1 << width) - 1
    nbytes = max(1, (width + 7) // 8)
    return value.to_bytes(nbytes, "big")


def type_name(t: T.Type) -> str | None:
    """A user type's (``type``) name, which P4Info puts in ``type_name``; None for any other."""
    return t.name if isinstance(t, T.NewType) else None


def type_width(t: T.Type) -> int:
    """The width of type ``t``'s representation (``TypeSpecs.width`` also knows translations)."""
    while isinstance(t, T.NewType):
        t = t.base
    if isinstance(t, T.Enum):
        return t.underlying.width if t.underlying is not None else 32
    if isinstance(t, T.Bool):
        return 1
    if isinstance(t, T.ErrorType):
        return 32
    return t.bit_width()


class TypeSpecs:
    """Converts IR types to P4DataTypeSpecs, filling ``info`` (a ``P4TypeInfo``) as it goes."""

    def __init__(self, info: p4types_pb2.P4TypeInfo, type_annotations: dict[str, tuple],
                 errors: tuple[str, ...] = ()):
        self.info = info
        self.annotations = type_annotations
        self.errors = errors   # the program's error members, in declaration order

    def name(self, t: T.Type) -> str:
        """A named type's control-plane name: its ``@name`` (without a leading dot), else its name."""
        a = annotation(self.annotations.get(t.name, ()), "name")
        return a.string_value.lstrip(".") if a is not None else t.name

    def width(self, t: T.Type) -> int:
        """The width p4c gives a match field, parameter or metadata field of type ``t``: a user
        type's ``@p4runtime_translation`` width (0 for ``string``), 0 for ``error``, else the
        representation's width."""
        if isinstance(t, T.NewType):
            translation = self.translation(t)
            if translation is not None:
                return translation[1] or 0
        if isinstance(t, T.ErrorType):
            return 0
        return type_width(t)

    def translation(self, t: T.NewType) -> tuple[str, int | None] | None:
        """(URI, controller width or None for ``string``) of ``t``'s ``@p4runtime_translation``."""
        a = annotation(self.annotations.get(t.name, ()), "p4runtime_translation")
        if a is None:
            return None
        args = split_top_level(a.body)
        if len(args) != 2:
            raise P4InfoError(f"type {t.name}: @p4runtime_translation needs a URI and a type", a.span)
        kind = args[1].strip().replace(" ", "")
        if kind == "string":
            return unquote(args[0]), None
        m = re.fullmatch(r"bit<(\w+)>", kind)
        try:
            return unquote(args[0]), int(m.group(1) if m else kind, 0)
        except ValueError:
            raise P4InfoError(f"type {t.name}: @p4runtime_translation's second argument must be a width, "
                              f"bit<W> or string, not '{args[1].strip()}'", a.span) from None

    def spec(self, t: T.Type) -> p4types_pb2.P4DataTypeSpec:
        s = p4types_pb2.P4DataTypeSpec()
        if isinstance(t, T.Bits):
            (s.bitstring.int if t.signed else s.bitstring.bit).bitwidth = t.width
        elif isinstance(t, T.VarBits):
            s.bitstring.varbit.max_bitwidth = t.max_width
        elif isinstance(t, T.Bool):
            s.bool.SetInParent()
        elif isinstance(t, T.Tuple):
            s.tuple.SetInParent()
            for e in t.elements:
                s.tuple.members.add().CopyFrom(self.spec(e))
        elif isinstance(t, T.Stack):
            el = t.element
            if isinstance(el, T.HeaderUnion):
                s.header_union_stack.header_union.name = self.name(el)
                s.header_union_stack.size = t.size
            else:
                s.header_stack.header.name = self.name(el)
                s.header_stack.size = t.size
            self.record(el)
        elif isinstance(t, T.Header):
            s.header.name = self.name(t)
            self.record(t)
        elif isinstance(t, T.HeaderUnion):
            s.header_union.name = self.name(t)
            self.record(t)
        elif isinstance(t, T.Struct):
            s.struct.name = self.name(t)
            self.record(t)
        elif isinstance(t, T.Enum):
            if t.underlying is not None:
                s.serializable_enum.name = self.name(t)
            else:
                s.enum.name = self.name(t)
            self.record(t)
        elif isinstance(t, T.ErrorType):
            s.error.SetInParent()
            self.record(t)
        elif isinstance(t, T.NewType):
            s.new_type.name = self.name(t)
            self.record(t)
        else:
            raise P4InfoError(f"type {t} cannot be described in P4Info")
        return s

    def record(self, t: T.Type) -> None:
        """Add the named type ``t`` (and the types it uses) to ``type_info``, once."""
        info = self.info
        if isinstance(t, T.Header):
            if self.name(t) in info.headers:
                return
            spec = info.headers[self.name(t)]
            for name, ft in _flatten(t):
                m = spec.members.add()
                m.name = name
                m.type_spec.CopyFrom(self.spec(ft).bitstring)
        elif isinstance(t, T.HeaderUnion):
            if self.name(t) in info.header_unions:
                return
            spec = info.header_unions[self.name(t)]
            for f in t.fields:
                m = spec.members.add()
                m.name = f.name
                m.header.name = self.name(f.type)
                self.record(f.type)
        elif isinstance(t, T.Struct):
            if self.name(t) in info.structs:
                return
            spec = info.structs[self.name(t)]
            for f in t.fields:
                m = spec.members.add()
                m.name = f.name
                m.type_spec.CopyFrom(self.spec(f.type))
        elif isinstance(t, T.Enum) and t.underlying is not None:
            if self.name(t) in info.serializable_enums:
                return
            spec = info.serializable_enums[self.name(t)]
            spec.underlying_type.bitwidth = t.underlying.width
            for name, value in zip(t.members, t.values or ()):
                m = spec.members.add()
                m.name = name
                m.value = bytes_of(value, t.underlying.width)
        elif isinstance(t, T.Enum):
            if self.name(t) in info.enums:
                return
            spec = info.enums[self.name(t)]
            for name in t.members:
                spec.members.add().name = name
        elif isinstance(t, T.ErrorType):
            if not info.HasField("error"):
                info.error.members.extend(self.errors or t.members)
        elif isinstance(t, T.NewType):
            self._record_newtype(t)

    def _record_newtype(self, t: T.NewType) -> None:
        if self.name(t) in self.info.new_types:
            return
        anns = self.annotations.get(t.name, ())
        base = t.base
        while isinstance(base, T.NewType):
            base = base.base
        translation = self.translation(t)
        original = None if translation is not None else self.spec(base)
        spec = self.info.new_types[self.name(t)]
        add_annotations(spec, anns, lambda n: n == "p4runtime_translation")
        if translation is not None:
            spec.translated_type.uri = translation[0]
            if translation[1] is None:
                spec.translated_type.sdn_string.SetInParent()
            else:
                spec.translated_type.sdn_bitwidth = translation[1]
        else:
            spec.original_type.CopyFrom(original)


def _flatten(t: T.StructLike, prefix: str = ""):
    """A header's fields with any struct-typed field replaced by its fields (p4c's FlattenHeader)."""
    for f in t.fields:
        ft = f.type
        if isinstance(ft, T.Struct):
            yield from _flatten(ft, prefix + f.name + ".")
        else:
            yield prefix + f.name, ft
