"""Table keys and actions between P4Runtime and the switch API (spec sections 9.1.1 and 9.1.2).

Match fields are matched to the table's keys by P4Info order (p4c numbers them 1, 2, ...
in key order, selector keys left out); an omitted field is a wildcard and a don't-care
given explicitly (lpm prefix 0, ternary mask 0, full range) is INVALID_ARGUMENT, as are
bits set outside a mask or prefix.
"""
from __future__ import annotations

import grpc
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.codec import decode, encode
from dataplane.control.p4runtime.context import PipelineState, switch_call
from dataplane.control.p4runtime.status import P4RuntimeError, invalid, unimplemented
from dataplane.engine.table_errors import TableError
from dataplane.engine.table_runtime import RuntimeTable

MF = p4info_pb2.MatchField
_KINDS = {MF.EXACT: "exact", MF.LPM: "lpm", MF.TERNARY: "ternary", MF.RANGE: "range", MF.OPTIONAL: "optional"}


def lookup_table(state: PipelineState, table_id: int) -> tuple[p4info_pb2.Table, RuntimeTable]:
    info = state.index.get("tables", table_id)
    return info, switch_call(state.switch.table, info.preamble.name)


def _fields(info: p4info_pb2.Table) -> list[p4info_pb2.MatchField]:
    # P4Info lists a table's key in the program's order, which is the switch API's order; an
    # @id on a field may number it out of that order, so ids never decide the position.
    return list(info.match_fields)


def match_values(info: p4info_pb2.Table, matches) -> list:
    """The switch API's key values (one per match field, wildcards filled in) of ``matches``."""
    fields = _fields(info)
    by_id = {f.id: f for f in fields}
    given: dict[int, p4runtime_pb2.FieldMatch] = {}
    for fm in matches:
        f = by_id.get(fm.field_id)
        if f is None:
            raise invalid(f"table '{info.preamble.name}' has no match field id {fm.field_id}")
        if fm.field_id in given:
            raise invalid(f"table '{info.preamble.name}': match field '{f.name}' is given twice")
        kind = fm.WhichOneof("field_match_type")
        if kind != _KINDS.get(f.match_type):
            raise invalid(f"table '{info.preamble.name}': match field '{f.name}' is "
                          f"{_KINDS.get(f.match_type, 'unsupported')}, got a {kind} match")
        given[fm.field_id] = fm
    return [_field_value(info, f, given.get(f.id)) for f in fields]


def _field_value(info, f: p4info_pb2.MatchField, fm):
    width, kind = f.bitwidth, _KINDS.get(f.match_type)
    what = f"table '{info.preamble.name}' match field '{f.name}'"
    full = (1 << width) - 1
    if kind is None:
        raise unimplemented(f"{what}: match kind '{f.other_match_type}' is not supported")
    if fm is None:
        if kind == "exact":
            raise invalid(f"{what} is exact and must be given")
        return {"lpm": (0, 0), "ternary": (0, 0), "range": (0, full), "optional": None}[kind]
    if kind == "exact":
        return decode(fm.exact.value, width, what)
    if kind == "optional":
        return decode(fm.optional.value, width, what)
    if kind == "lpm":
        value, plen = decode(fm.lpm.value, width, what), fm.lpm.prefix_len
        if not 0 < plen <= width:
            raise invalid(f"{what}: prefix length {plen} is out of range 1..{width} (omit the field for a wildcard)")
        if value & (full >> plen):
            raise invalid(f"{what}: value 0x{value:x} has bits set beyond the /{plen} prefix")
        return (value, plen)
    if kind == "ternary":
        value, mask = decode(fm.ternary.value, width, what), decode(fm.ternary.mask, width, what)
        if mask == 0:
            raise invalid(f"{what}: a zero mask is a wildcard; omit the field instead")
        if value & ~mask:
            raise invalid(f"{what}: value 0x{value:x} has bits set outside mask 0x{mask:x}")
        return (value, mask)
    lo, hi = decode(fm.range.low, width, what), decode(fm.range.high, width, what)
    if lo > hi:
        raise invalid(f"{what}: range low 0x{lo:x} is above high 0x{hi:x}")
    if (lo, hi) == (0, full):
        raise invalid(f"{what}: the full range is a wildcard; omit the field instead")
    return (lo, hi)


