"""Extern instances of a program, built once per device by every architecture."""
from __future__ import annotations

from typing import Any, Mapping

from dataplane.engine.externs import EXTERN_TYPES
from dataplane.errors import DataplaneError
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T


def value_width(t: T.Type) -> int:
    """Bits of a value of ``t`` as the engine stores it (enums by their underlying type)."""
    t = T.strip_newtype(t)
    if isinstance(t, T.Enum):
        return t.underlying.width if t.underlying else 32
    if isinstance(t, T.Bool):
        return 1
    if isinstance(t, T.Bits):
        return t.width
    return 32


def constructor_args(inst: P.ExternInstance, width_externs: frozenset[str]) -> list[Any]:
    """The folded constructor arguments; externs in ``width_externs`` also get their value width."""
    args: list[Any] = []
    for a in inst.args:
        while isinstance(a, E.Cast) and isinstance(a.expr, (E.Constant, E.TypeMember)):
            a = a.expr
        if isinstance(a, (E.Constant, E.BoolLiteral)):
            args.append(a.value)
        elif isinstance(a, E.TypeMember):
            args.append(_member_value(a))
    if inst.extern in width_externs and inst.type_args:
        args.append(value_width(inst.type_args[0]))
    if inst.extern == "value_set" and inst.type_args:
        args.append(tuple(value_width(t) for t in _leaves(inst.type_args[0])))
    return args


def _member_value(a: E.TypeMember) -> Any:
    """A member of a serializable enum is its value (``counter(Sizes.N, ...)``); any other member
    (``CounterType.packets``, ``HashAlgorithm.crc16``) is its name, which the extern interprets."""
    t = T.strip_newtype(a.type) if a.type is not None else None
    if isinstance(t, T.Enum) and t.values is not None and a.member in t.members:
        return t.values[t.members.index(a.member)]
    return a.member


def _leaves(t: T.Type) -> list[T.Type]:
    """The scalar fields of a struct or tuple, flattened in order (a value set's select keys)."""
    t = T.strip_newtype(t)
    if isinstance(t, T.Struct):
        return [leaf for f in t.fields for leaf in _leaves(f.type)]
    if isinstance(t, T.Tuple):
        return [leaf for e in t.elements for leaf in _leaves(e)]
    return [t]


def make_instances(program: P.Program, width_externs: frozenset[str], error: type[DataplaneError],
                   engine: str, registry: Mapping[str, type] = EXTERN_TYPES) -> dict[str, Any]:
    """Every extern instance, keyed ``name`` (top level) or ``Block.name``; classes come from
    ``registry`` (an architecture with extern names of its own passes its registry)."""
    out: dict[str, Any] = {}
    pairs = [("", i) for i in program.instances]
    for block in list(program.parsers.values()) + list(program.controls.values()):
        pairs += [(block.name + ".", i) for i in block.instances]
    for prefix, inst in pairs:
        cls = registry.get(inst.extern)
        if cls is None:
            where = f"{inst.span}: " if inst.span.line else ""
            raise error(f"{where}unsupported: extern '{inst.extern}' (instance '{prefix + inst.name}') in the "
                        f"{engine}: it is not one of the architecture's externs, so no implementation exists here")
        if inst.extern in _REGISTERS and inst.type_args and isinstance(T.strip_newtype(inst.type_args[0]), T.Struct):
            out[prefix + inst.name] = _struct_register(prefix + inst.name, inst, error)
            continue
        out[prefix + inst.name] = cls(prefix + inst.name, *constructor_args(inst, width_externs))
    return out


_REGISTERS = frozenset({"register", "Register"})   # v1model's and PSA/PNA's


def _struct_register(name: str, inst: P.ExternInstance, error: type[DataplaneError]):
    """A register of a struct type (an extension: see ``struct_register``)."""
    from dataplane.engine.struct_register import StructRegister

    args = constructor_args(inst, frozenset())
    if len(inst.args) != 1 or len(args) != 1:
        raise error(f"unsupported: register '{name}' of struct type with an initial value")
    try:
        return StructRegister(name, args[0], inst.type_args[0])
    except DataplaneError as err:
        raise error(str(err)) from None
