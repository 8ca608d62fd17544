"""Parser value sets (spec section 9.7): a MODIFY replaces every member of the set.

Each member is one FieldMatch per field of the set's P4Info ``match`` (exact or ternary);
the switch keeps a member as one (value, mask) over the fields concatenated.
"""
from __future__ import annotations

from typing import Iterator

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.codec import decode, encode
from dataplane.control.p4runtime.context import PipelineState, switch_call
from dataplane.control.p4runtime.status import P4RuntimeError, invalid

Update = p4runtime_pb2.Update
MF = p4info_pb2.MatchField


def write_value_set(state: PipelineState, kind: int, e: p4runtime_pb2.ValueSetEntry) -> None:
    vs = state.index.get("value_sets", e.value_set_id, "value set")
    name = vs.preamble.name
    if kind != Update.MODIFY:
        raise invalid(f"value set '{name}': only MODIFY (replace every member) is allowed")
    if vs.size and len(e.members) > vs.size:
        import grpc
        raise P4RuntimeError(grpc.StatusCode.RESOURCE_EXHAUSTED, f"value set '{name}' holds {vs.size} members")
    members = [_member(vs, m) for m in e.members]
    switch_call(state.switch.pvs_clear, name)
    for value, mask in members:
        switch_call(state.switch.pvs_add, name, value, mask)


def _member(vs, m: p4runtime_pb2.ValueSetMember) -> tuple[list[int], list[int]]:
    fields = {f.id: f for f in vs.match}
    given = {fm.field_id: fm for fm in m.match}
    unknown = set(given) - set(fields)
    if unknown:
        raise invalid(f"value set '{vs.preamble.name}' has no field id {min(unknown)}")
    values, masks = [], []
    for f in vs.match:
        full, what = (1 << f.bitwidth) - 1, f"value set '{vs.preamble.name}' field '{f.name}'"
        fm = given.get(f.id)
        if fm is None:
            values.append(0)
            masks.append(0)
        elif fm.WhichOneof("field_match_type") == "exact":
            values.append(decode(fm.exact.value, f.bitwidth, what))
            masks.append(full)
        elif fm.WhichOneof("field_match_type") == "ternary":
            values.append(decode(fm.ternary.value, f.bitwidth, what))
            masks.append(decode(fm.ternary.mask, f.bitwidth, what))
        else:
            raise invalid(f"{what}: give an exact or ternary match")
    return values, masks


def read_value_sets(state: PipelineState, q: p4runtime_pb2.ValueSetEntry) -> Iterator:
    for vid in [q.value_set_id] if q.value_set_id else state.index.ids("value_sets"):
        vs = state.index.get("value_sets", vid, "value set")
        fields = list(vs.match)
        out = p4runtime_pb2.ValueSetEntry(value_set_id=vid)
        for value, mask in switch_call(state.switch.pvs_get, vs.preamble.name):
            member = out.members.add()
            shift = sum(f.bitwidth for f in fields)
            for f in fields:
                shift -= f.bitwidth
                full = (1 << f.bitwidth) - 1
                v, mk = (value >> shift) & full, (full if mask is None else (mask >> shift) & full)
                fm = member.match.add(field_id=f.id)
                if f.match_type == MF.EXACT or mk == full:
                    fm.exact.value = encode(v)
                else:
                    fm.ternary.value, fm.ternary.mask = encode(v), encode(mk)
        yield out
