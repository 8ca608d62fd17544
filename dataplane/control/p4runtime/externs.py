"""Counters, direct counters, meters, direct meters, registers and value sets (spec sections 9.4-9.8, 9.11).

All of them exist from the start with every cell, so the only write is MODIFY (INSERT and
DELETE are INVALID_ARGUMENT); an entry without an index means every cell. Registers are
read and written as ``P4Data`` bitstrings (an extension BMv2's server lacks).
Meter rates arrive in units per second and are given to the switch per microsecond.
"""
from __future__ import annotations

from typing import Iterator

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from dataplane.control.p4runtime.codec import decode, encode
from dataplane.control.p4runtime.context import PipelineState, switch_call
from dataplane.control.p4runtime.status import invalid, not_found, out_of_range, unimplemented
from dataplane.control.p4runtime.tables import lookup_table, match_fields, match_values

Update = p4runtime_pb2.Update
CounterSpec = p4info_pb2.CounterSpec


def _modify_only(kind: int, what: str) -> None:
    if kind != Update.MODIFY:
        raise invalid(f"{what} cannot be inserted or deleted; use MODIFY")


def _cells(obj, index_msg, has_index: bool, what: str) -> list[int]:
    if not has_index:
        return list(range(obj.size))
    if not 0 <= index_msg.index < obj.size:
        raise out_of_range(f"{what}: index {index_msg.index} is out of range 0..{obj.size - 1}")
    return [index_msg.index]


def _counter_data(spec, packets: int, nbytes: int) -> p4runtime_pb2.CounterData:
    data = p4runtime_pb2.CounterData()
    if spec.unit in (CounterSpec.PACKETS, CounterSpec.BOTH, CounterSpec.UNSPECIFIED):
        data.packet_count = packets
    if spec.unit in (CounterSpec.BYTES, CounterSpec.BOTH, CounterSpec.UNSPECIFIED):
        data.byte_count = nbytes
    return data


# ---- counters ------------------------------------------------------------------------------------
def write_counter(state: PipelineState, kind: int, e: p4runtime_pb2.CounterEntry) -> None:
    c = state.index.get("counters", e.counter_id)
    _modify_only(kind, f"counter '{c.preamble.name}'")
    for i in _cells(c, e.index, e.HasField("index"), f"counter '{c.preamble.name}'"):
        switch_call(state.switch.counter_write, c.preamble.name, i, e.data.packet_count, e.data.byte_count)


def read_counters(state: PipelineState, q: p4runtime_pb2.CounterEntry) -> Iterator:
    for cid in [q.counter_id] if q.counter_id else state.index.ids("counters"):
        c = state.index.get("counters", cid)
        for i in _cells(c, q.index, q.HasField("index"), f"counter '{c.preamble.name}'"):
            packets, nbytes = switch_call(state.switch.counter_read, c.preamble.name, i)
            out = p4runtime_pb2.CounterEntry(counter_id=cid)
            out.index.index = i
            out.data.CopyFrom(_counter_data(c.spec, packets, nbytes))
            yield out


# ---- direct counters and meters: addressed by a table entry -----------------------------------------
def _direct_targets(state, kind: str, table_entry: p4runtime_pb2.TableEntry):
    """(direct extern info, table info, table, [handles]) for a direct counter/meter entry's table_entry."""
    objs = state.index.by_kind[kind]
    wanted = [o for o in objs.values() if not table_entry.table_id or o.direct_table_id == table_entry.table_id]
    if table_entry.table_id and not wanted:
        raise invalid(f"table id {table_entry.table_id} has no {kind[:-1].replace('_', ' ')}")
    for o in wanted:
        info, t = lookup_table(state, o.direct_table_id)
        if table_entry.match or table_entry.is_default_action:
            if table_entry.is_default_action:
                raise unimplemented("direct counters and meters of the default entry are not kept")
            key = switch_call(state.switch._match, t, match_values(info, table_entry.match))
            handle = t.match.find(key, table_entry.priority if t.match.uses_priority else None)
            if handle is None:
                raise not_found(f"table '{info.preamble.name}': no such entry")
            handles = [handle]
        else:
            handles = [e.handle for e in t.match.entries()]
        yield o, info, t, handles


def write_direct_counter(state: PipelineState, kind: int, e: p4runtime_pb2.DirectCounterEntry) -> None:
    _modify_only(kind, "a direct counter")
    if not e.table_entry.table_id:
        raise invalid("a direct counter write names its table entry")
    for _, _, t, handles in _direct_targets(state, "direct_counters", e.table_entry):
        for h in handles:
            value = t.match.get(h).value
            value.packets, value.bytes = e.data.packet_count, e.data.byte_count


def read_direct_counters(state: PipelineState, q: p4runtime_pb2.DirectCounterEntry) -> Iterator:
    for o, info, t, handles in _direct_targets(state, "direct_counters", q.table_entry):
        for entry, h in _entries_of(info, t, handles):
            value = t.match.get(h).value
            out = p4runtime_pb2.DirectCounterEntry()
            out.table_entry.CopyFrom(entry)
            out.data.CopyFrom(_counter_data(o.spec, value.packets, value.bytes))
            yield out


