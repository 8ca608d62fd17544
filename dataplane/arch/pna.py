"""The P4 Portable NIC Architecture (PNA) for one NIC: parser, pre-control, main control, deparser.

A ``PnaNic`` runs one compiled PNA program (``pna.p4``) on packet bytes. One pipeline
serves both directions (PNA spec, "Why a common pipeline"): whether a packet goes
NET_TO_HOST or HOST_TO_NET follows from its input port. By default ports
``0 .. num_ports//2 - 1`` are network ports and every other port is a host port
(``num_ports`` defaults to 4: net 0-1, host 2-3); pass ``net_ports=`` to choose.

Forwarding follows the spec's extern functions: ``send_to_port(p)`` and ``drop_packet()``,
the last call wins, and a packet for which neither was called is dropped.
``mirror_packet`` is recorded in ``mirror_requests`` but sends no copy; ``add_entry``
(add-on-miss) inserts into the exact-match table being applied, without expiry;
recirculation and loopback are not supported.
"""
from __future__ import annotations

from typing import Any, Iterable

import dataplane.engine.pna_externs  # noqa: F401  (registers the PNA extern names)
from dataplane.arch.device import ArchitectureError, Device
from dataplane.arch.v1model import Output, PacketResult, P4AssertionFailed, _key_width
from dataplane.engine.context import PacketContext
from dataplane.engine.instances import make_instances
from dataplane.engine.pna_externs import InternetChecksum
from dataplane.engine.table_errors import TableError
from dataplane.engine.table_runtime import ActionEntry, RuntimeTable
from dataplane.ir import program as P
from dataplane.ir import types as T

NET_TO_HOST, HOST_TO_NET = 0, 1   # PNA_Direction_t member indexes
_DROP = None                      # the forwarding decision before send_to_port is called


class PnaContext(PacketContext):
    """A packet context with PNA's forwarding decision (the port, or None to drop)."""

    __slots__ = ("out_port", "applying")


class _PnaTable(RuntimeTable):
    """A runtime table that tells ``add_entry`` which table and key are being applied."""

    def lookup(self, key: tuple, ctx) -> ActionEntry:
        ctx.applying = (self, key)
        return RuntimeTable.lookup(self, key, ctx)


