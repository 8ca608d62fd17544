"""Counters, direct counters, meters, direct meters, registers and value sets (spec sections 9.4-9.8, 9.11).

All of them exist from the start with every cell, so the only write is MODIFY (INSERT and
DELETE are INVALID_ARGUMENT); an entry without an index means every cell. Registers are
read and written as ``P4Data`` (an extension BMv2's server lacks): bitstrings, bools, and structs
for registers of a struct type, their members in the order of the P4Info's type_info.
Meter rates arrive in units per second and are given to the switch per microsecond.
"""
from __future__ import annotations

from typing import Iterator

from p4.config.v1 import p4info_pb2
from p4.v1 import p4data_pb2, p4runtime_pb2

from dataplane.control.p4runtime.codec import decode, encode
from dataplane.control.p4runtime.context import PipelineState, switch_call
from dataplane.control.p4runtime.status import invalid, not_found, out_of_range, unimplemented
from dataplane.control.p4runtime.table_keys import lookup_table, match_fields, match_values

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
    obj = switch_call(state.switch._instance, c.preamble.name, "counter")
    for i in _cells(c, e.index, e.HasField("index"), f"counter '{c.preamble.name}'"):
        switch_call(state.switch._extern_call, obj.cp_write, i, e.data.packet_count, e.data.byte_count)


def read_counters(state: PipelineState, q: p4runtime_pb2.CounterEntry) -> Iterator:
    for cid in [q.counter_id] if q.counter_id else state.index.ids("counters"):
        c = state.index.get("counters", cid)
        # the instance is resolved once: a read of every cell of a big counter stays linear
        obj = switch_call(state.switch._instance, c.preamble.name, "counter")
        for i in _cells(c, q.index, q.HasField("index"), f"counter '{c.preamble.name}'"):
            packets, nbytes = switch_call(state.switch._extern_call, obj.cp_read, i)
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
        match_fields(info, value.key, msg.match)
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
            if e.HasField("config"):
                apply_direct_meter(state, info, t, h, e.config)
            else:   # no config: the entry's meter goes back to unconfigured (everything green)
                t.match.get(h).value.meter = None
                state.direct_meter_configs.pop((info.preamble.id, h), None)


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
# A cell is a bitstring (bit<W>, int<W>, a serializable enum), a bool, or, for a register of a struct
# type, a P4Data struct whose members follow the struct's fields in the P4Info's type_info.
def _spec_width(state: PipelineState, spec, what: str) -> tuple[int, bool]:
    """(width, signed) of a scalar type spec."""
    kind = spec.WhichOneof("type_spec")
    if kind == "bitstring":
        which = spec.bitstring.WhichOneof("type_spec")
        return getattr(spec.bitstring, which).bitwidth, which == "int"
    if kind == "serializable_enum":
        enum = state.p4info.type_info.serializable_enums.get(spec.serializable_enum.name)
        if enum is not None:
            return enum.underlying_type.bitwidth, False
    raise unimplemented(f"{what}: cells of this type are not supported over P4Runtime")


def _struct_members(state: PipelineState, spec, what: str):
    struct = state.p4info.type_info.structs.get(spec.struct.name)
    if struct is None:
        raise unimplemented(f"{what}: struct '{spec.struct.name}' is not in the P4Info's type_info")
    return struct.members


def _to_data(state: PipelineState, spec, value, out: p4data_pb2.P4Data, what: str) -> None:
    kind = spec.WhichOneof("type_spec")
    if kind == "struct":
        members = out.struct.members
        for m in _struct_members(state, spec, what):
            _to_data(state, m.type_spec, value[m.name], members.add(), f"{what}.{m.name}")
    elif kind == "bool":
        out.bool = bool(value)
    else:
        out.bitstring = encode(int(value), _spec_width(state, spec, what)[0])


def _from_data(state: PipelineState, spec, data: p4data_pb2.P4Data, what: str):
    kind, given = spec.WhichOneof("type_spec"), data.WhichOneof("data")
    if kind == "struct":
        members = _struct_members(state, spec, what)
        got = data.struct.members if given == "struct" else None
        if got is None or len(got) != len(members):
            raise invalid(f"{what}: give a struct of {len(members)} members "
                          f"({', '.join(m.name for m in members)})")
        return {m.name: _from_data(state, m.type_spec, d, f"{what}.{m.name}") for m, d in zip(members, got)}
    if kind == "bool":
        if given != "bool":
            raise invalid(f"{what}: give a bool")
        return data.bool
    if given != "bitstring":
        raise invalid(f"{what}: give the value as a bitstring")
    width, signed = _spec_width(state, spec, what)
    value = decode(data.bitstring, width, what)
    return value - (1 << width) if signed and value >> (width - 1) else value


def write_register(state: PipelineState, kind: int, e: p4runtime_pb2.RegisterEntry) -> None:
    r = state.index.get("registers", e.register_id)
    name = r.preamble.name
    _modify_only(kind, f"register '{name}'")
    value = _from_data(state, r.type_spec, e.data, f"register '{name}'")
    if r.type_spec.WhichOneof("type_spec") == "bitstring" and value < 0:
        value &= (1 << _spec_width(state, r.type_spec, name)[0]) - 1   # a scalar cell keeps its bits
    obj = switch_call(state.switch._instance, name, "register")
    for i in _cells(r, e.index, e.HasField("index"), f"register '{name}'"):
        switch_call(state.switch._extern_call, obj.cp_write, i, value)


def read_registers(state: PipelineState, q: p4runtime_pb2.RegisterEntry) -> Iterator:
    for rid in [q.register_id] if q.register_id else state.index.ids("registers"):
        r = state.index.get("registers", rid)
        what = f"register '{r.preamble.name}'"
        obj = switch_call(state.switch._instance, r.preamble.name, "register")
        for i in _cells(r, q.index, q.HasField("index"), what):
            out = p4runtime_pb2.RegisterEntry(register_id=rid)
            out.index.index = i
            _to_data(state, r.type_spec, switch_call(state.switch._extern_call, obj.cp_read, i), out.data, what)
            yield out


def _copy(msg):
    out = type(msg)()
    out.CopyFrom(msg)
    return out
