"""Table entries: P4Runtime ``TableEntry`` to ``Switch`` calls and back (spec section 9.1).

Match fields are matched to the table's keys by P4Info order (p4c numbers them 1, 2, ...
in key order, selector keys left out); an omitted field is a wildcard and a don't-care
given explicitly (lpm prefix 0, ternary mask 0, full range) is INVALID_ARGUMENT, as are
bits set outside a mask or prefix. Entries that name an action profile member or group
are installed as that member's action, or as a selector group of the members' actions.
"""
from __future__ import annotations

from typing import Iterator

import grpc
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.codec import decode, encode
from dataplane.control.p4runtime.context import PipelineState, switch_call
from dataplane.control.p4runtime.status import P4RuntimeError, invalid, not_found, unimplemented
from dataplane.engine.table_errors import TableError
from dataplane.engine.table_runtime import RuntimeTable

MF = p4info_pb2.MatchField
Update = p4runtime_pb2.Update
_KINDS = {MF.EXACT: "exact", MF.LPM: "lpm", MF.TERNARY: "ternary", MF.RANGE: "range", MF.OPTIONAL: "optional"}


def lookup_table(state: PipelineState, table_id: int) -> tuple[p4info_pb2.Table, RuntimeTable]:
    info = state.index.get("tables", table_id)
    return info, switch_call(state.switch.table, info.preamble.name)


def _fields(info: p4info_pb2.Table) -> list[p4info_pb2.MatchField]:
    return sorted(info.match_fields, key=lambda f: f.id)


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


def match_fields(info: p4info_pb2.Table, key: tuple) -> list[p4runtime_pb2.FieldMatch]:
    """The FieldMatch messages of an installed key (wildcards left out)."""
    out = []
    for f, k in zip(_fields(info), key):
        kind, full = _KINDS.get(f.match_type), (1 << f.bitwidth) - 1
        fm = p4runtime_pb2.FieldMatch(field_id=f.id)
        if kind == "exact":
            fm.exact.value = encode(k)
        elif kind == "optional":
            if k is None:
                continue
            fm.optional.value = encode(k)
        elif kind == "lpm":
            if k[1] == 0:
                continue
            fm.lpm.value, fm.lpm.prefix_len = encode(k[0]), k[1]
        elif kind == "ternary":
            if k[1] == 0:
                continue
            fm.ternary.value, fm.ternary.mask = encode(k[0]), encode(k[1])
        elif kind == "range":
            if tuple(k) == (0, full):
                continue
            fm.range.low, fm.range.high = encode(k[0]), encode(k[1])
        out.append(fm)
    return out


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
    return a.preamble.name, [given[p.id] for p in sorted(a.params, key=lambda p: p.id)]


def action_message(state: PipelineState, t: RuntimeTable, name: str, args: tuple) -> p4runtime_pb2.Action:
    """The ``Action`` of an installed entry whose action is ``name`` in the program."""
    sw = state.switch
    names = [n for n, short in sw.action_names(t).items() if short == name]
    aid = next((state.index.id_of("actions", n) for n in names if state.index.id_of("actions", n)), None)
    if aid is None:
        raise P4RuntimeError(grpc.StatusCode.INTERNAL, f"action '{name}' of table '{t.qualified_name}' "
                             "is not in the P4Info")
    a = state.index.get("actions", aid)
    msg = p4runtime_pb2.Action(action_id=aid)
    for p, v in zip(sorted(a.params, key=lambda p: p.id), args):
        msg.params.add(param_id=p.id, value=encode(int(v)))
    return msg