class PnaNic(Device):
    """One PNA NIC: a program plus its own table entries and extern state."""

    architecture = "pna"

    def __init__(self, program: P.Program, *, name: str = "s1", seed: int = 0, num_ports: int = 4,
                 net_ports: Iterable[int] | None = None):
        super().__init__(program, name, seed)
        self.net_ports = frozenset(net_ports if net_ports is not None else range(num_ports // 2))
        self.mirror_requests: list[tuple[int, int]] = []   # (slot, session) per mirror_packet call
        self.multicast_groups: dict = {}   # unused by PNA; kept so the control plane can share code
        self.clone_sessions: dict = {}
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
                if t.implementation or t.meters:
                    raise ArchitectureError(f"unsupported: table '{t.name}' implementation/meters in PNA")
                layout = [(k.match_kind, _key_width(k.expr.type)) for k in t.keys]
                rt = _PnaTable(t, f"{control.name}.{t.name}", control.name, layout)
                tables[rt.qualified_name] = rt
        return tables

    def _bind_functions(self) -> dict[str, Any]:
        def send_to_port(ctx, port) -> None:
            ctx.out_port = port

        def drop_packet(ctx) -> None:
            ctx.out_port = _DROP

        def mirror_packet(ctx, slot, session) -> None:
            self.mirror_requests.append((slot, session))

        def is_net_port(ctx, port) -> bool:
            return port in self.net_ports

        def is_host_port(ctx, port) -> bool:
            return port not in self.net_ports

        def select_by_direction(ctx, direction, n2h_value, h2n_value):
            return n2h_value if direction == NET_TO_HOST else h2n_value

        def add_entry(ctx, action_name, params, expire_time_profile_id=0) -> bool:
            return self._add_on_miss(ctx, action_name, params)

        return {"send_to_port": send_to_port, "drop_packet": drop_packet, "mirror_packet": mirror_packet,
                "is_net_port": is_net_port, "is_host_port": is_host_port,
                "SelectByDirection": select_by_direction, "add_entry": add_entry}

    def _add_on_miss(self, ctx, action_name: str, params) -> bool:
        """``add_entry``: insert the key just looked up into the table being applied.

        Only exact-match tables (as the spec requires for add-on-miss); expiry is not
        modelled. ``params`` is a list ``{a, b}`` or, as p4c's samples write it, a struct
        whose fields are the action's parameters in order. Returns false if the key is
        already there.
        """
        applying = ctx.applying
        if applying is None:
            raise ArchitectureError("add_entry called outside a table's action")
        table, key = applying
        if any(kind != "exact" for kind, _ in table.key_layout):
            raise ArchitectureError(f"unsupported: add_entry on table '{table.qualified_name}' (keys must be exact)")
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
        return True

    def _bind_blocks(self, built: dict) -> dict[str, Any]:
        slots = dict(self.program.package.blocks)
        blocks = {slot: built["parsers"].get(name) or built["controls"][name] for slot, name in slots.items()}
        parser = self.program.parsers[slots["main_parser"]]
        self.headers_class = self.pipeline.struct_class(T.strip_newtype(parser.params[1].type).name)
        self.metadata_class = self.pipeline.struct_class(T.strip_newtype(parser.params[2].type).name)
        sc = self.pipeline.struct_class
        self.parser_in_class = sc("pna_main_parser_input_metadata_t")
        self.pre_in_class = sc("pna_pre_input_metadata_t")
        self.pre_out_class = sc("pna_pre_output_metadata_t")
        self.main_in_class = sc("pna_main_input_metadata_t")
        self.main_out_class = sc("pna_main_output_metadata_t")
        return blocks

    # ---- the packet path -----------------------------------------------------------------------
    def process(self, port: int, data: bytes, trace: Any = None) -> PacketResult:
        """Run one packet that arrived on ``port``; return what leaves the NIC."""
        result = PacketResult()
        self.run_work(("ingress", port, bytes(data), 0, None, 0), result, trace)
        return result

    def run_work(self, item: tuple, result: PacketResult, trace: Any = None) -> list[tuple]:
        """Run one ``("ingress", port, bytes, ...)`` item; PNA makes no further work."""
        _, port, buf = item[0], item[1], item[2]
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
        direction = NET_TO_HOST if port in self.net_ports else HOST_TO_NET
        for ck in self._checksums:
            ck.state = 0
        pin = self.parser_in_class()
        pin.input_port, pin.direction = port, direction
        istd = self.main_in_class()
        istd.input_port, istd.direction, istd.timestamp = port, direction, self.now_us
        ctx = PnaContext(buf, istd, self, trace, self.now_us)
        ctx.out_port = _DROP
        ctx.applying = None
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
        if out_port is _DROP:
            result.drops.append("dropped in main control (drop_packet, or no send_to_port)")
            if trace is not None:
                trace.drop("main_control")
            return
        chunks: list[bytes] = []
        b["main_deparser"](chunks, hdr, meta, ostd, ctx)
        data = b"".join(chunks) + ctx.payload
        result.outputs.append(Output(out_port, data))
        if trace is not None:
            trace.packet_out(out_port, data)

    def assertion_failed(self, ctx, kind: str) -> None:
        raise P4AssertionFailed(f"{kind}() failed in NIC {self.name}; packet dropped")


def _action_params(params) -> tuple:
    """add_entry's action_params as argument values: a list's (valid, value, width) items or a struct's fields."""
    if isinstance(params, tuple):
        return tuple(p[1] if isinstance(p, tuple) else p for p in params)
    return tuple(getattr(params, name) for name in type(params).__slots__ if name != "_valid")
