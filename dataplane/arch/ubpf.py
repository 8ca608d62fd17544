"""The uBPF architecture (``ubpf_model.p4``): ``ubpf(parse, pipeline, deparser)``.

A ``UbpfSwitch`` runs one program as p4c's uBPF back end compiles it (for Open vSwitch's
userspace BPF) and as p4c's uBPF test runtime runs it for the ``*_ubpf.stf`` samples:

* ``std`` (``UBPF_MODEL_VERSION`` >= 20200515) starts with ``input_port`` and
  ``packet_length`` of the packet and ``output_port`` 0; older programs have no ``std``;
* the parser runs; ending in ``reject`` (explicitly, by no matching ``select`` case, or an
  error) *passes* the packet as received: the generated C returns its abort code, which for
  uBPF is the pass code;
* the pipeline runs. A packet passes unless ``mark_to_drop()`` was called (``mark_to_pass()``
  undoes it). ``std.output_action`` is not consulted, as the test runtime does not;
* the deparser runs: the packet's parsed bytes are replaced by room for the valid headers
  it emits (the head grows or shrinks), the result is cut to ``truncate(len)`` bytes if the
  pipeline asked (a length of 0 or more than the packet does nothing; p4c's test runtime
  does not raise it to Open vSwitch's 14), then each emitted header is written in turn; a
  header that no longer fits ends the deparser there (the C code jumps to ``reject``, which
  passes the packet as it is);
* a passed packet leaves on ``std.output_port``.

Extern functions: ``mark_to_drop``, ``mark_to_pass``, ``truncate``, ``ubpf_time_get_ns`` (the
device clock), ``hash`` (``lookup3``: Jenkins' hashlittle over the fields packed MSB-first,
so values differ from Open vSwitch's, which hashes a C struct), ``csum_replace2`` and
``csum_replace4``. ``Register<T, S>`` reads 0 out of range and ignores writes there. Not
modelled: ``std.clone`` / ``clone_port``.
"""
from __future__ import annotations

from typing import Any

from dataplane.arch.ebpf import EbpfDevice, ParseStatus
from dataplane.arch.v1model import Output, PacketResult
from dataplane.engine import ebpf_externs as EX
from dataplane.engine import pna_externs  # noqa: F401  (registers Register, which uBPF shares)
from dataplane.engine.context import PacketContext
from dataplane.ir import program as P


class UbpfContext(PacketContext):
    """A packet context with uBPF's hidden forwarding state (pass or drop)."""

    __slots__ = ("passing",)


class UbpfSwitch(EbpfDevice):
    """One ``ubpf(prs, p, dprs)`` program."""

    architecture = "ubpf"
    package_blocks = (("prs", 3), ("p", 2), ("dprs", 2))

    def __init__(self, program: P.Program, *, name: str = "s1", seed: int = 0):
        super().__init__(program, name, seed)
        self._load()

    def _bind_functions(self) -> dict[str, Any]:
        def mark_to_drop(ctx) -> None:
            ctx.passing = False

        def mark_to_pass(ctx) -> None:
            ctx.passing = True

        def truncate(ctx, length) -> None:
            ctx.truncate_length = length

        def ubpf_time_get_ns(ctx) -> int:
            return (ctx.now_us * 1000) & 0xFFFF_FFFF_FFFF

        def hash_(ctx, algorithm, data, width) -> int:
            return EX.lookup3(EX.packed(data)) & ((1 << width) - 1)

        def csum_replace2(ctx, csum, old, new) -> int:
            return EX.csum_replace2(csum, old, new)

        def csum_replace4(ctx, csum, old, new) -> int:
            return EX.csum_replace4(csum, old, new)

        return {"mark_to_drop": mark_to_drop, "mark_to_pass": mark_to_pass, "truncate": truncate,
                "ubpf_time_get_ns": ubpf_time_get_ns, "hash": hash_, "csum_replace2": csum_replace2,
                "csum_replace4": csum_replace4}

    def _bind_blocks(self, built: dict) -> dict[str, Any]:
        params = self._params("prs")
        self.headers_class = self._struct(params[1].type)
        self.metadata_class = self._struct(params[2].type)
        self.std_class = self._struct(params[3].type) if len(params) > 3 else None
        return {slot: self._block(built, slot) for slot in ("prs", "p", "dprs")}

    def _run(self, port: int, buf: bytes, result: PacketResult, trace: Any) -> None:
        b = self.blocks
        ctx = UbpfContext(buf, ParseStatus(), self, trace, self.now_us)
        ctx.passing = True
        hdr, meta = self.headers_class(), self.metadata_class()
        std = None
        if self.std_class is not None:
            std = self.std_class()
            std.input_port, std.packet_length = port, len(buf)
        if trace is not None:
            trace.packet_in(port, buf)
        if std is not None:
            b["prs"](None, hdr, meta, std, ctx)
        else:
            b["prs"](None, hdr, meta, ctx)
        if self.rejected(ctx) is not None:
            # The abort code is uBPF's pass code: the packet goes out as it came in.
            self._out(result, std.output_port if std is not None else 0, buf, trace)
            return
        if std is not None:
            b["p"](hdr, meta, std, ctx)
        else:
            b["p"](hdr, meta, ctx)
        chunks: list[bytes] = []
        b["dprs"](chunks, hdr, ctx)
        data = self._deparsed(buf, ctx.pos, chunks, ctx.truncate_length)
        if not ctx.passing:
            result.drops.append("mark_to_drop")
            if trace is not None:
                trace.drop("pipeline (mark_to_drop)")
            return
        self._out(result, std.output_port if std is not None else 0, data, trace)

    @staticmethod
    def _deparsed(buf: bytes, parsed: int, chunks: list[bytes], truncate: int | None) -> bytes:
        """The packet as the uBPF deparser leaves it (see the module docstring)."""
        grow = sum(map(len, chunks)) - parsed
        pkt = bytearray(buf[:grow] + buf if grow >= 0 else buf[-grow:])
        if truncate is not None and 0 < truncate < len(pkt):
            del pkt[truncate:]
        offset = 0
        for chunk in chunks:
            end = offset + len(chunk)
            if len(pkt) < end:
                break   # the C code's `goto reject`: the packet passes as it is
            pkt[offset:end] = chunk
            offset = end
        return bytes(pkt)

    def _out(self, result: PacketResult, port: int, data: bytes, trace: Any) -> None:
        result.outputs.append(Output(port, data))
        if trace is not None:
            trace.packet_out(port, data)