def write_table_entry(state: PipelineState, kind: int, entry: p4runtime_pb2.TableEntry) -> None:
    """Apply one INSERT, MODIFY or DELETE of a table entry."""
    info, t = lookup_table(state, entry.table_id)
    sw, name = state.switch, info.preamble.name
    if info.is_const_table:
        raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, f"table '{name}' has const entries; "
                             "it cannot be written")
    if entry.is_default_action:
        return _write_default(state, kind, info, t, entry)
    if entry.HasField("time_since_last_hit"):
        raise invalid("time_since_last_hit is read-only")
    values = match_values(info, entry.match)
    key = switch_call(sw._match, t, values)
    uses_priority = t.match.uses_priority
    if uses_priority and entry.priority <= 0:
        raise invalid(f"table '{name}' has ternary, range or optional keys: an entry needs a priority > 0")
    if not uses_priority and entry.priority:
        raise invalid(f"table '{name}' has only exact and lpm keys: priority must be 0, got {entry.priority}")
    priority = entry.priority if uses_priority else None
    handle = t.match.find(key, priority)
    if entry.idle_timeout_ns and not t.support_timeout:
        raise invalid(f"table '{name}' does not support idle timeouts (no support_timeout = true)")
    if kind == Update.INSERT:
        if handle is not None:
            raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"table '{name}': the entry already exists")
        handle = _install(state, info, t, values, priority, entry, None)
    elif kind == Update.MODIFY:
        if handle is None:
            raise not_found(f"table '{name}': no such entry to modify")
        _install(state, info, t, values, priority, entry, handle)
    elif kind == Update.DELETE:
        if handle is None:
            raise not_found(f"table '{name}': no such entry to delete")
        switch_call(sw.table_delete, name, handle)
        state.refs.pop((info.preamble.id, handle), None)
        state.direct_meter_configs.pop((info.preamble.id, handle), None)
        state.idle_timeouts.pop((info.preamble.id, handle), None)
        return
    else:
        raise invalid(f"unknown update type {kind}")
    _entry_extras(state, info, t, handle, entry)


def _install(state, info, t, values, priority, entry, handle) -> int:
    """Add (``handle`` None) or re-point an entry at ``entry.action``; returns the handle."""
    sw, name, tid = state.switch, info.preamble.name, info.preamble.id
    which = entry.action.WhichOneof("type")
    ref = None
    if which == "action":
        action, args = action_call(state, info, entry.action.action)
    elif which in ("action_profile_member_id", "action_profile_group_id"):
        from dataplane.control.p4runtime.profiles import resolve_reference

        ref = ("member", entry.action.action_profile_member_id) if which == "action_profile_member_id" \
            else ("group", entry.action.action_profile_group_id)
        action, args = resolve_reference(state, info, *ref)
    elif which is None:
        raise invalid(f"table '{name}': the entry has no action")
    else:
        raise unimplemented(f"table '{name}': {which} (one-shot action selector programming) is not supported")
    if handle is None:
        if isinstance(action, list):   # a group: [(action, args), ...]
            handle = switch_call(sw.table_add_group, name, values, action, priority)
        else:
            handle = switch_call(sw.table_add, name, action, values, args, priority)
    else:
        old = t.match.get(handle).value
        if isinstance(action, list):
            replace_group(state, t, handle, action)
        else:
            switch_call(sw.table_modify, name, handle, action, args)
        new = t.match.get(handle).value
        new.packets, new.bytes, new.meter, new.last_hit_us = old.packets, old.bytes, old.meter, old.last_hit_us
    if ref is None:
        state.refs.pop((tid, handle), None)
    else:
        state.refs[(tid, handle)] = ref
    return handle


def replace_group(state, t: RuntimeTable, handle: int, members) -> None:
    """Point a selector entry at a new list of (action, args) members."""
    group = t.match.get(handle).value
    group.members = [switch_call(state.switch._entry, t, a, args)[1] for a, args in members]


