"""The v1model architecture: BMv2 simple_switch's block order, metadata and packet fates.

A ``V1ModelSwitch`` runs one compiled program on packet bytes: parser, verify checksum,
ingress, the traffic manager (unicast, multicast replication, clone, resubmit, drop),
egress, compute checksum and deparser (P4-REFERENCE.md §5.1). Time comes from the
switch's clock (``now_us``), which the network layer drives; alone, it stays at 0.
"""
from __future__ import annotations

import sys
from typing import Any

from dataplane.arch.device import ArchitectureError, Device
from dataplane.arch.work import EgressWork, IngressWork
from dataplane.engine.context import PacketContext
from dataplane.engine.extern_functions import CLONE_E2E, CLONE_I2E, DROP_PORT, bind_functions
from dataplane.engine.externs import Register
from dataplane.engine.hashes import hash_function
from dataplane.engine.instances import make_instances, value_width
from dataplane.engine.source_map import p4_location
from dataplane.engine.structgen import py_name
from dataplane.engine.table_runtime import RuntimeTable
from dataplane.errors import DataplaneError
from dataplane.ir import program as P
from dataplane.ir import types as T
from dataplane.records import record

NORMAL, INGRESS_CLONE, EGRESS_CLONE, COALESCED, RECIRC, REPLICATION, RESUBMIT = 0, 1, 2, 3, 4, 5, 6
MAX_RECIRCULATIONS = 16
_EGRESS_SPEC_IN_EGRESS = (DROP_PORT + 1) & 0x1FF
_new_object = object.__new__


class P4AssertionFailed(DataplaneError):
    """A program's assert() or assume() was false for a packet. The message starts with the
    P4 position of the call (``FILE:LINE:COL: ``), found from the generated code's frame on
    the stack (``source_map``), so the cost falls only on a failing packet."""

    def __init__(self, message: str):
        span = p4_location(sys._getframe(1))
        super().__init__(f"{span}: {message}" if span is not None else message)


@record(slots=True)
class Output:
    """One packet leaving the switch."""

    port: int
    data: bytes
    instance_type: int = NORMAL


class PacketResult:
    """Everything one input packet produced: outputs, and why copies were dropped.

    A plain slotted class rather than a dataclass: one is made per pipeline pass.
    """

    __slots__ = ("outputs", "drops")

    def __init__(self, outputs: list[Output] | None = None, drops: list[str] | None = None):
        self.outputs = outputs if outputs is not None else []
        self.drops = drops if drops is not None else []

    def __eq__(self, other) -> bool:
        return isinstance(other, PacketResult) and (self.outputs, self.drops) == (other.outputs, other.drops)

    def __repr__(self) -> str:
        return f"PacketResult(outputs={self.outputs!r}, drops={self.drops!r})"


