"""The architecture part of P4Info: counters, meters, registers, action profiles and digests,
as p4c's standard architecture handlers (v1model, PSA, PNA, uBPF) describe them."""
from __future__ import annotations

from dataclasses import dataclass

from p4.config.v1 import p4info_pb2

from dataplane.control.p4info import ids
from dataplane.control.p4info.annotations import int_value, set_preamble
from dataplane.control.p4info.ids import P4InfoError
from dataplane.control.p4info.type_info import TypeSpecs, type_name
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir.node import annotation


@dataclass(frozen=True)
class ArchTraits:
    """The extern and property names of one architecture (p4c's *Traits templates)."""

    counter: str
    direct_counter: str
    meter: str
    direct_meter: str
    register: str
    action_profile: str
    action_selector: str
    implementation_property: str
    counters_property: str
    meters_property: str
    timeout_property: str
    counter_units: dict
    meter_units: dict
    index_type_param: int | None      # counters' index type argument (PSA/PNA: 1)
    register_index_param: int | None
    digest_extern: str | None         # PSA/PNA: the Digest extern; v1model: the digest() function
    size_param_counter: int = 0       # position of the size argument


_V1_COUNTER_UNITS = {"packets": p4info_pb2.CounterSpec.PACKETS, "bytes": p4info_pb2.CounterSpec.BYTES,
                     "packets_and_bytes": p4info_pb2.CounterSpec.BOTH}
_V1_METER_UNITS = {"packets": p4info_pb2.MeterSpec.PACKETS, "bytes": p4info_pb2.MeterSpec.BYTES}
_PSA_COUNTER_UNITS = {k.upper(): v for k, v in _V1_COUNTER_UNITS.items()}
_PSA_METER_UNITS = {k.upper(): v for k, v in _V1_METER_UNITS.items()}

V1MODEL = ArchTraits("counter", "direct_counter", "meter", "direct_meter", "register", "action_profile",
                     "action_selector", "implementation", "counters", "meters", "support_timeout",
                     _V1_COUNTER_UNITS, _V1_METER_UNITS, None, None, None)
PSA = ArchTraits("Counter", "DirectCounter", "Meter", "DirectMeter", "Register", "ActionProfile",
                 "ActionSelector", "psa_implementation", "psa_direct_counter", "psa_direct_meter",
                 "psa_idle_timeout", _PSA_COUNTER_UNITS, _PSA_METER_UNITS, 1, 1, "Digest")
# p4c's PSA/PNA handler reads the idle timeout from "psa_idle_timeout" for PNA too, so a PNA
# table's pna_idle_timeout does not show in its P4Info; we give the same P4Info.
PNA = ArchTraits("Counter", "DirectCounter", "Meter", "DirectMeter", "Register", "ActionProfile",
                 "ActionSelector", "pna_implementation", "pna_direct_counter", "pna_direct_meter",
                 "psa_idle_timeout", _PSA_COUNTER_UNITS, _PSA_METER_UNITS, 1, 1, "Digest")
UBPF = ArchTraits("Counter", "DirectCounter", "Meter", "DirectMeter", "Register", "ActionProfile",
                  "ActionSelector", "psa_implementation", "psa_direct_counter", "psa_direct_meter",
                  "", _PSA_COUNTER_UNITS, _PSA_METER_UNITS, 1, 1, None)
TRAITS = {"v1model": V1MODEL, "psa": PSA, "pna": PNA, "ubpf": UBPF}


@dataclass(frozen=True)
class Instance:
    """An extern instance with its control-plane name and the block it is declared in."""

    name: str
    inst: P.ExternInstance
    block: str
    declared: bool = True   # a declaration (not a package argument or a table property's constructor call)


def instance_kind(traits: ArchTraits, extern: str) -> int | None:
    """The P4Runtime id prefix of an instance of ``extern``, or None if P4Runtime ignores it."""
    return {traits.counter: ids.COUNTER, traits.direct_counter: ids.DIRECT_COUNTER,
            traits.meter: ids.METER, traits.direct_meter: ids.DIRECT_METER,
            traits.register: ids.REGISTER, traits.action_profile: ids.ACTION_PROFILE,
            traits.action_selector: ids.ACTION_PROFILE,
            **({traits.digest_extern: ids.DIGEST} if traits.digest_extern else {})}.get(extern)


def _const(value: E.Expr, what: str) -> int:
    while isinstance(value, E.Cast):
        value = value.expr
    if isinstance(value, E.Constant):
        return value.value
    if isinstance(value, E.TypeMember) and getattr(value.type, "values", None) is not None:
        return value.type.values[value.type.members.index(value.member)]
    raise P4InfoError(f"{what} has a non-constant size", value.span)


def _unit(inst: P.ExternInstance) -> str:
    for a in inst.args:
        if isinstance(a, E.TypeMember):
            return a.member
    return ""


def _size(inst: P.ExternInstance, what: str) -> int:
    for a in inst.args:
        if not isinstance(a, E.TypeMember) or getattr(a.type, "values", None) is not None:
            return _const(a, what)
    raise P4InfoError(f"{what} has no size", inst.span)


