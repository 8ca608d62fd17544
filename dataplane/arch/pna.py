"""The P4 Portable NIC Architecture (PNA) for one NIC: main parser, main control, main deparser.

A ``PnaNic`` runs one compiled PNA program (``pna.p4``) on packet bytes. The package is
either PNA v0.7's ``PNA_NIC(main_parser, main_control, main_deparser)`` or the older form
with a ``pre_control`` after the parser (p4c's samples); the pre-control runs when the
program has one. One pipeline serves both directions (PNA spec, "Why a common pipeline"):
whether a packet comes from the network or a host follows from its input port. By default
ports ``0 .. num_ports//2 - 1`` are network ports and every other port is a host port
(``num_ports`` defaults to 4: net 0-1, host 2-3); pass ``net_ports=`` to choose.

Forwarding follows the spec's extern functions: ``send_to_port(p)`` and ``drop_packet()``,
the last call wins, and a packet for which neither was called is dropped.

``mirror_packet(slot, session)`` makes one copy per slot (the last call for a slot wins),
whatever happens to the original, sent to the port of mirror session ``session`` as the
control plane configured it (``Switch.mirroring_add`` / ``clone_session_add``, the CLI's
``mirroring_add SESSION PORT``; kept in ``clone_sessions``). The copy's contents follow the
session's ``packet_contents`` (PNA spec, "Packet Mirroring"): ``POST_MODIFY`` (the default)
is the packet after the main control, as the main deparser emits it; ``PRE_MODIFY`` is the
packet as it began the main control, i.e. as received (nothing before the main control can
change it here). A session's ``packet_length`` truncates its copies. A copy leaves as an
``Output`` with ``instance_type`` ``MIRROR_COPY``, after the original. A session that is not
configured makes no copy (counted in ``mirror_misses``). Not modelled: the loopback the spec
gives a copy whose destination is on the packet's own side (it goes straight to the port),
sampling and per-session meters.

``add_entry`` (add-on-miss) inserts into the exact-match table being applied. Tables with
``pna_idle_timeout`` give entries expire timers (``set_entry_expire_time``,
``restart_expire_timer``, the profile ``add_entry`` gives; see ``pna_expiry``).
``DirectCounter`` (table property ``pna_direct_counter``) counts the matched entry when an
action of the table calls ``count()``. Recirculation and loopback are not supported.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable

import dataplane.engine.pna_externs  # noqa: F401  (registers the PNA extern names)
from dataplane.arch.device import ArchitectureError, Device
from dataplane.arch.pna_expiry import NO_TIMEOUT, EntryExpiry, idle_timeout_mode
from dataplane.arch.v1model import INGRESS_CLONE, Output, P4AssertionFailed, PacketResult, _key_width
from dataplane.arch.work import IngressWork
from dataplane.engine.context import PacketContext
from dataplane.engine.instances import make_instances
from dataplane.engine.pna_externs import InternetChecksum
from dataplane.engine.table_errors import TableError
from dataplane.engine.table_runtime import ActionEntry, RuntimeTable
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T

NET_TO_HOST, HOST_TO_NET = 0, 1   # PNA_Direction_t member indexes
_DROP = None                      # the forwarding decision before send_to_port is called
MIRROR_COPY = INGRESS_CLONE       # Output.instance_type of a mirror copy (BMv2's code for a clone)
PRE_MODIFY, POST_MODIFY = "PRE_MODIFY", "POST_MODIFY"   # a mirror session's packet_contents


class PnaContext(PacketContext):
    """A packet context with PNA's forwarding decision (the port, or None to drop)."""

    __slots__ = ("out_port", "applying", "mirrors")


class _PnaTable(RuntimeTable):
    """A runtime table that tells ``add_entry`` and ``DirectCounter.count`` what is being applied."""

    direct_counter: Any = None
    idle_timeout = NO_TIMEOUT   # pna_idle_timeout: NO_TIMEOUT, NOTIFY_CONTROL or AUTO_DELETE

    def lookup(self, key: tuple, ctx) -> ActionEntry:
        entry = RuntimeTable.lookup(self, key, ctx)
        ctx.applying = (self, key, entry)
        return entry


