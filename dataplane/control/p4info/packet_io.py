"""``controller_packet_metadata`` (headers marked ``@controller_header``) and parser value sets."""
from __future__ import annotations

from p4.config.v1 import p4info_pb2

from dataplane.control.p4info import ids
from dataplane.control.p4info.annotations import add_annotations, add_documentation, set_preamble
from dataplane.control.p4info.ids import P4InfoError
from dataplane.control.p4info.tables import allocate_field_ids
from dataplane.control.p4info.type_info import TypeSpecs, type_name
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.ir.node import annotation


def controller_headers(program: P.Program) -> list[tuple[str, tuple]]:
    """(control-plane name, annotations) of every header type marked ``@controller_header``."""
    out = []
    for name, t in program.types.items():
        anns = program.type_annotations.get(name, ())
        if isinstance(t, T.Header) and t.name == name and annotation(anns, "controller_header") is not None:
            out.append((P.control_plane_name("", name, anns), anns))
    return out


def add_controller_headers(info, symbols: ids.SymbolTable, specs: TypeSpecs, program: P.Program) -> bool:
    """Add each controller header; True if any has fields (p4c then touches ``type_info``)."""
    touched = False
    for name, anns in controller_headers(program):
        if annotation(anns, "hidden") is not None:
            continue
        t = program.types[name.split(".")[-1]] if name not in program.types else program.types[name]
        cp = annotation(anns, "controller_header").string_value
        msg = info.controller_packet_metadata.add()
        set_preamble(msg.preamble, symbols.id(ids.CONTROLLER_HEADER, name), cp, cp, anns)
        fields = list(_flatten(t))
        fids = allocate_field_ids([a for _, _, a in fields], f"header {name}")
        for (fname, ft, fanns), fid in zip(fields, fids):
            touched = True
            if annotation(fanns, "hidden") is not None:
                continue
            m = msg.metadata.add()
            m.id = fid
            named = annotation(fanns, "name")
            m.name = named.string_value if named is not None else fname
            add_annotations(m, fanns)
            m.bitwidth = specs.width(ft)
            specs.spec(ft)
            if type_name(ft):
                m.type_name.name = type_name(ft)
    return touched


def _flatten(t: T.StructLike, prefix: str = ""):
    for f in t.fields:
        if isinstance(f.type, T.Struct):
            yield from _flatten(f.type, prefix + f.name + ".")
        else:
            yield prefix + f.name, f.type, f.annotations


def add_value_set(info, symbols: ids.SymbolTable, name: str, inst: P.ExternInstance) -> None:
    """A ``value_sets`` entry: its size and one match field per element (or struct field)."""
    msg = info.value_sets.add()
    size = inst.args[0] if inst.args else None
    while isinstance(size, E.Cast):
        size = size.expr
    if not isinstance(size, E.Constant):
        raise P4InfoError(f"value set '{name}': @size should be an integer", inst.span)
    set_preamble(msg.preamble, symbols.id(ids.VALUE_SET, name), name, symbols.alias(name), inst.annotations)
    msg.size = size.value
    et = inst.type_args[0] if inst.type_args else None
    if isinstance(et, T.Bits):
        m = msg.match.add()
        m.id = 1
        m.bitwidth = et.width
        m.match_type = p4info_pb2.MatchField.EXACT
    elif isinstance(et, T.Struct):
        fids = allocate_field_ids([f.annotations for f in et.fields], f"value set {name}")
        for f, fid in zip(et.fields, fids):
            if not isinstance(f.type, T.Bits):
                raise P4InfoError(f"value set '{name}': field '{f.name}' must be bit<W> for P4Runtime", inst.span)
            m = msg.match.add()
            m.id = fid
            m.name = f.name
            m.bitwidth = f.type.width
            kind = annotation(f.annotations, "match")
            mk = kind.body.strip() if kind is not None else "exact"
            types = {"exact": p4info_pb2.MatchField.EXACT, "lpm": p4info_pb2.MatchField.LPM,
                     "ternary": p4info_pb2.MatchField.TERNARY, "range": p4info_pb2.MatchField.RANGE,
                     "optional": p4info_pb2.MatchField.OPTIONAL}
            if mk in types:
                m.match_type = types[mk]
            else:
                m.other_match_type = mk
            add_annotations(m, f.annotations, lambda n: n == "match")
            add_documentation(m, f.annotations)
    elif isinstance(et, T.Enum) and et.underlying is not None:
        for i, member in enumerate(et.members, 1):
            m = msg.match.add()
            m.id = i
            m.name = member
            m.bitwidth = et.underlying.width
            m.match_type = p4info_pb2.MatchField.EXACT
    else:
        raise P4InfoError(f"value set '{name}': P4Runtime needs bit<W>, a struct of bit<W> fields or a "
                          "serializable enum as its element type", inst.span)
