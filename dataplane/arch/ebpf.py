"""The eBPF packet-filter architecture (``ebpf_model.p4``): ``ebpfFilter(parse, filter)``.

An ``EbpfFilter`` runs one program as p4c's eBPF back end compiles it for a TC classifier
(or its ``test`` target, which p4c's ``*_ebpf.stf`` samples run on):

* the parser runs on the packet; ending in ``reject`` (explicitly, by no matching
  ``select`` case, or by an error such as a too-short packet or a failed ``verify``) drops
  the packet, as the generated C returns its abort code;
* the filter control runs with ``out bool accept`` starting false (the C variable is
  zeroed); an accepted packet is passed on **unchanged**, on the port it came in on (the
  test target copies the input packet to the output of the same interface), a rejected one
  is dropped. There is no deparser: header writes in the filter do not reach the packet.

Tables take their ``implementation`` (``array_table(n)`` / ``hash_table(n)``) as their
capacity; an LPM table is a trie whatever is named. ``CounterArray`` is in
``engine.ebpf_externs``. ``EbpfDevice`` is the base the XDP and uBPF devices share.
"""
from __future__ import annotations

from typing import Any

import dataplane.engine.ebpf_externs  # noqa: F401  (registers the eBPF extern names)
from dataplane.arch.device import ArchitectureError, Device
from dataplane.arch.v1model import Output, P4AssertionFailed, PacketResult, _key_width
from dataplane.arch.work import IngressWork
from dataplane.engine import ebpf_externs as EX
from dataplane.engine.context import PacketContext
from dataplane.engine.ebpf_externs import ArrayTable, HashTable
from dataplane.engine.instances import make_instances
from dataplane.engine.runtime import REJECTED, Box
from dataplane.engine.table_runtime import RuntimeTable
from dataplane.engine.tables import MatchTable
from dataplane.ir import program as P
from dataplane.ir import types as T

NO_ERROR = 0


def helper_functions() -> dict[str, Any]:
    """``xdp_model.p4``'s extern functions: ``ebpf_ipv4_checksum``, ``csum_replace2``/``4`` (RFC
    1624), ``BPF_KTIME_GET_NS`` (the device clock in ns, truncated to 32 bits as declared) and
    ``BPF_PERF_EVENT_OUTPUT`` (returns 0; the events are not kept)."""
    def csum_replace2(ctx, csum, old, new) -> int:
        return EX.csum_replace2(csum, old, new)

    def csum_replace4(ctx, csum, old, new) -> int:
        return EX.csum_replace4(csum, old, new)

    def ktime_get_ns(ctx) -> int:
        return (ctx.now_us * 1000) & 0xFFFF_FFFF

    def perf_event_output(ctx) -> int:
        return 0

    return {"ebpf_ipv4_checksum": EX.ipv4_checksum, "csum_replace2": csum_replace2,
            "csum_replace4": csum_replace4, "BPF_KTIME_GET_NS": ktime_get_ns,
            "BPF_PERF_EVENT_OUTPUT": perf_event_output}


class ParseStatus:
    """What the generated parser writes on ``ctx.sm``: the error that rejected the packet (0: none)."""

    __slots__ = ("parser_error",)

    def __init__(self):
        self.parser_error = NO_ERROR


