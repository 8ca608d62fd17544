"""The control-plane API of one switch: tables, registers, counters, meters, digests; value sets
and the replication engine (multicast, clones) come from the mixins in ``value_sets`` and ``replication``.

Every call names things as P4 does (``MyIngress.ipv4_lpm`` or an unambiguous suffix such
as ``ipv4_lpm``; ``@name`` annotations count too) and every bad call raises one
``ControlPlaneError`` that names the table, field and value at fault. Packets enter as
scapy packets or bytes and can leave as either; scapy never runs inside the pipeline.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Iterable, Sequence

from dataplane.arch.v1model import Output, PacketResult, V1ModelSwitch
from dataplane.control.config_errors import ControlPlaneError, control_plane_code
from dataplane.control.match_keys import action_args, key_value, match_key, parse_number
from dataplane.control.naming import action_names, find_action, instance_names, resolve, table_aliases, table_names
from dataplane.control.replication import ReplicationApi
from dataplane.control.value_sets import ValueSetApi
from dataplane.engine.externs import Register
from dataplane.engine.table_errors import TableError
from dataplane.engine.table_runtime import ActionEntry, RuntimeTable
from dataplane.errors import DataplaneError
from dataplane.ir.node import annotation

# architecture -> (module, device class) of the device that runs it (v1model and PNA take options).
DEVICES = {"v1model": ("dataplane.arch.v1model", "V1ModelSwitch"), "pna": ("dataplane.arch.pna", "PnaNic"),
           "psa": ("dataplane.arch.psa", "PsaSwitch"),
           "ebpf": ("dataplane.arch.ebpf", "EbpfFilter"), "xdp": ("dataplane.arch.xdp", "XdpSwitch"),
           "ubpf": ("dataplane.arch.ubpf", "UbpfSwitch")}


class Switch(ValueSetApi, ReplicationApi):
    """A loaded switch: the v1model pipeline plus the control-plane operations on it."""

    def __init__(self, program, *, name: str = "s1", seed: int = 0, net_ports: Iterable[int] | None = None,
                 extern_functions: dict | None = None, lazy_registers: bool = False):
        """Load ``program``; ``net_ports`` (PNA programs only) are the NIC's network-facing ports.

        ``extern_functions`` (v1model programs) implement extern functions the program declares
        itself, as a target built with them would (BMv2's ``--load-modules``): name -> callable
        taking the packet context, the ``in``/``inout`` arguments as ints, then the width of each
        ``out``/``inout`` argument, and returning their new values (one value, or a tuple)."""
        if getattr(program, "package", True) is None:
            raise ControlPlaneError(f"'{program.source}' has no 'main' package instance "
                                    "(e.g. V1Switch(...) main;): there is nothing to run")
        arch = getattr(program, "architecture", "v1model")
        if arch not in DEVICES:
            raise ControlPlaneError(f"'{program.source}' instantiates package '{arch}'; this emulator runs "
                                    "V1Switch (v1model), PNA_NIC (pna), PSA_Switch (psa), ebpfFilter (ebpf), "
                                    "xdp and ubpf programs")
        if net_ports is not None and arch != "pna":
            raise ControlPlaneError(f"net_ports applies to PNA programs; '{name}' runs a {arch} program")
        if extern_functions and arch != "v1model":
            raise ControlPlaneError(f"extern_functions applies to v1model programs; '{name}' runs a {arch} program")
        if arch == "pna":
            from dataplane.arch.pna import PnaNic

            self.dp = PnaNic(program, name=name, seed=seed, net_ports=net_ports)
        elif arch == "v1model":
            self.dp = V1ModelSwitch(program, name=name, seed=seed, extern_functions=extern_functions)
        else:
            module, cls = DEVICES[arch]
            self.dp = getattr(importlib.import_module(module), cls)(program, name=name, seed=seed)
        if not lazy_registers:
            # Registers make their cells when first used (externs.Register); a loaded switch makes
            # them now, so that what a program costs is paid where it is built (the P4Runtime
            # server's bounded compile child). A simulated fabric's switches opt out: most of a
            # large fabric's never run the program's registers (issue 36).
            for inst in getattr(self.dp, "instances", {}).values():
                if isinstance(inst, Register):
                    inst.warm()
        self.program = program
        self.name = name
        # (table, action name as given) -> (name in the program, Action): entries loaded from a
        # file name the same few actions thousands of times, and the answer never changes.
        self._found_actions: dict[tuple[str, str], tuple] = {}
        # name as given -> (the device's tables, the table), for the same reason
        self._found_tables: dict[str, tuple[dict, RuntimeTable]] = {}

    @classmethod
    def from_file(cls, path: str | Path, **kwargs) -> "Switch":
        """Compile ``path`` and load it: a .p4 file, or, as on the command line, the name of a
        built-in program (``"ipv4_router"``) when no such file exists."""
        from dataplane.lang.frontend import compile_file
        from dataplane.resources import builtin_program

        if not Path(path).is_file():
            try:
                path = builtin_program(str(path))
            except FileNotFoundError:
                pass            # compile_file reports the missing file
        return cls(compile_file(path).program, **kwargs)

    # ---- packets ---------------------------------------------------------------------------------
    def send(self, port: int, packet: Any, trace: Any = None) -> list[Output]:
        """Process one packet arriving on ``port`` (scapy packet or bytes); return the outputs."""
        return self.process(port, packet, trace).outputs

    def process(self, port: int, packet: Any, trace: Any = None) -> PacketResult:
        data = bytes(packet) if not isinstance(packet, (bytes, bytearray)) else bytes(packet)
        if not 0 <= port < self.dp.port_limit:
            raise ControlPlaneError(f"port {port} is out of range (0..{self.dp.port_limit - 1})")
        return self.dp.process(port, data, trace)

    def process_batch(self, packets: Sequence[Any], port: int | Sequence[int] = 0, *,
                      engine: str = "auto") -> list[PacketResult]:
        """Process ``packets`` (bytes or scapy packets) arriving on ``port`` (one port, or one per
        packet); one ``PacketResult`` per packet, equal to ``process``'s. ``engine``: ``auto``
        (the batch engine when it accepts the program), ``batch`` (``BatchUnsupported`` if it
        does not) or ``packet``."""
        from dataplane.engine.batch.layout import PacketBatch
        from dataplane.engine.batch.select import choose

        data = [p if isinstance(p, bytes) else bytes(p) for p in packets]
        ports = [port] * len(data) if isinstance(port, int) else list(port)
        if len(ports) != len(data):
            raise ControlPlaneError(f"process_batch: {len(data)} packets but {len(ports)} ports")
        for p in ports:
            if not 0 <= p < self.dp.port_limit:
                raise ControlPlaneError(f"port {p} is out of range (0..{self.dp.port_limit - 1})")
        pipeline, _ = choose(self.dp, engine)
        if pipeline is None:
            return [self.dp.process(p, d) for p, d in zip(ports, data)]
        if not data:
            return []
        return batch_results(pipeline.run(PacketBatch.from_packets(data, ports)))

    def run_batch(self, batch: Any) -> Any:
        """Run a ``PacketBatch`` on the batch engine; a ``BatchOutput`` of arrays (no per-packet
        objects). Raises ``BatchUnsupported`` for a program the batch engine does not run."""
        from dataplane.engine.batch.select import batch_pipeline

        return batch_pipeline(self.dp).run(batch)

    def send_and_dissect(self, port: int, packet: Any) -> list[tuple[int, Any]]:
        """Like ``send`` but returns ``(port, scapy Ether)`` pairs, dissected at the edge."""
        from scapy.layers.l2 import Ether

        return [(o.port, Ether(o.data)) for o in self.send(port, packet)]

    # ---- name resolution (see control.naming) ------------------------------------------------------
    def table(self, name: str) -> RuntimeTable:
        tables = self.dp.tables
        found = self._found_tables.get(name)
        if found is None or found[0] is not tables:
            found = self._found_tables[name] = (tables, resolve(name, tables, "table", table_aliases))
        return found[1]

    def table_names(self) -> dict[str, RuntimeTable]:
        """Every full name a table answers to: ``Block.table`` and p4c's control-plane name (``@name``)."""
        return table_names(self.dp.tables)

    def action_names(self, table: RuntimeTable) -> dict[str, str]:
        """Every full name of each action ``table`` can run, to the action's name in the program."""
        return action_names(self.program, table)

    def _action(self, table: RuntimeTable, name: str):
        key = (table.qualified_name, name)
        found = self._found_actions.get(key)
        if found is None:
            found = self._found_actions[key] = find_action(self.program, table, name)
        return found

    # ---- table entries ----------------------------------------------------------------------------------
    def table_add(self, table: str, action: str, match: Any = (), params: Any = (), priority: int | None = None) -> int:
        """Add an entry; ``priority`` follows P4Runtime (larger wins). Returns the entry handle."""
        t = self.table(table)
        key = self._match(t, match)
        name, entry = self._entry(t, action, params)
        if t.match.uses_priority and priority is None:
            raise ControlPlaneError(f"table '{t.qualified_name}' has ternary/range/optional keys: "
                                    "an entry needs a priority", "BAD_MATCH_KEY")
        if not t.match.uses_priority:
            priority = None
        entry.key, entry.priority = key, priority
        try:
            entry.handle = t.match.add(key, priority, entry)
        except TableError as err:   # its BMv2 code and the error itself travel on
            raise ControlPlaneError(str(err), err.code) from err
        return entry.handle

    def table_add_group(self, table: str, match: Any, members: Sequence[tuple[str, Any]],
                        priority: int | None = None) -> int:
        """Add an entry of a table with an action_selector: one member runs, picked by hashing the selector keys."""
        t = self.table(table)
        if not t.selector_fields:
            raise ControlPlaneError(f"table '{t.qualified_name}' has no selector key; use table_add")
        key = self._match(t, match)
        group = ActionEntry(t.default.fn, (), "group", True)
        group.members = [self._entry(t, action, params)[1] for action, params in members]
        group.key, group.priority = key, priority if t.match.uses_priority else None
        try:
            group.handle = t.match.add(key, group.priority, group)
        except TableError as err:   # its BMv2 code and the error itself travel on
            raise ControlPlaneError(str(err), err.code) from err
        return group.handle

    def table_modify(self, table: str, handle: int, action: str, params: Any = ()) -> None:
        t = self.table(table)
        _, entry = self._entry(t, action, params)
        try:
            old = t.match.get(handle).value
            entry.key, entry.priority, entry.handle = old.key, old.priority, handle
            t.match.modify(handle, entry)
        except TableError as err:
            raise ControlPlaneError(f"table '{t.qualified_name}': {err}", err.code) from err

    def table_delete(self, table: str, handle: int) -> None:
        t = self.table(table)
        try:
            t.match.delete(handle)
        except TableError as err:
            raise ControlPlaneError(f"table '{t.qualified_name}': {err}", err.code) from err

    def table_clear(self, table: str) -> None:
        self.table(table).match.clear()

    def table_set_default(self, table: str, action: str, params: Any = ()) -> None:
        t = self.table(table)
        if t.table.default_action_const:
            raise ControlPlaneError(f"table '{t.qualified_name}' has a const default_action; it cannot be changed",
                                    "DEFAULT_ACTION_IS_CONST")
        name, entry = self._entry(t, action, params, default=True)
        entry.hit = False
        t.default = entry

    def table_entries(self, table: str) -> list[ActionEntry]:
        return [e.value for e in self.table(table).match.entries()]

    def _entry(self, t: RuntimeTable, action: str, params: Any, default: bool = False) -> tuple[str, ActionEntry]:
        name, act = self._action(t, action)
        ref = next((a for a in t.table.actions if a.action == name), None)
        if ref is not None and not default and annotation(ref.annotations, "defaultonly"):
            raise ControlPlaneError(f"table '{t.qualified_name}': action '{name}' is @defaultonly")
        if ref is not None and default and annotation(ref.annotations, "tableonly"):
            raise ControlPlaneError(f"table '{t.qualified_name}': action '{name}' is @tableonly")
        try:
            args = action_args(t, name, act.data_params, params)
        except ControlPlaneError as err:
            raise _with_code(err, "BAD_ACTION_DATA") from err.__cause__
        return name, ActionEntry(t.actions[name], args, name, True)

    def _match(self, t: RuntimeTable, match: Any) -> tuple:
        """The key tuple of an entry of ``t`` (see ``match_keys.match_key``); a bad key is BAD_MATCH_KEY."""
        try:
            return match_key(t, match)
        except ControlPlaneError as err:
            raise _with_code(err, "BAD_MATCH_KEY") from err.__cause__

    def _key_value(self, t: RuntimeTable, key, v: Any, width: int):
        """One key field's value for ``t.match`` (see ``match_keys.key_value``)."""
        return key_value(t, key, v, width)

    # ---- externs and the traffic manager ---------------------------------------------------------------
    def _instance(self, name: str, kind: str | tuple[str, ...]):
        kinds = (kind,) if isinstance(kind, str) else kind
        items = {q: o for q, o in self.dp.instances.items() if _extern_name(o) in kinds}
        full = instance_names(self.program)
        return resolve(name, items, kinds[0], lambda o: {full.get(getattr(o, "name", None), "")} - {""})

    def register_read(self, name: str, index: int) -> int | dict[str, Any]:
        """One cell: an int, or for a register of a struct type a dict of its field values."""
        return self._extern_call(self._instance(name, "register").cp_read, index)

    def register_write(self, name: str, index: int, value: Any) -> None:
        """Set one cell; a register of a struct type takes a dict of every field or a tuple in order."""
        reg = self._instance(name, "register")
        if not hasattr(reg, "layout"):   # a struct register checks its own dict or tuple
            value = parse_number(value, f"register '{reg.name}'")
        self._extern_call(reg.cp_write, index, value)

    def counter_read(self, name: str, index: int) -> tuple[int, int]:
        """(packets, bytes) of one counter cell; for a direct counter ``index`` is the entry handle."""
        c = self._instance(name, ("counter", "direct_counter"))
        if _extern_name(c) == "counter":
            return self._extern_call(c.cp_read, index)
        entry = self._direct_entry(c, index)
        return entry.packets, entry.bytes

    def counter_totals(self) -> dict[str, tuple[int, int]]:
        """(packets, bytes) of every indexed counter, summed over its cells, by full name."""
        return {q: (sum(o.packets), sum(o.bytes)) for q, o in self.dp.instances.items()
                if _extern_name(o) == "counter"}

    def counter_write(self, name: str, index: int, packets: int, nbytes: int) -> None:
        """Set one counter cell; for a direct counter ``index`` is the entry handle (as in BMv2)."""
        c = self._instance(name, ("counter", "direct_counter"))
        if _extern_name(c) == "counter":
            self._extern_call(c.cp_write, index, packets, nbytes)
            return
        entry = self._direct_entry(c, index)
        entry.packets, entry.bytes = packets, nbytes

    def counter_reset(self, name: str) -> None:
        c = self._instance(name, ("counter", "direct_counter"))
        c.reset()
        if _extern_name(c) == "direct_counter":
            for t in self._direct_tables(c):
                for e in t.match.entries():
                    e.value.packets = e.value.bytes = 0

    def _direct_tables(self, c) -> list[RuntimeTable]:
        return [t for t in self.dp.tables.values() if t.table.counters and f"{t.control}.{t.table.counters}" == c.name]

    def _direct_entry(self, c, handle: int):
        tables = self._direct_tables(c)
        if not tables:
            raise ControlPlaneError(f"direct counter '{c.name}' is not attached to a table")
        try:
            return tables[0].match.get(handle).value
        except TableError as err:
            raise ControlPlaneError(f"direct counter '{c.name}': {err}", err.code) from err

    def direct_counter_read(self, table: str, handle: int) -> tuple[int, int]:
        t = self.table(table)
        try:
            e = t.match.get(handle).value
        except TableError as err:
            raise ControlPlaneError(f"table '{t.qualified_name}': {err}", err.code) from err
        return e.packets, e.bytes

    def meter_set_rates(self, name: str, index: int | None, rates: Sequence[tuple[float, int]]) -> None:
        """Configure a meter cell with [(committed rate, burst), (peak rate, burst)] in units per µs."""
        rates = list(rates)
        if len(rates) != 2:
            raise ControlPlaneError(f"meter '{name}': give 2 rates (committed, peak), got {len(rates)}")
        (cir, cbs), (pir, pbs) = rates
        m = self._instance(name, ("meter", "direct_meter"))
        if _extern_name(m) == "direct_meter":
            # As in BMv2, the index of a direct meter is the handle of an entry of its table;
            # None configures every entry, present and future.
            if index is None:
                self._extern_call(m.set_rates, cir, cbs, pir, pbs)
                return
            t = next((t for t in self.dp.tables.values() if t.direct_meter is m), None)
            if t is None:
                raise ControlPlaneError(f"direct meter '{m.name}' is not attached to a table")
            try:
                entry = t.match.get(index).value
            except TableError as err:
                raise ControlPlaneError(f"direct meter '{m.name}': {err}", err.code) from err
            self._extern_call(m.set_entry_rates, entry, cir, cbs, pir, pbs)
        else:
            self._extern_call(m.set_rates, index or 0, cir, cbs, pir, pbs)

    def _extern_call(self, fn, *args):
        try:
            return fn(*args)
        except DataplaneError as err:
            raise ControlPlaneError(str(err), control_plane_code(err)) from err

    def digests(self, clear: bool = True) -> list[tuple[int, tuple]]:
        """Digests sent by the data plane since the last call: (receiver, field values)."""
        out = list(self.dp.digests)
        if clear:
            self.dp.digests.clear()
        return out


def batch_results(out: Any) -> list[PacketResult]:
    """The batch engine's ``BatchOutput`` as one ``PacketResult`` per input packet, equal to what
    the per-packet engine's ``process`` returns."""
    from dataplane.engine.batch.v1model import DROP_REASONS

    results = [PacketResult() for _ in range(out.inputs)]
    for i, d in zip(out.drop_source.tolist(), out.drop_code.tolist()):
        results[i].drops.append(DROP_REASONS[d])
    for src, port, row, n, itype in zip(out.source.tolist(), out.ports.tolist(), out.data, out.lengths.tolist(),
                                        out.itype.tolist()):
        results[src].outputs.append(Output(port, row[:n].tobytes(), itype))
    return results


def _extern_name(obj: Any) -> str:
    from dataplane.engine.externs import EXTERN_TYPES

    kind = getattr(type(obj), "cp_kind", None)  # PNA classes say which v1model kind they act as
    if kind is not None:
        return kind
    for name, cls in EXTERN_TYPES.items():
        if type(obj) is cls:
            return name
    return ""


def _with_code(err: ControlPlaneError, code: str) -> ControlPlaneError:
    """``err`` with ``code`` where it has only the generic ERROR."""
    return err if err.code != "ERROR" else ControlPlaneError(str(err), code)
