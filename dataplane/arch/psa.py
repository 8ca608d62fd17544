"""The Portable Switch Architecture (PSA) as BMv2's psa_switch runs it.

A ``PsaSwitch`` runs one compiled ``PSA_Switch(IngressPipeline(ip, ig, id),
PacketReplicationEngine(), EgressPipeline(ep, eg, ed), BufferingQueueingEngine())``
program on packet bytes. Ingress: the ingress parser, the ingress control, then the end
of ingress in psa_switch's order: an I2E clone if ``ostd.clone`` (the packet as it entered
the ingress parser, to the clone session's port or multicast group, made even when the
packet is dropped); ``drop`` (ingress starts with it true); ``resubmit`` (the packet as
received goes back to ingress, before the deparser runs); else the ingress deparser, then
multicast to ``multicast_group`` (a copy per replica, ``instance`` = its rid) or unicast to
``egress_port``. Egress: the egress parser parses what the ingress deparser emitted (or the
clone's bytes), the egress control, the egress deparser, then an E2E clone of the deparsed
packet if ``ostd.clone``, ``drop``, recirculation when the port is
``PSA_PORT_RECIRCULATE`` (back to ingress with that ingress port), else transmission.

Metadata follows psa_switch's storage (``psa_storage``): parameters of one struct type are
one object, user metadata reaches egress for a packet sent on, and clones, resubmitted and
recirculated packets start with all metadata zero: psa_switch carries none of
``resubmit_meta``, ``recirculate_meta``, ``clone_i2e_meta`` or ``clone_e2e_meta``, and a
resubmitted packet's ``ingress_port`` reads 0. Time comes from ``now_us``.
"""
from __future__ import annotations

from typing import Any

from dataplane.arch.device import ArchitectureError, Device
from dataplane.arch.psa_program import accepts_at_once, does_nothing, with_psa_properties
from dataplane.arch.psa_storage import Storage, role_types
from dataplane.arch.v1model import Output, P4AssertionFailed, PacketResult, _key_width
from dataplane.arch.work import EgressWork, IngressWork
from dataplane.engine.context import PacketContext
from dataplane.engine.hashes import hash_function
from dataplane.engine.instances import make_instances
from dataplane.engine.psa_externs import PSA_EXTERNS, WIDTH_EXTERNS, PsaRandom
from dataplane.engine.table_runtime import RuntimeTable
from dataplane.ir import program as P

# PSA_PacketPath_t, in psa_switch's numbering (the enum's order).
NORMAL, NORMAL_UNICAST, NORMAL_MULTICAST, CLONE_I2E, CLONE_E2E, RESUBMIT, RECIRCULATE = range(7)
PSA_PORT_RECIRCULATE = 0xFFFFFFFA
MAX_PASSES = 16   # resubmits + recirculations + E2E clones of one packet (psa_switch has no limit)
SLOTS = ("ingress.ip", "ingress.ig", "ingress.id", "egress.ep", "egress.eg", "egress.ed")
_new_object = object.__new__


class PsaContext(PacketContext):
    """A packet context that also carries what egress is told about the packet."""

    __slots__ = ("ingress_port", "class_of_service", "instance")