def match_fields(info: p4info_pb2.Table, key: tuple, into) -> None:
    """Add the FieldMatch messages of an installed key to ``into`` (a TableEntry's ``match``),
    leaving wildcards out; built in place, since a read makes one per entry."""
    for f, k in zip(_fields(info), key):
        kind, full = _KINDS.get(f.match_type), (1 << f.bitwidth) - 1
        if kind == "exact":
            into.add(field_id=f.id).exact.value = encode(k)
        elif kind == "optional":
            if k is not None:
                into.add(field_id=f.id).optional.value = encode(k)
        elif kind == "lpm":
            if k[1] != 0:
                fm = into.add(field_id=f.id)
                fm.lpm.value, fm.lpm.prefix_len = encode(k[0]), k[1]
        elif kind == "ternary":
            if k[1] != 0:
                fm = into.add(field_id=f.id)
                fm.ternary.value, fm.ternary.mask = encode(k[0]), encode(k[1])
        elif kind == "range":
            if tuple(k) != (0, full):
                fm = into.add(field_id=f.id)
                fm.range.low, fm.range.high = encode(k[0]), encode(k[1])


def action_call(state: PipelineState, info_table, action: p4runtime_pb2.Action, default: bool = False):
    """(P4Info action name, parameter values) of an ``Action``, checked against the table's action refs."""
    a = state.index.get("actions", action.action_id)
    ref = next((r for r in info_table.action_refs if r.id == action.action_id), None)
    tname = info_table.preamble.name
    if ref is None:
        raise invalid(f"action '{a.preamble.name}' is not an action of table '{tname}'")
    if default and ref.scope == p4info_pb2.ActionRef.TABLE_ONLY:
        raise invalid(f"table '{tname}': action '{a.preamble.name}' is @tableonly; it cannot be the default")
    if not default and ref.scope == p4info_pb2.ActionRef.DEFAULT_ONLY:
        raise invalid(f"table '{tname}': action '{a.preamble.name}' is @defaultonly")
    return action_params(a, action.params)


def action_params(a: p4info_pb2.Action, params) -> tuple[str, list[int]]:
    by_id = {p.id: p for p in a.params}
    given = {}
    for p in params:
        info = by_id.get(p.param_id)
        if info is None:
            raise invalid(f"action '{a.preamble.name}' has no parameter id {p.param_id}")
        given[p.param_id] = decode(p.value, info.bitwidth, f"action '{a.preamble.name}' parameter '{info.name}'")
    missing = [p.name for p in a.params if p.id not in given]
    if missing:
        raise invalid(f"action '{a.preamble.name}': missing parameter(s) {', '.join(missing)}")
    return a.preamble.name, [given[p.id] for p in a.params]   # declaration order, as for keys


def action_message(state: PipelineState, t: RuntimeTable, name: str, args: tuple,
                   into: p4runtime_pb2.Action | None = None) -> p4runtime_pb2.Action:
    """The ``Action`` of an installed entry whose action is ``name`` in the program, filled into
    ``into`` when given (reads build thousands: a copy of each costs as much as building it)."""
    cache = state.__dict__.setdefault("action_ids", {})   # (table, action) -> (id, param ids): reads are hot
    found = cache.get((t.qualified_name, name))
    if found is None:
        names = [n for n, short in state.switch.action_names(t).items() if short == name]
        aid = next((state.index.id_of("actions", n) for n in names if state.index.id_of("actions", n)), None)
        if aid is None:
            raise P4RuntimeError(grpc.StatusCode.INTERNAL, f"action '{name}' of table '{t.qualified_name}' "
                                 "is not in the P4Info")
        params = [p.id for p in state.index.get("actions", aid).params]
        found = cache[(t.qualified_name, name)] = (aid, params)
    aid, params = found
    msg = p4runtime_pb2.Action() if into is None else into
    msg.action_id = aid
    for pid, v in zip(params, args):
        msg.params.add(param_id=pid, value=encode(int(v)))
    return msg


def replace_group(state, t: RuntimeTable, handle: int, members) -> None:
    """Point a selector entry at a new list of (action, args) members."""
    group = t.match.get(handle).value
    group.members = [switch_call(state.switch._entry, t, a, args)[1] for a, args in members]
    t.match.edited()


def entry_exists(t: RuntimeTable, handle: int) -> bool:
    try:
        t.match.get(handle)
    except TableError:
        return False
    return True