class EbpfDevice(Device):
    """What the eBPF family shares: instances, tables with map capacities, reject ends the parse."""

    parser_reject_is_error = True

    def __init__(self, program: P.Program, name: str, seed: int):
        super().__init__(program, name, seed)
        self.multicast_groups: dict = {}   # unused; kept so the control plane can share code
        self.clone_sessions: dict = {}

    def _make_instances(self) -> dict[str, Any]:
        return make_instances(self.program, frozenset({"Register"}), ArchitectureError, f"{self.architecture} engine")

    def _make_tables(self) -> dict[str, RuntimeTable]:
        tables = {}
        for control in self.program.controls.values():
            for t in control.tables.values():
                if t.counters or t.meters:
                    raise ArchitectureError(f"unsupported: table '{t.name}' counters/meters in {self.architecture}")
                layout = [(k.match_kind, _key_width(k.expr.type)) for k in t.keys]
                rt = RuntimeTable(t, f"{control.name}.{t.name}", control.name, layout)
                if t.implementation:
                    impl = self.instances.get(f"{control.name}.{t.implementation}") or \
                        self.instances.get(t.implementation)
                    if not isinstance(impl, (ArrayTable, HashTable)):
                        raise ArchitectureError(f"table '{t.name}': implementation must be an array_table or "
                                                f"hash_table in the {self.architecture} architecture")
                    # The map's max_entries: adding one more entry fails, as a full map's update does.
                    rt.match = MatchTable(rt.key_layout, max_size=impl.size, name=rt.qualified_name)
                tables[rt.qualified_name] = rt
        return tables

    def _block(self, built: dict, slot: str):
        name = dict(self.program.package.blocks)[slot]
        return built["parsers"].get(name) or built["controls"][name]

    def _params(self, slot: str) -> tuple[P.Param, ...]:
        name = dict(self.program.package.blocks)[slot]
        block = self.program.parsers.get(name) or self.program.controls[name]
        return block.params

    def _struct(self, t: T.Type) -> type:
        return self.pipeline.struct_class(T.strip_newtype(t).name)

    def process(self, port: int, data: bytes, trace: Any = None) -> PacketResult:
        """Run one packet that arrived on ``port``; return what leaves."""
        result = PacketResult()
        self._guarded(port, data if data.__class__ is bytes else bytes(data), result, trace)
        return result

    def run_work(self, item: IngressWork, result: PacketResult, trace: Any = None) -> list:
        """Run one ingress pass (``dataplane.arch.work``); the eBPF family makes no further work."""
        self._guarded(item.port, item.data, result, trace)
        return []

    def _guarded(self, port: int, buf: bytes, result: PacketResult, trace: Any) -> None:
        try:
            self._run(port, buf, result, trace)
        except P4AssertionFailed as err:
            result.drops.append(str(err))
            self.log_messages.append(str(err))
        except IndexError:
            result.drops.append("header stack index out of range")

    def _run(self, port: int, buf: bytes, result: PacketResult, trace: Any) -> None:
        raise NotImplementedError

    def _context(self, buf: bytes, trace: Any) -> PacketContext:
        return PacketContext(buf, ParseStatus(), self, trace, self.now_us)

    def rejected(self, ctx: PacketContext) -> str | None:
        """Why the parser rejected the packet, or None if it accepted it."""
        code = ctx.sm.parser_error
        if code == NO_ERROR:
            return None
        if code == REJECTED:
            return "parser reject"
        errors = self.program.errors
        return f"parser error {errors[code] if 0 <= code < len(errors) else code}"

    def assertion_failed(self, ctx, kind: str) -> None:
        raise P4AssertionFailed(f"{kind}() failed in {self.architecture} program {self.name}; packet dropped")


class EbpfFilter(EbpfDevice):
    """One ``ebpfFilter(prs, filt)`` program: accept passes the packet as received, on its port."""

    architecture = "ebpf"
    package_blocks = (("prs", 2), ("filt", 2))

    def __init__(self, program: P.Program, *, name: str = "s1", seed: int = 0):
        super().__init__(program, name, seed)
        self._load()

    def _bind_functions(self) -> dict[str, Any]:
        return helper_functions()   # an ebpfFilter program that includes xdp_model.p4 may call them

    def _bind_blocks(self, built: dict) -> dict[str, Any]:
        self.headers_class = self._struct(self._params("prs")[1].type)
        self._parse, self._filter = self._block(built, "prs"), self._block(built, "filt")
        return {"prs": self._parse, "filt": self._filter}

    def _run(self, port: int, buf: bytes, result: PacketResult, trace: Any) -> None:
        ctx = PacketContext(buf, ParseStatus(), self, trace, self.now_us)
        hdr = self.headers_class()
        if trace is not None:
            trace.packet_in(port, buf)
        self._parse(None, hdr, ctx)
        if ctx.sm.parser_error != NO_ERROR:
            result.drops.append(f"{self.rejected(ctx)}: dropped")
            if trace is not None:
                trace.drop("parser")
            return
        accept = Box(False)
        self._filter(hdr, accept, ctx)
        if accept.value:
            result.outputs.append(Output(port, buf))
            if trace is not None:
                trace.packet_out(port, buf)
        else:
            result.drops.append("filter did not accept")
            if trace is not None:
                trace.drop("filter")