class PsaSwitch(Device):
    """One psa_switch: a program plus its own table entries, extern state, groups and sessions."""

    architecture = "psa"
    port_limit = 1 << 32

    def __init__(self, program: P.Program, *, name: str = "s1", seed: int = 0):
        super().__init__(program, name, seed)
        self.multicast_groups: dict[int, list[tuple[int, list[int]]]] = {}   # group -> [(rid, ports)]
        self.clone_sessions: dict[int, dict[str, Any]] = {}                  # session -> {port | group, ...}
        self._load()

    # ---- construction ------------------------------------------------------------------------
    def _make_instances(self) -> dict[str, Any]:
        instances = make_instances(self.program, WIDTH_EXTERNS, ArchitectureError, "PSA engine", PSA_EXTERNS)
        for inst in instances.values():
            if isinstance(inst, PsaRandom):
                inst.rng = self.rng
        return instances

    def _make_tables(self) -> dict[str, RuntimeTable]:
        tables = {}
        for control in self.program.controls.values():
            for t in control.tables.values():
                t = with_psa_properties(t)
                layout = [(k.match_kind, _key_width(k.expr.type)) for k in t.keys]
                rt = RuntimeTable(t, f"{control.name}.{t.name}", control.name, layout)
                if t.meters:
                    rt.direct_meter = self._attached(control, t, t.meters, "direct_meter", "psa_direct_meter")
                if t.counters:
                    self._attached(control, t, t.counters, "direct_counter", "psa_direct_counter")
                if t.implementation:
                    impl = self._attached(control, t, t.implementation, ("action_profile", "action_selector"),
                                          "psa_implementation")
                    if getattr(impl, "cp_kind", "") == "action_selector":
                        rt.selector_hash = hash_function(impl.algorithm, rng=self.rng)
                tables[rt.qualified_name] = rt
        return tables

    def _attached(self, control: P.Control, t: P.Table, name: str, kinds, prop: str):
        inst = self.instances.get(f"{control.name}.{name}") or self.instances.get(name)
        kinds = (kinds,) if isinstance(kinds, str) else kinds
        if inst is None or getattr(inst, "cp_kind", "") not in kinds:
            raise ArchitectureError(f"table '{control.name}.{t.name}': {prop} '{name}' is not "
                                    f"{' or '.join(kinds)} instance of control '{control.name}'")
        return inst

    def _bind_functions(self) -> dict[str, Any]:
        def psa_clone_i2e(ctx, istd) -> bool:
            return istd.clone

        def psa_resubmit(ctx, istd) -> bool:
            return not istd.drop and istd.resubmit

        def psa_normal(ctx, istd) -> bool:
            return not istd.drop and not istd.resubmit

        def psa_clone_e2e(ctx, istd) -> bool:
            return istd.clone

        def psa_recirculate(ctx, istd, edstd) -> bool:
            return not istd.drop and edstd.egress_port == PSA_PORT_RECIRCULATE

        def assert_(ctx, condition) -> None:
            if not condition:
                self.assertion_failed(ctx, "assert")

        def assume(ctx, condition) -> None:
            if not condition:
                self.assertion_failed(ctx, "assume")

        return {"psa_clone_i2e": psa_clone_i2e, "psa_resubmit": psa_resubmit, "psa_normal": psa_normal,
                "psa_clone_e2e": psa_clone_e2e, "psa_recirculate": psa_recirculate, "assert": assert_,
                "assume": assume}

    def _bind_blocks(self, built: dict) -> dict[str, Any]:
        slots = dict(self.program.package.blocks)
        missing = [s for s in SLOTS if s not in slots]
        if missing:
            raise ArchitectureError(f"PSA_Switch needs an ingress and an egress pipeline; missing {', '.join(missing)}")
        blocks = {slot: built["parsers"].get(slots[slot]) or built["controls"][slots[slot]] for slot in SLOTS}
        sc = self.pipeline.struct_class
        self.storage = Storage(*role_types(self.program, slots), sc)
        self._new_ingress, self._carry = self.storage.new_ingress, self.storage.carry
        self._egress_parses = not accepts_at_once(self.program.parsers[slots["egress.ep"]])
        self._egress_controls = not does_nothing(self.program.controls[slots["egress.eg"]])
        # psa_switch's standard metadata lives in the PHV; each pass fills every field it
        # reads, so one object of each serves every pass of every packet.
        self._pin = sc("psa_ingress_parser_input_metadata_t")()
        self._iin = sc("psa_ingress_input_metadata_t")()
        self._iout = sc("psa_ingress_output_metadata_t")()
        self._epin = sc("psa_egress_parser_input_metadata_t")()
        self._ein = sc("psa_egress_input_metadata_t")()
        self._eout = sc("psa_egress_output_metadata_t")()
        self._edin = sc("psa_egress_deparser_input_metadata_t")()
        return blocks

    # ---- the packet path ---------------------------------------------------------------------
    def process(self, port: int, data: bytes, trace: Any = None) -> PacketResult:
        """Run one packet that arrived on ``port`` straight through (empty queues); return what leaves."""
        result = PacketResult()
        run = self.run_work
        work = run(IngressWork(port, bytes(data)), result, trace)
        if len(work) == 1 and work[0].__class__ is EgressWork:
            # The common case, one packet sent on: its egress pass is all that is left.
            item = work[0]
            try:
                work = self._egress(item.port, item.hdr, item.ctx, item.instance_type, item.depth, result, trace)
            except P4AssertionFailed as err:
                work = self._assertion_drop(err, result)
            except IndexError:
                work = self._index_drop(result)
        while work:
            work.extend(run(work.pop(0), result, trace))
        return result

    def run_work(self, item: IngressWork | EgressWork, result: PacketResult,
                 trace: Any = None) -> list[IngressWork | EgressWork]:
        """Run one ingress pass (``IngressWork``: ``instance_type`` is the packet path, ``carried``
        a resubmitted packet's headers) or egress pass (``EgressWork``: ``hdr`` is what storage
        carries, ``sm`` and ``ctx`` the packet's context); return the work it makes. Egress work for
        ``PSA_PORT_RECIRCULATE`` runs at once (it has no queue), so a caller sees only real ports."""
        try:
            if item.__class__ is EgressWork:
                work = self._egress(item.port, item.hdr, item.ctx, item.instance_type, item.depth, result, trace)
            else:
                work = self._ingress(item.port, item.data, item.instance_type, item.carried, item.depth,
                                     result, trace)
        except P4AssertionFailed as err:
            return self._assertion_drop(err, result)
        except IndexError:
            return self._index_drop(result)
        if not work:
            return work
        if len(work) == 1:
            w = work[0]
            if w.port == PSA_PORT_RECIRCULATE and w.__class__ is EgressWork:
                return self.run_work(w, result, trace)
            return work
        out = []
        for w in work:
            out.extend(self.run_work(w, result, trace) if w.port == PSA_PORT_RECIRCULATE and w.__class__ is EgressWork
                       else (w,))
        return out

    def _assertion_drop(self, err: P4AssertionFailed, result: PacketResult) -> list:
        # psa_switch stops the whole switch; dropping the packet keeps the emulator running.
        result.drops.append(str(err))
        self.log_messages.append(str(err))
        return []

    @staticmethod
    def _index_drop(result: PacketResult) -> list:
        result.drops.append("header stack index out of range")
        return []

    def _context(self, buf: bytes, sm, trace, now: int, ingress_port: int) -> PsaContext:
        # PsaContext(...), slot by slot: no __init__ frame on the per-packet path.
        ctx = _new_object(PsaContext)
        ctx.buf = buf
        ctx.pos = 0
        ctx.sm = sm
        ctx.trace = trace
        ctx.packet_length = len(buf)
        ctx.direct_meter_color = 0
        ctx.switch = self
        ctx.now_us = now
        ctx.clone_request = ctx.resubmit_request = ctx.recirculate_request = ctx.truncate_length = None
        ctx.log = None
        ctx.ingress_port = ingress_port
        ctx.class_of_service = 0
        ctx.instance = 0
        return ctx

    def _ingress(self, port: int, buf: bytes, path: int, headers, depth: int, result: PacketResult,
                 trace) -> list:
        if depth > MAX_PASSES:
            result.drops.append("resubmit/recirculation limit reached")
            return []
        b = self.blocks
        now = self.now_us
        pin, iin, iout = self._pin, self._iin, self._iout
        pin.ingress_port = port
        pin.packet_path = path
        iin.ingress_port = port
        iin.packet_path = path
        iin.ingress_timestamp = now
        iin.parser_error = 0
        iout.class_of_service = 0
        iout.clone = False
        iout.clone_session_id = 0
        iout.drop = True
        iout.resubmit = False
        iout.multicast_group = 0
        iout.egress_port = 0
        # self._context(buf, iin, trace, now, port), inline: one call less on every packet.
        ctx = _new_object(PsaContext)
        ctx.buf = buf
        ctx.pos = 0
        ctx.sm = iin
        ctx.trace = trace
        ctx.packet_length = len(buf)
        ctx.direct_meter_color = 0
        ctx.switch = self
        ctx.now_us = now
        ctx.clone_request = ctx.resubmit_request = ctx.recirculate_request = ctx.truncate_length = None
        ctx.log = None
        ctx.ingress_port = port
        ctx.class_of_service = 0
        ctx.instance = 0
        objs = self._new_ingress()
        if headers is not None:   # a resubmitted packet keeps its headers (see below)
            objs = (headers,) + objs[1:]
        hdr, meta, resub, recirc, ci2e, nm = objs
        if trace is not None:
            trace.packet_in(port, buf)
        b["ingress.ip"](None, hdr, meta, pin, resub, recirc, ctx)
        b["ingress.ig"](hdr, meta, iin, iout, ctx)
        more = self._clone(iout.clone_session_id, buf, CLONE_I2E, ctx, depth) if iout.clone else []
        if iout.drop:
            result.drops.append("dropped in ingress (ostd.drop)")
            if trace is not None:
                trace.drop("ingress", "ostd.drop")
            return more
        if iout.resubmit:
            # The packet as received, before the deparser, all metadata reset (its ingress_port
            # reads 0). psa_switch resubmits the same packet, PHV and all: its headers stay as
            # ingress left them (a header made valid stays valid) until the parser extracts again.
            return more + [IngressWork(0, buf, RESUBMIT, hdr, depth + 1)]
        chunks: list[bytes] = []
        b["ingress.id"](chunks, ci2e, resub, nm, hdr, meta, iout, ctx)
        chunks.append(buf[ctx.pos:])
        data = b"".join(chunks)
        carried = self._carry(objs)
        cos = iout.class_of_service
        group = iout.multicast_group
        if group:
            copies = self._replicas(group)
            if not copies:
                result.drops.append(f"multicast group {group} has no replicas")
            for rid, out_port in copies:
                c2 = self._context(data, None, trace, now, port)
                c2.class_of_service = cos
                c2.instance = rid
                more.append(EgressWork(out_port, self.storage.copy_carried(carried), None, c2, c2,
                                       NORMAL_MULTICAST, depth))
            return more
        # Unicast: this packet's context goes on to egress with the deparsed bytes.
        ctx.buf = data
        ctx.pos = 0
        ctx.packet_length = len(data)
        ctx.class_of_service = cos
        more.append(EgressWork(iout.egress_port, carried, None, ctx, ctx, NORMAL_UNICAST, depth))
        return more

    def _egress(self, port: int, carried, ctx: PsaContext, path: int, depth: int, result: PacketResult,
                trace) -> list:
        b = self.blocks
        now = self.now_us
        epin, ein, eout, edin = self._epin, self._ein, self._eout, self._edin
        epin.egress_port = port
        epin.packet_path = path
        ein.class_of_service = ctx.class_of_service
        ein.egress_port = port
        ein.packet_path = path
        ein.instance = ctx.instance
        ein.egress_timestamp = now
        ein.parser_error = 0
        eout.clone = False
        eout.clone_session_id = 0
        eout.drop = False
        ctx.sm = ein
        ctx.trace = trace
        ctx.now_us = now
        ctx.direct_meter_color = 0
        st = self.storage
        hdr, meta, nm, ci2e, ce2e, recirc = st.new_egress_fresh() if carried is None else st.new_egress_carried(carried)
        # A parser that only accepts and a control with nothing to do are not called (untraced).
        if self._egress_parses or trace is not None:
            b["egress.ep"](None, hdr, meta, epin, nm, ci2e, ce2e, ctx)
        if self._egress_controls or trace is not None:
            b["egress.eg"](hdr, meta, ein, eout, ctx)
        edin.egress_port = port
        chunks: list[bytes] = []
        b["egress.ed"](chunks, ce2e, recirc, hdr, meta, eout, edin, ctx)
        if chunks:
            chunks.append(ctx.buf[ctx.pos:])
            data = b"".join(chunks)
        else:   # nothing emitted (an egress that passes the packet on): no copy
            data = ctx.buf[ctx.pos:] if ctx.pos else ctx.buf
        more = self._clone(eout.clone_session_id, data, CLONE_E2E, ctx, depth + 1) if eout.clone else []
        if eout.drop:
            result.drops.append("dropped in egress (ostd.drop)")
            if trace is not None:
                trace.drop("egress", "ostd.drop")
            return more
        if port == PSA_PORT_RECIRCULATE:
            return more + [IngressWork(PSA_PORT_RECIRCULATE, data, RECIRCULATE, None, depth + 1)]
        if ctx.truncate_length is not None:
            data = data[:ctx.truncate_length]
        result.outputs.append(Output(port, data, path))
        if trace is not None:
            trace.packet_out(port, data)
        return more

    # ---- replication and clones ----------------------------------------------------------------
    def _replicas(self, group: int) -> list[tuple[int, int]]:
        """(rid, port) per copy: nodes in association order, each node's ports ascending (BMv2's PRE)."""
        return [(rid, p) for rid, ports in self.multicast_groups.get(group, []) for p in sorted(set(ports))]

    def _clone(self, session: int, data: bytes, path: int, ctx: PsaContext, depth: int) -> list:
        """Egress work for the copies clone session ``session`` makes of ``data`` (none if the
        session is not configured). Their metadata starts at zero; a session's
        ``packet_length`` truncates its copies when they leave."""
        config = self.clone_sessions.get(session)
        if config is None or depth > MAX_PASSES:
            return []
        if config.get("group") is not None:
            targets = self._replicas(config["group"])
        else:
            targets = [(0, config["port"])]
        work = []
        for rid, port in targets:
            c = self._context(data, None, ctx.trace, self.now_us, ctx.ingress_port)
            c.instance = rid
            c.truncate_length = config.get("packet_length") or None
            work.append(EgressWork(port, None, None, c, c, path, depth))
        return work

    def assertion_failed(self, ctx, kind: str) -> None:
        raise P4AssertionFailed(f"{kind}() failed in switch {self.name}; packet dropped")
