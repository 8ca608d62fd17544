"""The decision cache of a v1model switch in a network (``dataplane.engine.decision``).

Eligible programs are those whose six blocks keep no state and read neither the clock nor the
queue (``reads.analyze`` says why a program is not; ``V1Decisions.refusal``): their egress gives
the same bytes whenever it runs, so a packet's whole fate is known when it arrives. ``decide``
looks the packet up; on a miss it runs ingress with a recording trace (which headers the parser
extracted, in order: the shape) and egress at once, keeps the decision and hands back a
``CachedEgress`` carrying the bytes egress made. Paths it does not replay (multicast, clones,
recirculation, a parser error, a port without a link) are marked so and run as before.

Table writes empty the cache (``MatchTable.on_edit``, the ``default`` setter). A packet already
queued when an egress table changes runs egress again when it leaves the queue, from the state
ingress left (the decision's snapshot with the packet's own carried fields, ingress port and
length), as it would have without the cache.
"""
from __future__ import annotations

from typing import Any

from dataplane.arch.v1model import NORMAL, PacketResult, V1ModelSwitch
from dataplane.arch.work import CachedEgress, EgressWork, IngressWork
from dataplane.engine.context import PacketContext
from dataplane.engine.decision.cache import UNCACHEABLE, Decision, DecisionCache, Shape
from dataplane.engine.decision.frame import Frame
from dataplane.engine.decision.reads import FieldUse, NotCacheable, analyze
from dataplane.engine.structgen import py_name
from dataplane.ir import types as T

__all__ = ["V1Decisions", "field_use", "INGRESS_DROP", "EGRESS_DROP"]

#: standard metadata a cached program may not read: the clock and the queue (set at dequeue)
TIME_AND_QUEUE = frozenset({"ingress_global_timestamp", "egress_global_timestamp", "enq_timestamp", "enq_qdepth",
                            "deq_timedelta", "deq_qdepth"})
#: the externs a recorded path may call (the trace names them)
REPLAYED_EXTERNS = frozenset({"mark_to_drop", "hash", "verify_checksum", "update_checksum"})
INGRESS_DROP = "dropped in ingress (egress_spec = 511)"
EGRESS_DROP = "dropped in egress (mark_to_drop)"

_USES: dict[int, tuple[Any, FieldUse | str]] = {}     # id(program) -> (program, its field use or refusal)


def field_use(dp: V1ModelSwitch) -> FieldUse | str:
    """The field use of ``dp``'s program, or why it cannot be cached (computed once per program)."""
    program = dp.program
    known = _USES.get(id(program))
    if known is not None and known[0] is program:
        return known[1]
    parser = program.block("p")
    try:
        use: FieldUse | str = analyze(
            program, [(slot, program.block(slot)) for slot, _ in program.package.blocks],  # type: ignore[union-attr]
            headers_type=T.strip_newtype(parser.params[1].type).name,  # type: ignore[attr-defined]
            metadata_type=T.strip_newtype(parser.params[2].type).name, standard_type="standard_metadata_t",  # type: ignore[attr-defined]
            forbidden_metadata=TIME_AND_QUEUE, verify_slot="vr", update_slot="ck", deparser_slot="dep")
    except NotCacheable as err:
        use = str(err)
    if len(_USES) > 64:
        _USES.clear()
    _USES[id(program)] = (program, use)
    return use


class _Hit:
    """What a counting trace reads of a table's entry: whether it was a hit."""

    __slots__ = ("hit",)

    def __init__(self, hit: bool):
        self.hit = hit


_HIT, _MISS = _Hit(True), _Hit(False)


def counts_only(trace: Any) -> bool:
    """Whether the cache may stand in for the pipeline under ``trace``: none, or one that only
    counts table lookups and actions (``counts_only``, as a report's ``TableCounts``)."""
    return trace is None or getattr(trace, "counts_only", False)


def replay(events: tuple, trace: Any) -> None:
    """Tell a counting ``trace`` of the lookups and actions a decision recorded."""
    for name, hit in events:
        if hit is None:
            trace.action(name, ())
        else:
            trace.table(name, (), _HIT if hit else _MISS)