def _entries_of(info, t, handles) -> list[tuple[p4runtime_pb2.TableEntry, int]]:
    """(TableEntry with match and priority only, handle) of each of ``handles`` of table ``t``."""
    out = []
    for h in handles:
        value = t.match.get(h).value
        msg = p4runtime_pb2.TableEntry(table_id=info.preamble.id)
        msg.match.extend(match_fields(info, value.key))
        if t.match.uses_priority and value.priority is not None:
            msg.priority = value.priority
        out.append((msg, h))
    return out


# ---- meters ------------------------------------------------------------------------------------------
def _rates(config: p4runtime_pb2.MeterConfig) -> list[tuple[float, int]]:
    if config.cir > config.pir:
        raise invalid(f"meter config: cir {config.cir} is above pir {config.pir}")
    return [(config.cir / 1e6, config.cburst), (config.pir / 1e6, config.pburst)]


def write_meter(state: PipelineState, kind: int, e: p4runtime_pb2.MeterEntry) -> None:
    m = state.index.get("meters", e.meter_id)
    _modify_only(kind, f"meter '{m.preamble.name}'")
    for i in _cells(m, e.index, e.HasField("index"), f"meter '{m.preamble.name}'"):
        if e.HasField("config"):
            switch_call(state.switch.meter_set_rates, m.preamble.name, i, _rates(e.config))
            state.meter_configs[(e.meter_id, i)] = _copy(e.config)
        else:
            # No config: the cell goes back to unmetered (everything green).
            switch_call(state.switch.meter_set_rates, m.preamble.name, i, [(1e12, 1 << 40), (1e12, 1 << 40)])
            state.meter_configs.pop((e.meter_id, i), None)


def read_meters(state: PipelineState, q: p4runtime_pb2.MeterEntry) -> Iterator:
    for mid in [q.meter_id] if q.meter_id else state.index.ids("meters"):
        m = state.index.get("meters", mid)
        for i in _cells(m, q.index, q.HasField("index"), f"meter '{m.preamble.name}'"):
            out = p4runtime_pb2.MeterEntry(meter_id=mid)
            out.index.index = i
            cfg = state.meter_configs.get((mid, i))
            if cfg is not None:
                out.config.CopyFrom(cfg)
            yield out


def apply_direct_meter(state: PipelineState, info, t, handle: int, config: p4runtime_pb2.MeterConfig) -> None:
    """Configure the direct meter cell of one entry (``handle``) of table ``info``."""
    m = next((o for o in state.index.by_kind["direct_meters"].values()
              if o.direct_table_id == info.preamble.id), None)
    if m is None:
        raise invalid(f"table '{info.preamble.name}' has no direct meter")
    switch_call(state.switch.meter_set_rates, m.preamble.name, handle, _rates(config))
    state.direct_meter_configs[(info.preamble.id, handle)] = _copy(config)


def write_direct_meter(state: PipelineState, kind: int, e: p4runtime_pb2.DirectMeterEntry) -> None:
    _modify_only(kind, "a direct meter")
    if not e.table_entry.table_id:
        raise invalid("a direct meter write names its table entry")
    for _, info, t, handles in _direct_targets(state, "direct_meters", e.table_entry):
        for h in handles:
            apply_direct_meter(state, info, t, h, e.config)


def read_direct_meters(state: PipelineState, q: p4runtime_pb2.DirectMeterEntry) -> Iterator:
    for _, info, t, handles in _direct_targets(state, "direct_meters", q.table_entry):
        for entry, h in _entries_of(info, t, handles):
            out = p4runtime_pb2.DirectMeterEntry()
            out.table_entry.CopyFrom(entry)
            cfg = state.direct_meter_configs.get((info.preamble.id, h))
            if cfg is not None:
                out.config.CopyFrom(cfg)
            yield out


# ---- registers -----------------------------------------------------------------------------------------
def _register_width(r) -> int:
    spec = r.type_spec
    if spec.HasField("bitstring"):
        bs = spec.bitstring
        which = bs.WhichOneof("type_spec")
        return getattr(bs, which).bitwidth
    raise unimplemented(f"register '{r.preamble.name}': only bit<W>/int<W> cells are supported")


def write_register(state: PipelineState, kind: int, e: p4runtime_pb2.RegisterEntry) -> None:
    r = state.index.get("registers", e.register_id)
    name = r.preamble.name
    _modify_only(kind, f"register '{name}'")
    if e.data.WhichOneof("data") != "bitstring":
        raise invalid(f"register '{name}': give the value as a bitstring")
    value = decode(e.data.bitstring, _register_width(r), f"register '{name}'")
    for i in _cells(r, e.index, e.HasField("index"), f"register '{name}'"):
        switch_call(state.switch.register_write, name, i, value)


def read_registers(state: PipelineState, q: p4runtime_pb2.RegisterEntry) -> Iterator:
    for rid in [q.register_id] if q.register_id else state.index.ids("registers"):
        r = state.index.get("registers", rid)
        width = _register_width(r)
        for i in _cells(r, q.index, q.HasField("index"), f"register '{r.preamble.name}'"):
            out = p4runtime_pb2.RegisterEntry(register_id=rid)
            out.index.index = i
            out.data.bitstring = encode(switch_call(state.switch.register_read, r.preamble.name, i), width)
            yield out


def _copy(msg):
    out = type(msg)()
    out.CopyFrom(msg)
    return out
