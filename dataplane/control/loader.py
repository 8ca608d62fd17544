"""Apply control-plane files (tutorials runtime JSON, simple_switch_CLI commands) to a switch.

Errors name the file and line of the entry that failed, whatever layer refused it.
"""
from __future__ import annotations

from pathlib import Path

from dataplane.control import ops as O
from dataplane.control.config_errors import ConfigError, ConfigWarning, control_plane_code
from dataplane.control.formats import CliCommands, RuntimeConfig, load_control_file
from dataplane.control.switch import ControlPlaneError, Switch
from dataplane.engine.table_runtime import BMV2_PRIORITY_LIMIT
from dataplane.errors import DataplaneError


def load_entries(switch: Switch, path: str | Path) -> list[ConfigWarning]:
    """Apply ``path`` (``.json`` runtime file or CLI command file) to ``switch``; return warnings."""
    config = load_control_file(path)
    if isinstance(config, RuntimeConfig):
        return apply_runtime_config(switch, config)
    return apply_cli_commands(switch, config)


def _at(source, err: DataplaneError) -> ConfigError:
    file, line = source
    return ConfigError(str(err), file, line, code=control_plane_code(err))


def apply_runtime_config(switch: Switch, config: RuntimeConfig) -> list[ConfigWarning]:
    """Install table entries, then multicast groups, then clone sessions (the tutorials' order)."""
    for e in config.table_entries:
        try:
            t = switch.table(e.table)
            if e.is_default:
                switch.table_set_default(e.table, e.action, e.params)
                continue
            kinds = {k.name: k.match_kind for k in t.table.keys}
            match = {}
            for m in e.match:
                kind = next((kinds[n] for n in kinds if n == m.field or n.endswith("." + m.field)), None)
                if kind is None:
                    raise ControlPlaneError(f"table '{t.qualified_name}' has no key '{m.field}'", "BAD_MATCH_KEY")
                match[m.field] = m.to_key(kind)
            switch.table_add(e.table, e.action, match, e.params, e.priority)
        except DataplaneError as err:
            raise _at(e.source, err) from None
    for g in config.multicast_group_entries:
        try:
            switch.mc_group_create(g.group_id, [(r.egress_port, r.instance) for r in g.replicas])
        except DataplaneError as err:
            raise _at(g.source, err) from None
    for c in config.clone_session_entries:
        try:
            for r in c.replicas:
                switch.clone_session_add(c.session_id, r.egress_port, c.packet_length_bytes or None)
        except DataplaneError as err:
            raise _at(c.source, err) from None
    return list(config.warnings)


def apply_cli_commands(switch: Switch, commands: CliCommands) -> list[ConfigWarning]:
    """Run simple_switch_CLI commands in order."""
    warnings = list(commands.warnings)
    for op in commands.ops:
        try:
            note = _apply(switch, op)
        except DataplaneError as err:
            if isinstance(err, ConfigError):
                raise
            raise _at(op.source, err) from None
        if note:
            warnings.append(ConfigWarning(note, *op.source))
    return warnings


def _apply(sw: Switch, op: O.Op) -> str | None:
    if isinstance(op, O.TableAdd):
        t = sw.table(op.table)
        op = op.with_priority_expected(t.match.uses_priority)
        keys = list(op.keys)
        prio = None if op.priority is None else BMV2_PRIORITY_LIMIT - op.priority
        sw.table_add(op.table, op.action, keys, list(op.params), prio)
    elif isinstance(op, O.SetDefault):
        sw.table_set_default(op.table, op.action, list(op.params))
    elif isinstance(op, O.TableModify):
        sw.table_modify(op.table, op.handle, op.action, list(op.params))
    elif isinstance(op, O.TableDelete):
        sw.table_delete(op.table, op.handle)
    elif isinstance(op, O.TableClear):
        sw.table_clear(op.table)
    elif isinstance(op, O.TableResetDefault):
        t = sw.table(op.table)
        t.default = t.initial_default
    elif isinstance(op, O.McGroupCreate):
        sw.mc_group_create(op.group)
    elif isinstance(op, O.McGroupDestroy):
        sw.mc_group_destroy(op.group)
    elif isinstance(op, O.McNodeCreate):
        sw.mc_node_create(op.rid, op.ports)
    elif isinstance(op, O.McNodeAssociate):
        sw.mc_node_associate(op.group, op.handle)
    elif isinstance(op, O.McNodeUpdate):
        sw.mc_node_update(op.handle, op.ports)
    elif isinstance(op, O.McNodeDissociate):
        sw.mc_node_dissociate(op.group, op.handle)
    elif isinstance(op, O.McNodeDestroy):
        sw.mc_node_destroy(op.handle)
    elif isinstance(op, O.MirroringAdd):
        sw.clone_session_add(op.session, op.port)
    elif isinstance(op, O.MirroringAddMc):
        sw.clone_session_add_mc(op.session, op.group)
    elif isinstance(op, O.MirroringDelete):
        sw.clone_session_delete(op.session)
    elif isinstance(op, O.RegisterWrite):
        sw.register_write(op.register, op.index, op.value)
    elif isinstance(op, O.RegisterReset):
        sw._instance(op.register, "register").reset()
    elif isinstance(op, O.CounterReset):
        sw.counter_reset(op.counter)
    elif isinstance(op, O.CounterWrite):
        sw.counter_write(op.counter, op.index, op.packets, op.bytes)
    elif isinstance(op, O.MeterSetRates):
        sw.meter_set_rates(op.meter, op.index, op.rates)
    elif isinstance(op, O.MeterArraySetRates):
        m = sw._instance(op.meter, ("meter", "direct_meter"))
        if not hasattr(m, "size"):  # a direct meter: every entry
            sw.meter_set_rates(op.meter, None, op.rates)
        for i in range(getattr(m, "size", 0)):
            sw.meter_set_rates(op.meter, i, op.rates)
    elif isinstance(op, O.PvsAdd):
        sw.pvs_add(op.value_set, op.value)
    elif isinstance(op, O.PvsRemove):
        sw.pvs_remove(op.value_set, op.value)
    elif isinstance(op, O.PvsClear):
        sw.pvs_clear(op.value_set)
    elif isinstance(op, (O.RegisterRead, O.CounterRead, O.MirroringGet, O.MeterGetRates, O.PvsGet)):
        return None  # reads print in the CLI; nothing to apply
    else:
        return f"'{type(op).__name__}' is not applied by this emulator"
    return None
