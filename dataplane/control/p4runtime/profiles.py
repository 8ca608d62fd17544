"""Action profile members and groups (spec sections 9.2 and 9.3).

The switch has no shared member objects: an entry that names a member is installed with
the member's action and arguments, one that names a group as a selector group of its
members' actions (each member listed ``weight`` times, so hashing honours weights). The
members and groups live in ``PipelineState``; changing one re-installs the entries using it.
"""
from __future__ import annotations

from typing import Iterator

import grpc
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.context import PipelineState, switch_call
from dataplane.control.p4runtime.status import P4RuntimeError, invalid, not_found
from dataplane.control.p4runtime.tables import action_params, lookup_table, replace_group

Update = p4runtime_pb2.Update


def _profile(state: PipelineState, profile_id: int):
    return state.index.get("action_profiles", profile_id, "action profile")


def _check_action(state, profile, action: p4runtime_pb2.Action) -> None:
    a = state.index.get("actions", action.action_id)
    for tid in profile.table_ids:
        info = state.index.get("tables", tid)
        if not any(r.id == action.action_id for r in info.action_refs):
            raise invalid(f"action '{a.preamble.name}' is not an action of table '{info.preamble.name}', "
                          f"which uses action profile '{profile.preamble.name}'")
    action_params(a, action.params)


def write_member(state: PipelineState, kind: int, m: p4runtime_pb2.ActionProfileMember) -> None:
    profile = _profile(state, m.action_profile_id)
    members = state.members.setdefault(m.action_profile_id, {})
    name = profile.preamble.name
    if kind == Update.INSERT:
        if m.member_id in members:
            raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"action profile '{name}': member {m.member_id} exists")
        if profile.size and len(members) >= profile.size:
            raise P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"action profile '{name}' is full")
        _check_action(state, profile, m.action)
        members[m.member_id] = _copy(m)
        return
    if m.member_id not in members:
        raise not_found(f"action profile '{name}': no member {m.member_id}")
    if kind == Update.MODIFY:
        _check_action(state, profile, m.action)
        members[m.member_id] = _copy(m)
        _reinstall(state, lambda ref: ref == ("member", m.member_id)
                   or (ref[0] == "group" and _group_has(state, m.action_profile_id, ref[1], m.member_id)))
    elif kind == Update.DELETE:
        users = [k for k, ref in state.refs.items() if ref == ("member", m.member_id)]
        groups = [g for g in state.groups.get(m.action_profile_id, {}).values()
                  if any(x.member_id == m.member_id for x in g.members)]
        if users or groups:
            raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION,
                                 f"action profile '{name}': member {m.member_id} is still used")
        del members[m.member_id]


def write_group(state: PipelineState, kind: int, g: p4runtime_pb2.ActionProfileGroup) -> None:
    profile = _profile(state, g.action_profile_id)
    groups = state.groups.setdefault(g.action_profile_id, {})
    name = profile.preamble.name
    if not profile.with_selector:
        raise invalid(f"action profile '{name}' has no selector: it has no groups")
    if kind == Update.INSERT and g.group_id in groups:
        raise P4RuntimeError(grpc.StatusCode.ALREADY_EXISTS, f"action profile '{name}': group {g.group_id} exists")
    if kind != Update.INSERT and g.group_id not in groups:
        raise not_found(f"action profile '{name}': no group {g.group_id}")
    if kind == Update.DELETE:
        if any(ref == ("group", g.group_id) for ref in state.refs.values()):
            raise P4RuntimeError(grpc.StatusCode.FAILED_PRECONDITION,
                                 f"action profile '{name}': group {g.group_id} is still used")
        del groups[g.group_id]
        return
    members = state.members.get(g.action_profile_id, {})
    for x in g.members:
        if x.member_id not in members:
            raise not_found(f"action profile '{name}': group {g.group_id} names member {x.member_id}, "
                            "which does not exist")
        if x.weight < 0:
            raise invalid(f"action profile '{name}': member {x.member_id} has a negative weight")
    limit = g.max_size or profile.max_group_size
    if limit and sum(max(x.weight, 1) for x in g.members) > limit:
        raise P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                             f"action profile '{name}': group {g.group_id} exceeds its size {limit}")
    groups[g.group_id] = _copy(g)
    if kind == Update.MODIFY:
        _reinstall(state, lambda ref: ref == ("group", g.group_id))


def resolve_reference(state: PipelineState, info, kind: str, ident: int):
    """(action, args) of a member, or ([(action, args), ...], None) of a group, for table ``info``."""
    profile_id = info.implementation_id
    if not profile_id:
        raise invalid(f"table '{info.preamble.name}' has no action profile; give an action")
    name = state.index.name("action_profiles", profile_id)
    if kind == "member":
        m = state.members.get(profile_id, {}).get(ident)
        if m is None:
            raise not_found(f"action profile '{name}': no member {ident}")
        return action_params(state.index.get("actions", m.action.action_id), m.action.params)
    g = state.groups.get(profile_id, {}).get(ident)
    if g is None:
        raise not_found(f"action profile '{name}': no group {ident}")
    out = []
    for x in g.members:
        m = state.members[profile_id][x.member_id]
        out += [action_params(state.index.get("actions", m.action.action_id), m.action.params)] * max(x.weight, 1)
    return out, None


def _group_has(state, profile_id, group_id, member_id) -> bool:
    g = state.groups.get(profile_id, {}).get(group_id)
    return g is not None and any(x.member_id == member_id for x in g.members)


def _reinstall(state: PipelineState, uses) -> None:
    """Re-point every table entry whose reference satisfies ``uses`` at its member's or group's actions."""
    for (tid, handle), ref in list(state.refs.items()):
        if not uses(ref):
            continue
        info, t = lookup_table(state, tid)
        action, args = resolve_reference(state, info, *ref)
        if ref[0] == "group":
            replace_group(state, t, handle, action)
        else:
            switch_call(state.switch.table_modify, info.preamble.name, handle, action, args)


def read_members(state: PipelineState, q: p4runtime_pb2.ActionProfileMember) -> Iterator:
    for pid, members in state.members.items():
        if q.action_profile_id and pid != q.action_profile_id:
            continue
        for mid, m in members.items():
            if not q.member_id or q.member_id == mid:
                yield m


def read_groups(state: PipelineState, q: p4runtime_pb2.ActionProfileGroup) -> Iterator:
    for pid, groups in state.groups.items():
        if q.action_profile_id and pid != q.action_profile_id:
            continue
        for gid, g in groups.items():
            if not q.group_id or q.group_id == gid:
                yield g


def _copy(msg):
    out = type(msg)()
    out.CopyFrom(msg)
    return out