def add_counter(info, symbols: ids.SymbolTable, specs: TypeSpecs, traits: ArchTraits, it: Instance) -> None:
    inst = it.inst
    msg = info.counters.add()
    set_preamble(msg.preamble, symbols.id(ids.COUNTER, it.name), it.name, symbols.alias(it.name), inst.annotations)
    msg.spec.unit = traits.counter_units.get(_unit(inst), p4info_pb2.CounterSpec.UNSPECIFIED)
    msg.size = _size(inst, f"counter '{it.name}'")
    _index_type(msg, specs, inst, traits.index_type_param)


def add_meter(info, symbols: ids.SymbolTable, specs: TypeSpecs, traits: ArchTraits, it: Instance) -> None:
    inst = it.inst
    msg = info.meters.add()
    set_preamble(msg.preamble, symbols.id(ids.METER, it.name), it.name, symbols.alias(it.name), inst.annotations)
    msg.spec.unit = traits.meter_units.get(_unit(inst), p4info_pb2.MeterSpec.UNSPECIFIED)
    msg.size = _size(inst, f"meter '{it.name}'")
    # p4c reads PSA meters' index type from type argument 0 (its MeterTraits say so)
    _index_type(msg, specs, inst, 0 if traits.index_type_param is not None else None)


def add_register(info, symbols: ids.SymbolTable, specs: TypeSpecs, traits: ArchTraits, it: Instance) -> None:
    inst = it.inst
    msg = info.registers.add()
    set_preamble(msg.preamble, symbols.id(ids.REGISTER, it.name), it.name, symbols.alias(it.name),
                 inst.annotations)
    msg.size = _const(inst.args[0], f"register '{it.name}'") if inst.args else 0
    if not inst.type_args:
        raise P4InfoError(f"register '{it.name}' has no type argument", inst.span)
    msg.type_spec.CopyFrom(specs.spec(inst.type_args[0]))
    _index_type(msg, specs, inst, traits.register_index_param)


def _index_type(msg, specs: TypeSpecs, inst: P.ExternInstance, index: int | None) -> None:
    if index is None or len(inst.type_args) <= index:
        return
    t = inst.type_args[index]
    try:
        specs.spec(t)
    except P4InfoError:
        return
    if type_name(t):
        msg.index_type_name.name = type_name(t)


def add_direct(info, symbols: ids.SymbolTable, traits: ArchTraits, it: Instance, table_name: str,
               table_msg) -> None:
    """A direct counter or meter of ``table_msg`` (once: a direct resource has one table)."""
    inst = it.inst
    if inst.extern == traits.direct_counter:
        prefix, msg = ids.DIRECT_COUNTER, info.direct_counters.add()
        msg.spec.unit = traits.counter_units.get(_unit(inst), p4info_pb2.CounterSpec.UNSPECIFIED)
    else:
        prefix, msg = ids.DIRECT_METER, info.direct_meters.add()
        msg.spec.unit = traits.meter_units.get(_unit(inst), p4info_pb2.MeterSpec.UNSPECIFIED)
    rid = symbols.id(prefix, it.name)
    set_preamble(msg.preamble, rid, it.name, symbols.alias(it.name), inst.annotations)
    msg.direct_table_id = symbols.id(ids.TABLE, table_name)
    table_msg.direct_resource_ids.append(rid)


def add_action_profile(info, symbols: ids.SymbolTable, traits: ArchTraits, it: Instance,
                       tables: list[str]) -> None:
    inst = it.inst
    selector = inst.extern == traits.action_selector
    msg = info.action_profiles.add()
    set_preamble(msg.preamble, symbols.id(ids.ACTION_PROFILE, it.name), it.name, symbols.alias(it.name),
                 inst.annotations,
                 lambda n: n in ("max_group_size", "selector_size_semantics", "max_member_weight"))
    msg.with_selector = selector
    sizes = [a for a in inst.args if isinstance(a, E.Constant) or isinstance(a, E.Cast)]
    # action_profile(size); action_selector(algorithm, size, output width); PSA: ActionSelector(algo, size, width)
    msg.size = _const(sizes[0], f"action profile '{it.name}'") if sizes else 0
    anns = inst.annotations
    mgs = annotation(anns, "max_group_size")
    if mgs is not None and selector:
        msg.max_group_size = int_value(mgs, it.name)
    sss = annotation(anns, "selector_size_semantics")
    if sss is not None and selector:
        value = sss.string_value.upper()
        if value == "SUM_OF_WEIGHTS":
            msg.sum_of_weights.SetInParent()
        elif value == "SUM_OF_MEMBERS":
            msg.sum_of_members.SetInParent()
        else:
            raise P4InfoError(f'expected selector_size_semantics value "sum_of_weights" or "sum_of_members", '
                              f"got '{sss.body}'", sss.span)
    mmw = annotation(anns, "max_member_weight")
    if mmw is not None and selector and msg.HasField("sum_of_members"):
        msg.sum_of_members.max_member_weight = int_value(mmw, it.name)
    for t in sorted(set(tables)):
        msg.table_ids.append(symbols.id(ids.TABLE, t))


def add_digest(info, symbols: ids.SymbolTable, name: str, spec, annotations: tuple = ()) -> None:
    if any(d.preamble.name == name for d in info.digests):
        return
    msg = info.digests.add()
    set_preamble(msg.preamble, symbols.id(ids.DIGEST, name), name, symbols.alias(name), annotations)
    msg.type_spec.CopyFrom(spec)
