"""Write and Read of every entity kind, and the Write batch's atomicity modes (spec section 12).

Rollback (ROLLBACK_ON_ERROR, DATAPLANE_ATOMIC) uses the readers: before an update is
applied, what it touches is read back with the update's own entity as the query, and the
undo is INSERT/MODIFY of what was there or DELETE of what was not. The whole batch runs
under the switch's lock, so with DATAPLANE_ATOMIC no packet sees half of it.
"""
from __future__ import annotations

from typing import Callable, Iterator

import grpc
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime import digests, externs, pre, profiles, tables, value_sets
from dataplane.control.p4runtime.context import PipelineState
from dataplane.control.p4runtime.status import P4RuntimeError, invalid, unimplemented

Update = p4runtime_pb2.Update
WriteRequest = p4runtime_pb2.WriteRequest

WRITERS: dict[str, Callable] = {
    "table_entry": tables.write_table_entry,
    "action_profile_member": profiles.write_member,
    "action_profile_group": profiles.write_group,
    "counter_entry": externs.write_counter,
    "direct_counter_entry": externs.write_direct_counter,
    "meter_entry": externs.write_meter,
    "direct_meter_entry": externs.write_direct_meter,
    "register_entry": externs.write_register,
    "packet_replication_engine_entry": pre.write_pre,
    "value_set_entry": value_sets.write_value_set,
    "digest_entry": digests.write_digest,
}
READERS: dict[str, Callable] = {
    "table_entry": tables.read_table_entries,
    "action_profile_member": profiles.read_members,
    "action_profile_group": profiles.read_groups,
    "counter_entry": externs.read_counters,
    "direct_counter_entry": externs.read_direct_counters,
    "meter_entry": externs.read_meters,
    "direct_meter_entry": externs.read_direct_meters,
    "register_entry": externs.read_registers,
    "packet_replication_engine_entry": pre.read_pre,
    "value_set_entry": value_sets.read_value_sets,
    "digest_entry": digests.read_digests,
}
# Entities that always exist: their writes are MODIFYs and so are their undos.
_FIXED = {"counter_entry", "direct_counter_entry", "meter_entry", "direct_meter_entry", "register_entry",
          "value_set_entry"}


def apply_update(state: PipelineState, update: p4runtime_pb2.Update) -> None:
    which = update.entity.WhichOneof("entity")
    if which is None:
        raise invalid("the update has no entity")
    if which not in WRITERS:
        raise unimplemented(f"writing {which} is not supported")
    if update.type == Update.UNSPECIFIED:
        raise invalid("the update type is UNSPECIFIED")
    WRITERS[which](state, update.type, getattr(update.entity, which))


def read_entities(state: PipelineState, entity: p4runtime_pb2.Entity) -> Iterator[p4runtime_pb2.Entity]:
    which = entity.WhichOneof("entity")
    if which is None:
        raise invalid("the read request has an empty entity")
    if which not in READERS:
        raise unimplemented(f"reading {which} is not supported")
    for found in READERS[which](state, getattr(entity, which)):
        out = p4runtime_pb2.Entity()
        getattr(out, which).CopyFrom(found)
        yield out


def write_batch(state: PipelineState, updates, atomicity: int) -> list[P4RuntimeError | None]:
    """Apply ``updates``; the error of each (None for success). On rollback, applied ones become ABORTED."""
    rollback = atomicity in (WriteRequest.ROLLBACK_ON_ERROR, WriteRequest.DATAPLANE_ATOMIC)
    if atomicity not in (WriteRequest.CONTINUE_ON_ERROR, WriteRequest.ROLLBACK_ON_ERROR,
                         WriteRequest.DATAPLANE_ATOMIC):
        raise invalid(f"unknown atomicity {atomicity}")
    results: list[P4RuntimeError | None] = []
    undo: list[list[p4runtime_pb2.Update]] = []
    for update in updates:
        try:
            before = _undo(state, update) if rollback else []
            apply_update(state, update)
        except P4RuntimeError as err:
            results.append(err)
            continue
        results.append(None)
        undo.append(before)
    if rollback and any(results):
        for steps in reversed(undo):
            for step in steps:
                apply_update(state, step)
        results = [r or P4RuntimeError(grpc.StatusCode.ABORTED, "rolled back: another update of the batch failed")
                   for r in results]
    return results


def _undo(state: PipelineState, update: p4runtime_pb2.Update) -> list[p4runtime_pb2.Update]:
    """The updates that put back what ``update`` is about to change."""
    which = update.entity.WhichOneof("entity")
    if which not in READERS:
        return []
    try:
        old = list(read_entities(state, update.entity))
    except P4RuntimeError:
        old = []
    if which in _FIXED or (which == "table_entry" and update.entity.table_entry.is_default_action) \
            or which == "digest_entry" and old:
        return [Update(type=Update.MODIFY, entity=e) for e in old]
    if not old:
        return [Update(type=Update.DELETE, entity=update.entity)] if update.type == Update.INSERT else []
    kind = Update.INSERT if update.type == Update.DELETE else Update.MODIFY
    return [Update(type=kind, entity=e) for e in old]
