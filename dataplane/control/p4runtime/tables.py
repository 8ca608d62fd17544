"""Table entries: Write and Read of ``TableEntry`` (spec section 9.1).

Keys and actions are translated by ``table_keys``. Entries that name an action profile
member or group are installed as that member's action, or as a selector group of the
members' actions (``profiles``); a one-shot action set as an anonymous group.
"""
from __future__ import annotations

from typing import Iterator

import grpc
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime import idle
from dataplane.control.p4runtime.context import PipelineState, switch_call
from dataplane.control.p4runtime.externs import apply_direct_meter
from dataplane.control.p4runtime.profiles import resolve_reference
from dataplane.control.p4runtime.status import P4RuntimeError, invalid, not_found, unimplemented
from dataplane.control.p4runtime.table_keys import (
    action_call,
    action_message,
    lookup_table,
    match_fields,
    match_values,
    replace_group,
)

Update = p4runtime_pb2.Update


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
        idle.removed(state, info.preamble.id, handle)
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
        ref = ("member", entry.action.action_profile_member_id) if which == "action_profile_member_id" \
            else ("group", entry.action.action_profile_group_id)
        action, args = resolve_reference(state, info, *ref)
    elif which == "action_profile_action_set":
        ref = ("oneshot", _copy(entry.action.action_profile_action_set))
        action, args = _oneshot(state, info, entry.action.action_profile_action_set)
    elif which is None:
        raise invalid(f"table '{name}': the entry has no action")
    else:
        raise unimplemented(f"table '{name}': action kind {which} is not supported")
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


def _oneshot(state, info, action_set):
    """One-shot action selector programming (spec section 9.2.3): the set's actions as an anonymous
    group (each listed ``weight`` times), or a plain action when the set has one."""
    if not info.implementation_id:
        raise invalid(f"table '{info.preamble.name}' has no action profile; give an action")
    actions = action_set.action_profile_actions
    if not actions:
        raise invalid(f"table '{info.preamble.name}': an empty action set")
    members = []
    for a in actions:
        if a.weight < 0:
            raise invalid(f"table '{info.preamble.name}': a negative weight in the action set")
        members += [action_call(state, info, a.action)] * max(a.weight, 1)
    if len(actions) == 1:
        return members[0]
    return members, None


def _copy(msg):
    out = type(msg)()
    out.CopyFrom(msg)
    return out


def _entry_extras(state, info, t, handle, entry) -> None:
    """Direct counter data, direct meter config and idle timeout given with an entry."""
    tid = info.preamble.id
    value = t.match.get(handle).value
    if entry.HasField("counter_data"):
        value.packets, value.bytes = entry.counter_data.packet_count, entry.counter_data.byte_count
    if entry.HasField("meter_config"):
        apply_direct_meter(state, info, t, handle, entry.meter_config)
    if entry.idle_timeout_ns:
        state.idle_timeouts[(tid, handle)] = entry.idle_timeout_ns
        idle.installed(state, tid, handle, state.now_us())
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
    match_fields(info, value.key, out.match)
    if t.match.uses_priority and value.priority is not None:
        out.priority = value.priority
    ref = state.refs.get((tid, value.handle))
    if ref is not None:
        if ref[0] == "member":
            out.action.action_profile_member_id = ref[1]
        elif ref[0] == "group":
            out.action.action_profile_group_id = ref[1]
        else:
            out.action.action_profile_action_set.CopyFrom(ref[1])
    else:
        action_message(state, t, value.name, value.args, into=out.action.action)
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
        out.time_since_last_hit.elapsed_ns = idle.idle_ns(value, state.now_us())
    return out


def _default_message(state, info, t) -> p4runtime_pb2.TableEntry:
    out = p4runtime_pb2.TableEntry(table_id=info.preamble.id, is_default_action=True)
    d = t.default
    action_message(state, t, d.name, d.args, into=out.action.action)
    return out