class V1ModelSwitch(Device):
    """One v1model switch: a program plus its own table entries and extern state."""

    architecture = "v1model"
    package_blocks = (("p", 4), ("vr", 2), ("ig", 3), ("eg", 3), ("ck", 2), ("dep", 2))

    def __init__(self, program: P.Program, *, name: str = "s1", seed: int = 0, extern_functions: dict | None = None):
        super().__init__(program, name, seed, extern_functions)
        self.multicast_groups: dict[int, list[tuple[int, list[int]]]] = {}  # group -> [(rid, ports)]
        self.clone_sessions: dict[int, dict[str, Any]] = {}                 # session -> {port, ...}
        self._load()

    def _bind_functions(self) -> dict:
        types = self.program.types
        return bind_functions(self, types["HashAlgorithm"].members if "HashAlgorithm" in types else ())

    # ---- construction ------------------------------------------------------------------------
    def _make_instances(self) -> dict[str, Any]:
        instances = make_instances(self.program, frozenset({"register"}), ArchitectureError, "engine")
        # Registers make their cells when first used (externs.Register): the generated code
        # indexes them unchecked, so run_work warms them all before the pipeline first runs.
        self._cold_registers = [inst for inst in instances.values() if inst.__class__ is Register]
        return instances

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

    def warm_registers(self) -> None:
        """Make every register's cells (``externs.Register``), as before the pipeline first runs."""
        for register in self._cold_registers:
            register.warm()
        self._cold_registers = []

    # ---- the packet path ---------------------------------------------------------------------------
    def process(self, port: int, data: bytes, trace: Any = None) -> PacketResult:
        """Run one packet that arrived on ``port`` straight through (empty queues); return what leaves."""
        result = PacketResult()
        work = [IngressWork(port, bytes(data))]
        while work:
            work.extend(self.run_work(work.pop(0), result, trace))
        return result

    def run_work(self, item: IngressWork | EgressWork, result: PacketResult,
                 trace: Any = None) -> list[IngressWork | EgressWork]:
        """Run one unit of work (``dataplane.arch.work``): an ingress pass or an egress pass.

        Returns the work it creates: egress passes to queue on their ports, and ingress
        passes for resubmitted or recirculated packets. The network layer queues egress
        work on the port and runs it when the packet reaches the head of the queue.
        """
        if self._cold_registers:
            self.warm_registers()
        try:
            if item.__class__ is EgressWork:
                return self._egress(item.port, item.hdr, item.meta, item.sm, item.ctx, item.instance_type,
                                    item.depth, result, trace)
            depth = item.depth
            if depth > MAX_RECIRCULATIONS:
                result.drops.append("recirculation limit reached")
                return []
            return self._ingress(item.port, item.data, item.instance_type, item.carried, depth, result, trace)
        except P4AssertionFailed as err:
            # BMv2 aborts the whole switch on a failed assert; one packet's drop is kinder and
            # keeps the emulator running, and the reason says which assert it was.
            result.drops.append(str(err))
            self.log_messages.append(str(err))
            return []
        except IndexError:
            # A run-time header stack index past the end: BMv2 reports an error for the packet.
            result.drops.append("header stack index out of range")
            return []

    def _new_packet(self, port: int, buf: bytes, itype: int, trace):
        now = self.now_us
        sm = self.sm_class()
        sm.ingress_port = port
        sm.packet_length = len(buf)
        if itype == NORMAL:  # BMv2 sets it on arrival only; resubmit/recirculate reset it to 0
            sm.ingress_global_timestamp = now
        else:
            sm.instance_type = itype  # a fresh standard_metadata reads 0 (NORMAL) already
        ctx = PacketContext(buf, sm, self, trace, now)
        return self.headers_class(), self.metadata_class(), sm, ctx

    def _ingress(self, port, buf, itype, preserved, depth, result, trace):
        b = self.blocks
        # _new_packet, inline (one call less on every packet).
        now = self.now_us
        sm = self.sm_class()
        sm.ingress_port = port
        sm.packet_length = n = len(buf)
        if itype == NORMAL:
            sm.ingress_global_timestamp = now
        else:
            sm.instance_type = itype
        # PacketContext(buf, sm, self, trace, now), slot by slot: no __init__ frame, no defaults
        # (about 0.1 us of a 4 us pass). Every slot is set: tests/arch checks against __slots__.
        ctx = _new_object(PacketContext)
        ctx.buf = buf
        ctx.pos = 0
        ctx.sm = sm
        ctx.trace = trace
        ctx.packet_length = n
        ctx.direct_meter_color = 0
        ctx.switch = self
        ctx.now_us = now
        ctx.clone_request = None
        ctx.resubmit_request = None
        ctx.recirculate_request = None
        ctx.truncate_length = None
        ctx.log = None
        hdr = self.headers_class()
        meta = self.metadata_class()
        if preserved is not None:
            _restore(meta, preserved)
        if trace is not None:
            trace.packet_in(port, buf)
        b["p"](None, hdr, meta, sm, ctx)
        b["vr"](hdr, meta, ctx)
        b["ig"](hdr, meta, sm, ctx)
        if ctx.clone_request is None and ctx.resubmit_request is None and sm.mcast_grp == 0:
            # The common case, unicast or drop: the general code below with nothing to add.
            if sm.egress_spec == DROP_PORT:
                result.drops.append("dropped in ingress (egress_spec = 511)")
                if trace is not None:
                    trace.drop("ingress")
                return []
            return [EgressWork(sm.egress_spec, hdr, meta, sm, ctx, NORMAL, depth)]
        more = []
        if ctx.clone_request is not None and ctx.clone_request[0] == CLONE_I2E:
            more += self._clone_i2e(ctx, buf, meta, depth, result, trace)
        if ctx.resubmit_request is not None:
            # BMv2 resets all metadata, standard_metadata included (ingress_port reads 0), and
            # copies only the @field_list fields (simple_switch.cpp copy_field_list_and_set_type).
            return more + [IngressWork(0, buf, RESUBMIT, self._preserve(meta, ctx.resubmit_request), depth + 1)]
        if sm.mcast_grp != 0:
            for rid, out_port in self._replicas(sm.mcast_grp):
                h2, m2, s2 = self._copy(hdr, meta, sm)
                s2.egress_rid = rid
                more.append(EgressWork(out_port, h2, m2, s2, ctx, REPLICATION, depth))
            return more
        if sm.egress_spec == DROP_PORT:
            result.drops.append("dropped in ingress (egress_spec = 511)")
            if trace is not None:
                trace.drop("ingress")
            return more
        # A unicast packet enters egress as NORMAL, even after a resubmit or recirculation.
        return more + [EgressWork(sm.egress_spec, hdr, meta, sm, ctx, NORMAL, depth)]

    def _egress(self, port, hdr, meta, sm, in_ctx, itype, depth, result, trace):
        b = self.blocks
        now = self.now_us
        sm.egress_port = port
        # BMv2 sets it to drop_port + 1 so that it does not read as a drop; stored in the
        # 9-bit field that is 512 & 0x1FF = 0, which is what egress code reads.
        sm.egress_spec = _EGRESS_SPEC_IN_EGRESS
        sm.instance_type = itype
        sm.egress_global_timestamp = now
        if itype == NORMAL:
            # A unicast packet's ingress context belongs to this one egress item (multicast
            # copies share theirs, clones have their own): reset what egress starts afresh
            # instead of building a new one. buf, pos, packet_length and truncate_length carry over.
            ctx = in_ctx
            ctx.sm = sm
            ctx.trace = trace
            ctx.now_us = now
            ctx.direct_meter_color = 0
            ctx.clone_request = None
            ctx.resubmit_request = None
            ctx.recirculate_request = None
            ctx.log = None
        else:
            # A multicast copy is a new BMv2 packet: an ingress truncate() does not follow it.
            ctx = PacketContext(in_ctx.buf, sm, self, trace, now, in_ctx.pos, in_ctx.packet_length,
                                in_ctx.truncate_length if itype != REPLICATION else None)
        b["eg"](hdr, meta, sm, ctx)
        more = []
        if ctx.clone_request is not None and ctx.clone_request[0] == CLONE_E2E:
            more += self._clone_e2e(ctx, hdr, meta, sm, depth, result, trace)
        if sm.egress_spec == DROP_PORT:
            result.drops.append("dropped in egress (mark_to_drop)")
            if trace is not None:
                trace.drop("egress")
            return more
        # Deparse (see _deparse), inline: compute checksum, emit, then the unparsed payload.
        b["ck"](hdr, meta, ctx)
        chunks: list[bytes] = []
        b["dep"](chunks, hdr, ctx)
        chunks.append(ctx.buf[ctx.pos:])
        data = b"".join(chunks)
        if ctx.recirculate_request is not None:
            # Metadata is reset (ingress_port reads 0) except the @field_list fields. The copy
            # BMv2 recirculates is the whole deparsed packet: truncate() only cuts on transmit.
            return more + [IngressWork(0, data, RECIRC, self._preserve(meta, ctx.recirculate_request), depth + 1)]
        if ctx.truncate_length is not None:
            data = data[: ctx.truncate_length]
        result.outputs.append(Output(port, data, itype))
        if trace is not None:
            trace.packet_out(port, data)
        return more

    def _deparse(self, hdr, meta, ctx) -> bytes:
        self.blocks["ck"](hdr, meta, ctx)
        chunks: list[bytes] = []
        self.blocks["dep"](chunks, hdr, ctx)
        chunks.append(ctx.buf[ctx.pos:])
        return b"".join(chunks)

    # ---- replication, clones, preserved fields ------------------------------------------------------
    def _replicas(self, group: int):
        """(rid, port) per copy: nodes in association order, each node's ports ascending (BMv2's PRE)."""
        for rid, ports in self.multicast_groups.get(group, []):
            for p in sorted(set(ports)):
                yield rid, p

    def _copy(self, hdr, meta, sm):
        h2, m2, s2 = self.headers_class(), self.metadata_class(), self.sm_class()
        h2.copy_from(hdr)
        m2.copy_from(meta)
        s2.copy_from(sm)
        return h2, m2, s2

    def _clone_targets(self, target: dict[str, Any]):
        """(rid, port) of each copy a clone session makes: one port, or a multicast group's replicas."""
        if target.get("group") is not None:
            return list(self._replicas(target["group"]))
        return [(0, target["port"])]

    def _clone_i2e(self, ctx, original: bytes, meta, depth, result, trace):
        _, session, index = ctx.clone_request
        target = self.clone_sessions.get(session)
        if target is None:
            return []
        # An ingress-to-egress clone is the packet as received, parsed again (with ingress_port
        # set, as the parser may read it); then BMv2 resets all metadata, standard_metadata
        # included, and copies back only the @field_list fields (simple_switch.cpp).
        hdr, m2, sm, c2 = self._new_packet(ctx.sm.ingress_port, original, INGRESS_CLONE, trace)
        self.blocks["p"](None, hdr, m2, sm, c2)
        preserved = self._preserve(meta, index)
        work = []
        for rid, port in self._clone_targets(target):
            h3, m3, s3 = self.headers_class(), self.metadata_class(), self.sm_class()
            h3.copy_from(hdr)
            _restore(m3, preserved)
            s3.packet_length = len(original)
            s3.egress_rid = rid
            c3 = PacketContext(original, s3, self, trace, self.now_us)
            c3.pos = c2.pos
            if target.get("packet_length"):
                c3.truncate_length = target["packet_length"]
            work.append(EgressWork(port, h3, m3, s3, c3, INGRESS_CLONE, depth))
        return work

    def _clone_e2e(self, ctx, hdr, meta, sm, depth, result, trace):
        _, session, index = ctx.clone_request
        target = self.clone_sessions.get(session)
        if target is None:
            return []
        if depth >= MAX_RECIRCULATIONS:
            result.drops.append("egress-to-egress clone limit reached")
            return []
        # The copy keeps the headers as egress left them; all metadata is reset except the
        # @field_list fields (BMv2 clone_with_phv_reset_metadata_ptr).
        preserved = self._preserve(meta, index)
        work = []
        for rid, port in self._clone_targets(target):
            h2, m2, s2 = self.headers_class(), self.metadata_class(), self.sm_class()
            h2.copy_from(hdr)
            _restore(m2, preserved)
            s2.packet_length = sm.packet_length
            s2.egress_rid = rid
            c2 = PacketContext(ctx.buf, s2, self, trace, self.now_us)
            c2.pos = ctx.pos
            if target.get("packet_length"):
                c2.truncate_length = target["packet_length"]
            work.append(EgressWork(port, h2, m2, s2, c2, EGRESS_CLONE, depth + 1))
        return work

    def _preserve(self, meta, index: int | None) -> list[tuple[tuple[str, ...], Any]]:
        """Metadata fields annotated ``@field_list(index)`` (at any struct depth), as (path, value) pairs."""
        if index is None or index < 0:
            return []
        keep: list[tuple[tuple[str, ...], Any]] = []
        self._collect_field_list(self.program.types.get(self.metadata_class.p4_name), meta, index, (), keep)
        return keep

    def _collect_field_list(self, st, obj, index: int, path: tuple[str, ...], keep: list) -> None:
        for f in getattr(st, "fields", ()):
            attr = py_name(f.name)  # the generated classes rename fields that are Python keywords
            value = getattr(obj, attr)
            if any(a.name == "field_list" and index in self._field_list_ids(a.body) for a in f.annotations):
                if hasattr(value, "copy_from"):
                    copy = type(value)()
                    copy.copy_from(value)
                    value = copy
                keep.append((path + (attr,), value))
                continue
            ft = T.strip_newtype(f.type)
            if isinstance(ft, T.Struct):
                self._collect_field_list(ft, value, index, path + (attr,), keep)

    def _field_list_ids(self, body: str) -> set[int]:
        """The indexes in a ``@field_list(...)`` body: numbers (``1``, ``8w1``), constants or serializable
        enum members."""
        ids = set()
        for item in body.split(","):
            item = item.strip()
            if "." in item:
                enum_name, _, member = item.rpartition(".")
                t = self.program.types.get(enum_name)
                if isinstance(t, T.Enum) and t.values is not None and member in t.members:
                    ids.add(t.values[t.members.index(member)])
                continue
            const = self.program.constants.get(item)   # @field_list(FL_PACKET_IN), a named constant
            if const is not None and isinstance(getattr(const.value, "value", None), int):
                ids.add(const.value.value)
                continue
            digits = item.split("w")[-1] if "w" in item else item
            try:
                ids.add(int(digits, 0))
            except ValueError:
                pass
        return ids

    def assertion_failed(self, ctx, kind: str) -> None:
        raise P4AssertionFailed(f"{kind}() failed in switch {self.name}; packet dropped")


def _restore(meta, values: list[tuple[tuple[str, ...], Any]] | None) -> None:
    for path, v in values or ():
        obj = meta
        for name in path[:-1]:
            obj = getattr(obj, name)
        setattr(obj, path[-1], v)


_key_width = value_width  # table key fields are stored as values of their type