def _entry_extras(state, info, t, handle, entry) -> None:
    """Direct counter data, direct meter config and idle timeout given with an entry."""
    tid = info.preamble.id
    value = t.match.get(handle).value
    if entry.HasField("counter_data"):
        value.packets, value.bytes = entry.counter_data.packet_count, entry.counter_data.byte_count
    if entry.HasField("meter_config"):
        from dataplane.control.p4runtime.externs import apply_direct_meter

        apply_direct_meter(state, info, t, handle, entry.meter_config)
    if entry.idle_timeout_ns:
        from dataplane.control.p4runtime.idle import installed

        state.idle_timeouts[(tid, handle)] = entry.idle_timeout_ns
        installed(state, tid, handle, state.now_us())
    else:
        state.idle_timeouts.pop((tid, handle), None)


def _write_default(state, kind, info, t, entry) -> None:
    name = info.preamble.name
    if kind != Update.MODIFY:
        raise invalid(f"table '{name}': the default entry can only be modified (MODIFY), not inserted or deleted")
    if entry.match or entry.priority:
        raise invalid(f"table '{name}': a default entry has no match fields and no priority")
    if t.table.default_action_const:
        raise P4RuntimeError(grpc.StatusCode.PERMISSION_DENIED, f"table '{name}' has a const default action")
    if not entry.HasField("action"):
        t.default = t.initial_default     # MODIFY without an action: back to the program's default
        return
    if entry.action.WhichOneof("type") != "action":
        raise unimplemented(f"table '{name}': a default entry with an action profile member or group")
    action, args = action_call(state, info, entry.action.action, default=True)
    switch_call(state.switch.table_set_default, name, action, args)


def read_table_entries(state: PipelineState, query: p4runtime_pb2.TableEntry) -> Iterator[p4runtime_pb2.TableEntry]:
    """Every entry ``query`` selects: all tables (id 0), one table, one key, or the default entry."""
    ids = [query.table_id] if query.table_id else state.index.ids("tables")
    for tid in ids:
        info, t = lookup_table(state, tid)
        if query.is_default_action:
            yield _default_message(state, info, t)
            continue
        wanted = None
        if query.match:
            values = match_values(info, query.match)
            wanted = switch_call(state.switch._match, t, values)
        for e in t.match.entries():
            value = e.value
            if wanted is not None and t.match.normalize(value.key) != t.match.normalize(wanted):
                continue
            if query.priority and value.priority != query.priority:
                continue
            yield _entry_message(state, info, t, value, query)


def _entry_message(state, info, t, value, query) -> p4runtime_pb2.TableEntry:
    tid = info.preamble.id
    out = p4runtime_pb2.TableEntry(table_id=tid)
    out.match.extend(match_fields(info, value.key))
    if t.match.uses_priority and value.priority is not None:
        out.priority = value.priority
    ref = state.refs.get((tid, value.handle))
    if ref is not None:
        if ref[0] == "member":
            out.action.action_profile_member_id = ref[1]
        else:
            out.action.action_profile_group_id = ref[1]
    else:
        out.action.action.CopyFrom(action_message(state, t, value.name, value.args))
    if query.HasField("counter_data") and t.has_direct_counter:
        out.counter_data.packet_count, out.counter_data.byte_count = value.packets, value.bytes
    if query.HasField("meter_config"):
        cfg = state.direct_meter_configs.get((tid, value.handle))
        if cfg is not None:
            out.meter_config.CopyFrom(cfg)
    timeout = state.idle_timeouts.get((tid, value.handle))
    if timeout:
        out.idle_timeout_ns = timeout
    if query.HasField("time_since_last_hit") and t.support_timeout:
        from dataplane.control.p4runtime.idle import idle_ns

        out.time_since_last_hit.elapsed_ns = idle_ns(value, state.now_us())
    return out


def _default_message(state, info, t) -> p4runtime_pb2.TableEntry:
    out = p4runtime_pb2.TableEntry(table_id=info.preamble.id, is_default_action=True)
    d = t.default
    out.action.action.CopyFrom(action_message(state, t, d.name, d.args))
    return out


def entry_exists(t: RuntimeTable, handle: int) -> bool:
    try:
        t.match.get(handle)
    except TableError:
        return False
    return True