class _Recorder:
    """A trace that notes the headers extracted, in order, the table lookups and actions, and
    anything the cache does not replay."""

    __slots__ = ("extracts", "bad", "events")

    def __init__(self) -> None:
        self.extracts: list[str] = []
        self.bad = False
        self.events: list[tuple[str, bool | None]] = []

    def extract(self, name: str, header: Any) -> None:
        self.extracts.append(name)

    def extern(self, name: str, where: str = "") -> None:
        if name not in REPLAYED_EXTERNS:
            self.bad = True

    def parser_error(self, code: int) -> None:
        self.bad = True

    def log(self, text: str) -> None:
        self.bad = True

    def packet_in(self, port: int, data: Any) -> None:
        pass

    def state(self, name: str, where: str = "") -> None:
        pass

    def table(self, name: str, key: tuple, entry: Any, where: str = "") -> None:
        self.events.append((name, bool(entry.hit)))

    def action(self, name: str, args: tuple, where: str = "") -> None:
        self.events.append((name, None))

    def drop(self, where: str, why: str = "") -> None:
        pass

    def packet_out(self, port: int, data: Any) -> None:
        pass


class V1Decisions:
    """The decision cache of one ``V1ModelSwitch`` whose egress queues are ``ports`` (a node's
    port dict: a decision for a port not in it is not kept). Build it with ``for_switch``."""

    def __init__(self, dp: V1ModelSwitch, use: FieldUse, ports: dict):
        self.dp = dp
        self.use = use
        self.ports = ports
        self.cache = DecisionCache(use)
        self.epoch = 0              # egress tables' edits: queued packets made before run egress again
        parser = dp.program.block("p")
        self._prefix = parser.params[1].name + "."     # how the parser's trace names hdr.X
        egress = dict(dp.program.package.blocks)["eg"]  # type: ignore[union-attr]
        for rt in dp.tables.values():
            rt.match.on_edit = self._egress_edited if rt.control == egress else self.cache.clear

    @classmethod
    def for_switch(cls, dp: Any, ports: dict) -> "V1Decisions | str":
        """The cache for ``dp``, or why it has none (another architecture, state on the path...)."""
        if not isinstance(dp, V1ModelSwitch):
            return f"{dp.architecture} programs are not cached"
        use = field_use(dp)
        if isinstance(use, str):
            return use
        for rt in dp.tables.values():
            if not rt.plain_lookup:
                return f"table {rt.qualified_name}'s lookups have side effects"
        return cls(dp, use, ports)

    def detach(self) -> None:
        """Stop following the switch's tables (the switch loaded another program)."""
        for rt in self.dp.tables.values():
            rt.match.on_edit = None

    def _egress_edited(self) -> None:
        self.epoch += 1
        self.cache.clear()

    # ---- the packet path -------------------------------------------------------------------------------
    def decide(self, port: int, data: bytes | Frame, trace: Any = None) -> Any:
        """What becomes of ``data`` (bytes, or a ``Frame`` another switch's cache left unjoined)
        arriving on ``port``: a ``CachedEgress`` to queue, the reason it
        was dropped in ingress (a str), or ``(work, result)`` of a pipeline run the caller finishes.
        ``trace`` is None or one that only counts (``counts_only``); it hears of ingress's lookups
        and actions now, and of egress's when the switch replays them at dequeue."""
        d, out = self.cache.find(port, data)
        if d is None or d is UNCACHEABLE:
            if data.__class__ is Frame:
                data = data.join()      # the pipeline reads bytes
            if d is None:
                return self._miss(port, data, trace)
            result = PacketResult()
            return self.dp.run_work(IngressWork(port, data), result, trace), result
        if trace is not None:
            replay(d.ingress_events, trace)
        if d.port is None:
            return d.drop
        return CachedEgress(d.port, out, d.drop, data, d, self, self.epoch, self.dp.now_us, port, d.priority)

    def _miss(self, port: int, data: Any, trace: Any) -> Any:
        dp = self.dp
        rec = _Recorder()
        result = PacketResult()
        work = dp.run_work(IngressWork(port, data), result, rec)
        ingress_events = tuple(rec.events)
        if trace is not None:
            replay(ingress_events, trace)
        sh = self._shape(rec)
        if not work:
            if sh is not None and result.drops == [INGRESS_DROP] and not dp.digests and not rec.bad:
                self.cache.store(sh, port, data, Decision(None, None, INGRESS_DROP, 0, None, sh, ingress_events))
                return INGRESS_DROP
            if sh is not None:
                self.cache.store(sh, port, data, UNCACHEABLE)
            return work, result
        ew = work[0]
        ctx = ew.ctx  # type: ignore[union-attr]
        if len(work) != 1 or ew.__class__ is not EgressWork or ew.instance_type != NORMAL or ew.port not in self.ports \
                or ctx.clone_request is not None or ctx.truncate_length is not None or result.drops or rec.bad:
            if sh is not None:
                self.cache.store(sh, port, data, UNCACHEABLE)
            return work, result
        snapshot = (ew.hdr._clone(), ew.meta._clone(), ew.sm._clone(), ctx.pos)
        priority = ew.sm.priority
        now_us = dp.now_us
        r2 = PacketResult()
        del rec.events[:]
        more = dp.run_work(ew, r2, rec)
        egress_events = tuple(rec.events)
        outputs = r2.outputs
        out = outputs[0].data if len(outputs) == 1 and outputs[0].port == ew.port else None
        drop = EGRESS_DROP if out is None else None
        # this packet's own decision, to run egress again if an egress table changes while it waits
        own = Decision(ew.port, None, drop, priority, snapshot, None, ingress_events, egress_events)
        if more or len(outputs) > 1 or (out is None and r2.drops != [EGRESS_DROP]) or (out is not None and r2.drops):
            # An egress this cache does not model: the packet runs egress for real when it leaves
            # the queue (an epoch that never comes), as it would without the cache.
            if sh is not None:
                self.cache.store(sh, port, data, UNCACHEABLE)
            return CachedEgress(ew.port, None, None, data, own, self, -1, now_us, port, priority)
        if sh is None:
            return CachedEgress(ew.port, out, drop, data, own, self, self.epoch, now_us, port, priority)
        stored = self._decision(sh, rec, ew, data, out, drop, own)
        self.cache.store(sh, port, data, stored)
        return CachedEgress(ew.port, out, drop, data, own if stored is UNCACHEABLE else stored, self, self.epoch,
                            now_us, port, priority)

    def _shape(self, rec: _Recorder) -> Shape | None:
        """The shape of the path ``rec`` recorded, or None (a header extracted twice, a parser error...)."""
        if rec.bad:
            return None
        prefix = self._prefix
        names: list[str] = []
        for name in rec.extracts:
            h = name[len(prefix):] if name.startswith(prefix) else None
            if h is None or h not in self.use.headers or h in names:
                return None
            names.append(h)
        return self.cache.shape(tuple(names))

    def _decision(self, sh: Shape, rec: _Recorder, ew: EgressWork, data: Any, out: Any,
                  drop: str | None, own: Decision) -> Decision:
        """The decision for this path, or UNCACHEABLE if its output is not the shape's template with
        the packet's carried bits (a header added or removed, a field reset by ``setValid``...)."""
        if rec.bad or ew.ctx.pos != sh.region:
            return UNCACHEABLE
        if out is None:
            return Decision(ew.port, None, drop, own.priority, own.snapshot, sh, own.ingress_events,
                            own.egress_events)
        r = sh.region
        hdr = ew.hdr
        emitted = tuple(h for h in self.use.emits if getattr(hdr, py_name(h))._valid)
        if emitted != sh.headers or len(out) != len(data) or out[r:] != data[r:]:
            return UNCACHEABLE
        v = int.from_bytes(data[:r], "big")
        template = int.from_bytes(out[:r], "big") & ~(sh.pmask | sh.cmask)
        if sh.output(v, template, data) != out:
            return UNCACHEABLE
        return Decision(ew.port, template, None, own.priority, own.snapshot, sh, own.ingress_events,
                        own.egress_events)

    def egress_work(self, item: CachedEgress, trace: Any) -> EgressWork:
        """The ``EgressWork`` ingress would have queued for ``item``: its decision's snapshot with the
        packet's own carried fields, ingress port and length, to run egress for real."""
        d = item.decision
        h0, m0, s0, pos = d.snapshot
        hdr, meta, sm = h0._clone(), m0._clone(), s0._clone()
        data = item.data
        if data.__class__ is Frame:
            data = data.join()
        sh = d.shape
        if sh is not None:
            v = int.from_bytes(data[:sh.region], "big")
            for h, f, shift, mask in sh.carried:
                setattr(getattr(hdr, h), f, (v >> shift) & mask)
        sm.ingress_port = item.ingress_port
        sm.packet_length = len(data)
        sm.ingress_global_timestamp = item.now_us
        ctx = PacketContext(data, sm, self.dp, trace, item.now_us, pos, len(data))
        return EgressWork(item.port, hdr, meta, sm, ctx, NORMAL, 0)
