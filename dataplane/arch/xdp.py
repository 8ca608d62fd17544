"""The XDP switch architecture (``xdp_model.p4``): ``xdp(parse, switch, deparse)``.

An ``XdpSwitch`` runs one program as p4c's eBPF back end compiles it for XDP (target
``xdp``, which p4c's ``*_ebpf-kernel.stf`` samples run on):

* the parser runs; ending in ``reject`` (explicitly, by no matching ``select`` case, or an
  error) is ``XDP_ABORTED``: the packet is dropped;
* the switch control gets ``imd.input_port`` and fills ``omd``, which starts zeroed, so a
  program that never sets ``omd.output_action`` aborts (``XDP_ABORTED`` is 0);
* the deparser writes the emitted headers in place of the parsed ones, followed by the
  unparsed payload;
* then ``omd.output_action`` decides: ``XDP_DROP`` / ``XDP_ABORTED`` drop the packet,
  ``XDP_PASS`` hands it to the host's network stack, ``XDP_TX`` sends it back out of the
  interface it came in on, ``XDP_REDIRECT`` sends it out of ``omd.output_port``.

On one device (``Switch``, ``dataplane test``) a passed packet comes out on its input port,
as p4c's kernel test target captures it; each ``Output`` says what happened in its
``instance_type`` (``XDP_PASS``, ``XDP_TX`` or ``XDP_REDIRECT``), which a host running the
program in a network (``dataplane.net.hosts.xdp_hook``) uses to deliver or transmit it.

Extern functions: ``ebpf_ipv4_checksum``, ``csum_replace2``, ``csum_replace4`` (RFC 1624),
``BPF_KTIME_GET_NS`` (the device clock, truncated to 32 bits as declared) and
``BPF_PERF_EVENT_OUTPUT`` (returns 0; the events are not kept). An ``xdp_model.p4`` program
whose package is ``ebpfFilter`` runs as an ``EbpfFilter``.
"""
from __future__ import annotations

from typing import Any

from dataplane.arch.ebpf import EbpfDevice, helper_functions
from dataplane.arch.v1model import Output, PacketResult
from dataplane.ir import program as P
from dataplane.ir import types as T

XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT = range(5)
ACTION_NAMES = ("XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT")


class XdpSwitch(EbpfDevice):
    """One ``xdp(p, s, d)`` program."""

    architecture = "xdp"
    package_blocks = (("p", 2), ("s", 3), ("d", 2))

    def __init__(self, program: P.Program, *, name: str = "s1", seed: int = 0):
        super().__init__(program, name, seed)
        self._load()
        # xdp_action's members in declaration order are the kernel's codes; read them by name.
        members = T.strip_newtype(self.program.types["xdp_action"]).members
        self._codes = {i: ACTION_NAMES.index(m) for i, m in enumerate(members) if m in ACTION_NAMES}
        deparser = self._params("d")
        self._packet_first = isinstance(T.strip_newtype(deparser[0].type), T.Extern)

    def _bind_functions(self) -> dict[str, Any]:
        return helper_functions()

    def _bind_blocks(self, built: dict) -> dict[str, Any]:
        self.headers_class = self._struct(self._params("p")[1].type)
        sc = self.pipeline.struct_class
        self.input_class, self.output_class = sc("xdp_input"), sc("xdp_output")
        return {slot: self._block(built, slot) for slot in ("p", "s", "d")}

    def _run(self, port: int, buf: bytes, result: PacketResult, trace: Any) -> None:
        b = self.blocks
        ctx = self._context(buf, trace)
        hdr = self.headers_class()
        if trace is not None:
            trace.packet_in(port, buf)
        b["p"](None, hdr, ctx)
        why = self.rejected(ctx)
        if why is not None:
            result.drops.append(f"{why}: XDP_ABORTED")
            if trace is not None:
                trace.drop("parser (XDP_ABORTED)")
            return
        imd, omd = self.input_class(), self.output_class()
        imd.input_port = port
        b["s"](hdr, imd, omd, ctx)
        chunks: list[bytes] = []
        if self._packet_first:
            b["d"](chunks, hdr, ctx)
        else:
            b["d"](hdr, chunks, ctx)
        data = b"".join(chunks) + ctx.payload
        action = self._codes.get(omd.output_action, XDP_ABORTED)
        if action == XDP_PASS or action == XDP_TX:
            out_port = port
        elif action == XDP_REDIRECT:
            out_port = omd.output_port
        else:
            result.drops.append(ACTION_NAMES[action])
            if trace is not None:
                trace.drop(f"switch ({ACTION_NAMES[action]})")
            return
        result.outputs.append(Output(out_port, data, action))
        if trace is not None:
            trace.packet_out(out_port, data)
