"""The v1model architecture: BMv2 simple_switch's block order, metadata and packet fates.

A ``V1ModelSwitch`` runs one compiled program on packet bytes: parser, verify checksum,
ingress, the traffic manager (unicast, multicast replication, clone, resubmit, drop),
egress, compute checksum and deparser (P4-REFERENCE.md §5.1). Time comes from the
switch's clock (``now_us``), which the network layer drives; alone, it stays at 0.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from dataplane.errors import DataplaneError
from dataplane.engine.backend import compile_pipeline
from dataplane.engine.context import PacketContext
from dataplane.engine.extern_functions import CLONE_E2E, CLONE_I2E, DROP_PORT, bind_functions
from dataplane.engine.externs import EXTERN_TYPES
from dataplane.engine.hashes import hash_function
from dataplane.engine.table_runtime import RuntimeTable
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import types as T

NORMAL, INGRESS_CLONE, EGRESS_CLONE, COALESCED, RECIRC, REPLICATION, RESUBMIT = 0, 1, 2, 3, 4, 5, 6
MAX_RECIRCULATIONS = 16


class ArchitectureError(DataplaneError):
    """The program does not fit the v1model architecture as this emulator runs it."""


@dataclass
class Output:
    """One packet leaving the switch."""

    port: int
    data: bytes
    instance_type: int = NORMAL


@dataclass
class PacketResult:
    """Everything one input packet produced: outputs, and why copies were dropped."""

    outputs: list[Output] = field(default_factory=list)
    drops: list[str] = field(default_factory=list)


class V1ModelSwitch:
    """One v1model switch: a program plus its own table entries and extern state."""

    def __init__(self, program: P.Program, *, name: str = "s1", seed: int = 0):
        if program.architecture != "v1model":
            raise ArchitectureError(f"program uses {program.architecture or 'no'} architecture, not v1model")
        self.program = program
        self.name = name
        self.rng = random.Random(seed)
        self.now_us = 0
        self.digests: list[tuple[int, tuple]] = []
        self.log_messages: list[str] = []
        self.multicast_groups: dict[int, list[tuple[int, list[int]]]] = {}  # group -> [(rid, ports)]
        self.clone_sessions: dict[int, dict[str, Any]] = {}                 # session -> {port, ...}
        self.layouts = program.headers
        self.pipeline = compile_pipeline(program)
        self.instances = self._make_instances()
        self.tables = self._make_tables()
        hash_members = program.types["HashAlgorithm"].members if "HashAlgorithm" in program.types else ()
        self.functions = bind_functions(self, hash_members)
        built = self.pipeline.instantiate(self)
        self.actions = built["actions"]
        for table in self.tables.values():
            table.bind(self.actions)
        self.blocks = self._bind_blocks(built)

    # ---- construction ------------------------------------------------------------------------
    def _make_instances(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        pairs = [("", i) for i in self.program.instances]
        for block in list(self.program.parsers.values()) + list(self.program.controls.values()):
            pairs += [(block.name + ".", i) for i in block.instances]
        for prefix, inst in pairs:
            cls = EXTERN_TYPES.get(inst.extern)
            if cls is None:
                raise ArchitectureError(f"unsupported: extern '{inst.extern}' in the engine")
            out[prefix + inst.name] = cls(prefix + inst.name, *self._ctor_args(inst))
        return out

    def _ctor_args(self, inst: P.ExternInstance) -> list:
        args = []
        for a in inst.args:
            if isinstance(a, E.Constant):
                args.append(a.value)
            elif isinstance(a, E.TypeMember):
                args.append(a.member)
            elif isinstance(a, E.BoolLiteral):
                args.append(a.value)
        if inst.extern == "register" and inst.type_args:
            args.append(T.strip_newtype(inst.type_args[0]).bit_width())
        return args

    def _make_tables(self) -> dict[str, RuntimeTable]:
        tables = {}
        for control in self.program.controls.values():
            for t in control.tables.values():
                layout = [(k.match_kind, _key_width(k.expr.type)) for k in t.keys]
                rt = RuntimeTable(t, f"{control.name}.{t.name}", control.name, layout)
                if t.meters:
                    rt.direct_meter = self.instances.get(f"{control.name}.{t.meters}") or self.instances.get(t.meters)
                if t.implementation:
                    impl = self.instances.get(f"{control.name}.{t.implementation}") or self.instances.get(t.implementation)
                    algorithm = getattr(impl, "algorithm", None)
                    if algorithm is not None:
                        rt.selector_hash = hash_function(algorithm, rng=self.rng)
                tables[rt.qualified_name] = rt
        return tables

    def _bind_blocks(self, built: dict) -> dict[str, Any]:
        pkg = self.program.package
        blocks = {}
        for slot, name in pkg.blocks:
            blocks[slot] = built["parsers"].get(name) or built["controls"][name]
        parser = self.program.parsers[dict(pkg.blocks)["p"]]
        self.headers_class = self.pipeline.struct_class(T.strip_newtype(parser.params[1].type).name)
        self.metadata_class = self.pipeline.struct_class(T.strip_newtype(parser.params[2].type).name)
        self.sm_class = self.pipeline.struct_class("standard_metadata_t")
        return blocks

    # ---- the packet path ---------------------------------------------------------------------------
    def process(self, port: int, data: bytes, trace: Any = None) -> PacketResult:
        """Run one packet that arrived on ``port`` straight through (empty queues); return what leaves."""
        result = PacketResult()
        work = [("ingress", port, bytes(data), NORMAL, None, 0)]
        while work:
            work.extend(self.run_work(work.pop(0), result, trace))
        return result

    def run_work(self, item: tuple, result: PacketResult, trace: Any = None) -> list[tuple]:
        """Run one unit of work: an ``("ingress", ...)`` pass or an ``("egress", ...)`` pass.

        Returns the work it creates: egress passes to queue on their ports, and ingress
        passes for resubmitted or recirculated packets. The network layer queues egress
        work on the port and runs it when the packet reaches the head of the queue.
        """
        if item[0] == "ingress":
            _, in_port, buf, itype, preserved, depth = item
            if depth > MAX_RECIRCULATIONS:
                result.drops.append("recirculation limit reached")
                return []
            return self._ingress(in_port, buf, itype, preserved, depth, result, trace)
        _, port, hdr, meta, sm, ctx, itype, depth = item
        return self._egress(port, hdr, meta, sm, ctx, itype, depth, result, trace)

    def _new_packet(self, port: int, buf: bytes, itype: int, trace):
        sm = self.sm_class()
        sm.ingress_port = port
        sm.packet_length = len(buf)
        sm.instance_type = itype
        sm.ingress_global_timestamp = self.now_us
        ctx = PacketContext(buf, sm, self, trace, self.now_us)
        return self.headers_class(), self.metadata_class(), sm, ctx

    def _ingress(self, port, buf, itype, preserved, depth, result, trace):
        b = self.blocks
        hdr, meta, sm, ctx = self._new_packet(port, buf, itype, trace)
        if preserved is not None:
            _restore(meta, preserved)
        if trace is not None:
            trace.packet_in(port, buf)
        b["p"](None, hdr, meta, sm, ctx)
        b["vr"](hdr, meta, ctx)
        b["ig"](hdr, meta, sm, ctx)
        more = []
        if ctx.clone_request is not None and ctx.clone_request[0] == CLONE_I2E:
            more += self._clone_i2e(ctx, buf, meta, depth, result, trace)
        if ctx.resubmit_request is not None:
            return more + [("ingress", port, buf, RESUBMIT, self._preserve(meta, ctx.resubmit_request), depth + 1)]
        if sm.mcast_grp != 0:
            for rid, out_port in self._replicas(sm.mcast_grp):
                h2, m2, s2 = self._copy(hdr, meta, sm)
                s2.egress_rid = rid
                more.append(("egress", out_port, h2, m2, s2, ctx, REPLICATION, depth))
            return more
        if sm.egress_spec == DROP_PORT:
            result.drops.append("dropped in ingress (egress_spec = 511)")
            if trace is not None:
                trace.drop("ingress")
            return more
        return more + [("egress", sm.egress_spec, hdr, meta, sm, ctx, itype, depth)]

    def _egress(self, port, hdr, meta, sm, in_ctx, itype, depth, result, trace):
        b = self.blocks
        sm.egress_port = port
        sm.egress_spec = DROP_PORT + 1  # BMv2 re-initialises it so it does not read as a drop
        sm.instance_type = itype
        sm.egress_global_timestamp = self.now_us
        ctx = PacketContext(in_ctx.buf, sm, self, trace, self.now_us)
        ctx.pos = in_ctx.pos
        ctx.packet_length = in_ctx.packet_length
        ctx.truncate_length = in_ctx.truncate_length
        b["eg"](hdr, meta, sm, ctx)
        more = []
        if ctx.clone_request is not None and ctx.clone_request[0] == CLONE_E2E:
            h2, m2, s2 = self._copy(hdr, meta, sm)
            more += self._clone_e2e(ctx, h2, m2, s2, depth, result, trace)
        if sm.egress_spec == DROP_PORT:
            result.drops.append("dropped in egress (mark_to_drop)")
            if trace is not None:
                trace.drop("egress")
            return more
        data = self._deparse(hdr, meta, ctx)
        if ctx.recirculate_request is not None:
            return more + [("ingress", port, data, RECIRC, self._preserve(meta, ctx.recirculate_request), depth + 1)]
        result.outputs.append(Output(port, data, itype))
        if trace is not None:
            trace.packet_out(port, data)
        return more

    def _deparse(self, hdr, meta, ctx) -> bytes:
        self.blocks["ck"](hdr, meta, ctx)
        chunks: list[bytes] = []
        self.blocks["dep"](chunks, hdr, ctx)
        data = b"".join(chunks) + ctx.payload
        if ctx.truncate_length is not None:
            data = data[: ctx.truncate_length]
        return data

    # ---- replication, clones, preserved fields ------------------------------------------------------
    def _replicas(self, group: int):
        for rid, ports in self.multicast_groups.get(group, []):
            for p in sorted(ports):
                yield rid, p

    def _copy(self, hdr, meta, sm):
        h2, m2, s2 = self.headers_class(), self.metadata_class(), self.sm_class()
        h2.copy_from(hdr)
        m2.copy_from(meta)
        s2.copy_from(sm)
        return h2, m2, s2

    def _clone_i2e(self, ctx, original: bytes, meta, depth, result, trace):
        _, session, index = ctx.clone_request
        target = self.clone_sessions.get(session)
        if target is None:
            return []
        # An ingress-to-egress clone is the packet as received, parsed again (§5.1).
        hdr, m2, sm, c2 = self._new_packet(ctx.sm.ingress_port, original, INGRESS_CLONE, trace)
        self.blocks["p"](None, hdr, m2, sm, c2)
        if index is not None:
            _restore(m2, self._preserve(meta, index))
        if target.get("packet_length"):
            c2.truncate_length = target["packet_length"]
        return [("egress", target["port"], hdr, m2, sm, c2, INGRESS_CLONE, depth)]

    def _clone_e2e(self, ctx, hdr, meta, sm, depth, result, trace):
        _, session, _index = ctx.clone_request
        target = self.clone_sessions.get(session)
        if target is None:
            return []
        c2 = PacketContext(ctx.buf, sm, self, trace, self.now_us)
        c2.pos = ctx.pos
        return [("egress", target["port"], hdr, meta, sm, c2, EGRESS_CLONE, depth + 1)]

    def _preserve(self, meta, index: int | None) -> dict[str, Any]:
        """Metadata fields annotated ``@field_list(index)``, to carry into a resubmit/recirculate/clone."""
        if index is None or index < 0:
            return {}
        mt = self.program.types.get(self.metadata_class.p4_name)
        keep = {}
        for f in getattr(mt, "fields", ()):
            for a in f.annotations:
                if a.name == "field_list" and str(index) in [x.strip() for x in a.body.split(",")]:
                    keep[f.name] = getattr(meta, f.name)
        return keep

    def assertion_failed(self, ctx, kind: str) -> None:
        raise DataplaneError(f"{kind} failed in switch {self.name}")


def _restore(meta, values: dict[str, Any]) -> None:
    for k, v in values.items():
        setattr(meta, k, v)


def _key_width(t: T.Type) -> int:
    t = T.strip_newtype(t)
    if isinstance(t, T.Enum):
        return t.underlying.width if t.underlying else 32
    if isinstance(t, T.Bool):
        return 1
    if isinstance(t, T.Bits):
        return t.width
    return 32