class PnaNic(Device):
    """One PNA NIC: a program plus its own table entries and extern state."""

    architecture = "pna"
    package_blocks = (("main_parser", 4), ("main_control", 4), ("main_deparser", 4))

    def __init__(self, program: P.Program, *, name: str = "s1", seed: int = 0, num_ports: int = 4,
                 net_ports: Iterable[int] | None = None):
        super().__init__(program, name, seed)
        self.net_ports = frozenset(net_ports if net_ports is not None else range(num_ports // 2))
        self.clone_sessions: dict[int, dict[str, Any]] = {}   # mirror session -> {port, packet_length, ...}
        self.mirror_misses: dict[int, int] = {}   # unconfigured session -> mirror_packet calls that made no copy
        self.multicast_groups: dict = {}   # unused by PNA; kept so the control plane can share code
        self.expiry = EntryExpiry()
        self._load()
        self._checksums = [i for i in self.instances.values() if isinstance(i, InternetChecksum)]

    def is_net_port(self, port: int) -> bool:
        return port in self.net_ports

    # ---- construction ------------------------------------------------------------------------
    def _make_instances(self) -> dict[str, Any]:
        return make_instances(self.program, frozenset({"Register", "Hash"}), ArchitectureError, "PNA engine")

    def _make_tables(self) -> dict[str, RuntimeTable]:
        tables = {}
        for control in self.program.controls.values():
            for t in control.tables.values():
                if t.implementation or t.meters or t.counters:
                    raise ArchitectureError(f"unsupported: table '{t.name}' implementation/counters/meters in PNA "
                                            f"(PNA attaches a DirectCounter with pna_direct_counter)")
                counter = _direct_counter_name(t)
                if counter is not None:   # named like v1model's `counters` so the control plane finds it
                    t = dataclasses.replace(t, counters=counter)
                layout = [(k.match_kind, _key_width(k.expr.type)) for k in t.keys]
                rt = _PnaTable(t, f"{control.name}.{t.name}", control.name, layout)
                rt.idle_timeout = idle_timeout_mode(t)
                if counter is not None:
                    rt.has_direct_counter = False      # PNA counts when an action calls count()
                    rt.direct_counter = self.instances.get(f"{control.name}.{counter}")
                    if rt.direct_counter is None or getattr(rt.direct_counter, "cp_kind", "") != "direct_counter":
                        raise ArchitectureError(f"table '{t.name}': pna_direct_counter '{counter}' is not a "
                                                f"DirectCounter of control '{control.name}'")
                tables[rt.qualified_name] = rt
        return tables

    def _bind_functions(self) -> dict[str, Any]:
        def send_to_port(ctx, port) -> None:
            ctx.out_port = port

        def drop_packet(ctx) -> None:
            ctx.out_port = _DROP

        def mirror_packet(ctx, slot, session) -> None:
            if ctx.mirrors is None:
                ctx.mirrors = {}
            ctx.mirrors[slot] = session     # one copy per slot: the last call wins

        def is_net_port(ctx, port) -> bool:
            return port in self.net_ports

        def is_host_port(ctx, port) -> bool:
            return port not in self.net_ports

        def select_by_direction(ctx, selector, from_net_value, from_host_value):
            # v0.7: a bool (is the port a network port?); older PNA: PNA_Direction_t.
            if selector is True or selector is False:
                return from_net_value if selector else from_host_value
            return from_net_value if selector == NET_TO_HOST else from_host_value

        def add_entry(ctx, action_name, params, expire_time_profile_id=0) -> bool:
            return self._add_on_miss(ctx, action_name, params, expire_time_profile_id)

        def set_entry_expire_time(ctx, expire_time_profile_id) -> None:
            table, entry = self._timed_entry(ctx, "set_entry_expire_time")
            if entry is not None:
                self.expiry.start(table, entry, expire_time_profile_id, ctx.now_us)

        def restart_expire_timer(ctx) -> None:
            table, entry = self._timed_entry(ctx, "restart_expire_timer")
            if entry is not None:
                self.expiry.restart(table, entry, ctx.now_us)

        return {"send_to_port": send_to_port, "drop_packet": drop_packet, "mirror_packet": mirror_packet,
                "is_net_port": is_net_port, "is_host_port": is_host_port,
                "SelectByDirection": select_by_direction, "add_entry": add_entry,
                "set_entry_expire_time": set_entry_expire_time, "restart_expire_timer": restart_expire_timer}

    def _timed_entry(self, ctx, what: str) -> tuple[Any, ActionEntry | None]:
        """The table being applied and the entry that matched (None on a miss), for the expiry calls,
        which the spec allows only in an action of a table with pna_idle_timeout."""
        applying = ctx.applying
        if applying is None or applying[0].idle_timeout == NO_TIMEOUT:
            where = "outside a table's action" if applying is None else \
                f"in table '{applying[0].qualified_name}', which has no pna_idle_timeout"
            raise ArchitectureError(f"{what} called {where}")
        table, _, entry = applying
        return table, (entry if entry.hit else None)

    def set_expire_time_profile(self, profile_id: int, seconds: float) -> None:
        """Configure the time an expire time profile stands for (the control plane's part)."""
        try:
            self.expiry.set_profile(profile_id, seconds)
        except ValueError as err:
            raise ArchitectureError(str(err)) from None

    def sweep_expired(self) -> int:
        """Expire the entries whose timers ran out by ``now_us``; how many (see ``pna_expiry``)."""
        return self.expiry.sweep(self.now_us)

    def _add_on_miss(self, ctx, action_name: str, params, expire_time_profile_id: int = 0) -> bool:
        """``add_entry``: insert the key just looked up into the table being applied.

        Only exact-match tables (as the spec requires for add-on-miss); in a table with
        ``pna_idle_timeout`` the entry's timer starts with ``expire_time_profile_id``. ``params`` is a list ``{a, b}`` or, as p4c's samples write it, a struct
        whose fields are the action's parameters in order. Returns false if the key is
        already there.
        """
        applying = ctx.applying
        if applying is None:
            raise ArchitectureError("add_entry called outside a table's action")
        table, key, _ = applying
        if any(kind != "exact" for kind, _ in table.key_layout):
            raise ArchitectureError(f"unsupported: add_entry on table '{table.qualified_name}' (keys must be exact)")
        # The name is written in the control that declares the table: for a table inlined from a
        # sub-control instance (``c1.t``) that control's actions are ``c1.<name>``.
        prefix = table.table.name.rpartition(".")[0]
        if prefix and action_name not in table.actions:
            action_name = f"{prefix}.{action_name}"
        fn = table.actions.get(action_name)
        if fn is None:
            raise ArchitectureError(f"add_entry: table '{table.qualified_name}' has no action '{action_name}'")
        args = _action_params(params)
        action = self.program.controls[table.control].actions.get(action_name) or self.program.actions[action_name]
        if len(args) != len(action.data_params):
            raise ArchitectureError(f"add_entry: action '{action_name}' takes {len(action.data_params)} "
                                    f"parameter(s), got {len(args)}")
        entry = ActionEntry(fn, args, action_name, True)
        entry.key = key
        try:
            entry.handle = table.match.add(key, None, entry)
        except TableError:
            return False
        if table.idle_timeout != NO_TIMEOUT:
            self.expiry.start(table, entry, expire_time_profile_id, ctx.now_us)
        return True

    def _bind_blocks(self, built: dict) -> dict[str, Any]:
        slots = dict(self.program.package.blocks)
        blocks = {slot: built["parsers"].get(name) or built["controls"][name] for slot, name in slots.items()}
        parser = self.program.parsers[slots["main_parser"]]
        self.headers_class = self.pipeline.struct_class(T.strip_newtype(parser.params[1].type).name)
        self.metadata_class = self.pipeline.struct_class(T.strip_newtype(parser.params[2].type).name)
        sc = self.pipeline.struct_class
        self.parser_in_class = sc("pna_main_parser_input_metadata_t")
        if "pre_control" in blocks:   # p4lang/pna's pna.p4 today has no pre-control nor its structs
            self.pre_in_class = sc("pna_pre_input_metadata_t")
            self.pre_out_class = sc("pna_pre_output_metadata_t")
        self.main_in_class = sc("pna_main_input_metadata_t")
        self.main_out_class = sc("pna_main_output_metadata_t")
        return blocks

    # ---- the packet path -----------------------------------------------------------------------
    def process(self, port: int, data: bytes, trace: Any = None) -> PacketResult:
        """Run one packet that arrived on ``port``; return what leaves the NIC."""
        result = PacketResult()
        self.run_work(IngressWork(port, bytes(data)), result, trace)
        return result

    def run_work(self, item: IngressWork, result: PacketResult, trace: Any = None) -> list:
        """Run one ingress pass (``dataplane.arch.work``); PNA makes no further work."""
        port, buf = item.port, item.data
        try:
            self._run(port, buf, result, trace)
        except P4AssertionFailed as err:
            result.drops.append(str(err))
            self.log_messages.append(str(err))
        except IndexError:
            result.drops.append("header stack index out of range")
        return []

    def _run(self, port: int, buf: bytes, result: PacketResult, trace: Any) -> None:
        b = self.blocks
        if self.expiry.pending:
            self.expiry.sweep(self.now_us)
        direction = NET_TO_HOST if port in self.net_ports else HOST_TO_NET
        for ck in self._checksums:
            ck.state = 0
        pin = self.parser_in_class()
        pin.input_port, pin.direction = port, direction
        istd = self.main_in_class()
        istd.input_port, istd.direction, istd.timestamp = port, direction, self.now_us
        ctx = PnaContext(buf, istd, self, trace, self.now_us)
        ctx.out_port = _DROP
        ctx.applying = ctx.mirrors = None
        hdr, meta = self.headers_class(), self.metadata_class()
        if trace is not None:
            trace.packet_in(port, buf)
        b["main_parser"](None, hdr, meta, pin, ctx)   # a parser error is left in istd.parser_error
        if "pre_control" in b:
            pre_in = self.pre_in_class()
            pre_in.input_port, pre_in.direction, pre_in.parser_error = port, direction, istd.parser_error
            b["pre_control"](hdr, meta, pre_in, self.pre_out_class(), ctx)
        ostd = self.main_out_class()
        b["main_control"](hdr, meta, istd, ostd, ctx)
        out_port = ctx.out_port
        copies = self._mirror_sessions(ctx.mirrors) if ctx.mirrors else ()
        data = b""
        if out_port is not _DROP or any(s.get("packet_contents", POST_MODIFY) == POST_MODIFY for s in copies):
            chunks: list[bytes] = []
            b["main_deparser"](chunks, hdr, meta, ostd, ctx)
            data = b"".join(chunks) + ctx.payload
        if out_port is _DROP:
            result.drops.append("dropped in main control (drop_packet, or no send_to_port)")
            if trace is not None:
                trace.drop("main_control")
        else:
            result.outputs.append(Output(out_port, data))
            if trace is not None:
                trace.packet_out(out_port, data)
        for session in copies:
            copy = buf if session.get("packet_contents") == PRE_MODIFY else data
            if session.get("packet_length"):
                copy = copy[:session["packet_length"]]
            result.outputs.append(Output(session["port"], copy, MIRROR_COPY))
            if trace is not None:
                trace.packet_out(session["port"], copy)

    def _mirror_sessions(self, mirrors: dict[int, int]) -> list[dict[str, Any]]:
        """The configured sessions of the mirror slots set for a packet, in slot order."""
        out = []
        for slot in sorted(mirrors):
            session = self.clone_sessions.get(mirrors[slot])
            if session is None or session.get("port") is None:
                self.mirror_misses[mirrors[slot]] = self.mirror_misses.get(mirrors[slot], 0) + 1
            else:
                out.append(session)
        return out

    def assertion_failed(self, ctx, kind: str) -> None:
        raise P4AssertionFailed(f"{kind}() failed in NIC {self.name}; packet dropped")


def _direct_counter_name(t: P.Table) -> str | None:
    """The instance named by the table's ``pna_direct_counter`` property, if it has one."""
    for name, value in t.properties:
        if name == "pna_direct_counter":
            if not isinstance(value, E.PathExpr):
                raise ArchitectureError(f"table '{t.name}': pna_direct_counter must name a DirectCounter instance")
            return value.name
    return None


def _action_params(params) -> tuple:
    """add_entry's action_params as argument values: a list's (valid, value, width) items or a struct's fields."""
    if isinstance(params, tuple):
        return tuple(p[1] if isinstance(p, tuple) else p for p in params)
    return tuple(getattr(params, name) for name in type(params).__slots__ if name != "_valid")
