"""A host whose NIC runs an eBPF program on receive: XDP (``xdp_model.p4``) or an eBPF filter
(``ebpf_model.p4``, as a TC ingress classifier), in simulated time.

Every frame the NIC receives goes through the program first, on one CPU core modelled as
the DPU's FIFO server (``dataplane.net.devices.pipeline``: packet rate, byte rate, latency,
the receive ring as its queue; a frame that finds the ring full is dropped, ``"rx ring
full"``). ``latency`` after its slot ends, the program's decision takes effect:

* ``XDP_PASS`` (or an accepting filter): the frame, as the deparser left it, goes up the
  host's stack (``Host.receive``: raw callbacks, ARP, IPv4, UDP, ICMP), so a program that
  decapsulates VXLAN delivers the inner frame;
* ``XDP_TX``: out of the NIC again, straight into the port's queue (the NIC's transmit ring,
  not the host's qdisc); ``XDP_REDIRECT`` likewise to ``output_port`` (a host has one port,
  0; another number is dropped as ``"no port N"``);
* ``XDP_DROP``, ``XDP_ABORTED``, a rejecting filter or parser: dropped, counted by reason.

What the host sends does not pass through the program. ``stats`` counts what the program
did; ``summary()`` is the host's entry under ``xdp`` in ``dataplane run --json``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dataplane.arch.v1model import PacketResult
from dataplane.arch.work import IngressWork
from dataplane.arch.xdp import XDP_REDIRECT, XDP_TX
from dataplane.control.switch import Switch
from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Port
from dataplane.net.devices.pipeline import FifoPipeline
from dataplane.net.hosts.host import Host
from dataplane.net.topology.spec import HostSpec

RING_FULL = "rx ring full"
NODE_DOWN = "node down"


@dataclass(eq=False)
class XdpStats:
    """What the program on a host's NIC did with the frames it received."""
    received: int = 0          # frames that arrived while the host was up
    processed: int = 0         # frames the program ran on
    passed: int = 0            # to the host's stack
    tx: int = 0                # XDP_TX: back out of the NIC
    redirected: int = 0        # XDP_REDIRECT
    drops: dict[str, int] = field(default_factory=dict)   # reason -> frames
    max_queue: int = 0


class XdpHost(Host):
    """A ``Host`` with ``spec.xdp`` run by ``api`` (a ``Switch`` holding an ``XdpSwitch`` or an
    ``EbpfFilter``) on every received frame."""

    def __init__(self, sim: Simulator, spec: HostSpec, api: Switch):
        self._up = False           # Node.__init__ sets ``up``; the setter reads this first
        super().__init__(sim, spec)
        x = spec.xdp
        assert x is not None
        self.api = api
        self.dp = api.dp
        self.architecture = self.dp.architecture
        self.pipe = FifoPipeline(f"host '{spec.name}' XDP", x.rate_bps, x.packet_rate_pps, x.latency_ns, x.queue)
        self.xdp_stats = XdpStats()

    @property
    def up(self) -> bool:
        return self._up

    @up.setter
    def up(self, value: bool) -> None:
        if self._up and not value:
            self.pipe.stop(self.sim.now)   # frames in the ring and on the core are lost
        self._up = value

    def receive(self, port: Port, data: bytes) -> None:
        if not self._up:
            self.stats.dropped_down += 1
            return
        st = self.xdp_stats
        st.received += 1
        pipe = self.pipe
        due = pipe.admit(self.sim.now, len(data))
        if due is None:
            self._drop(RING_FULL)
            return
        if pipe.max_queue > st.max_queue:
            st.max_queue = pipe.max_queue
        self.sim.at(due, self._run, port, data, pipe.epoch)

    def _run(self, port: Port, data: bytes, epoch: int) -> None:
        if epoch != self.pipe.epoch:
            self._drop(NODE_DOWN)
            return
        dp = self.dp
        dp.now_us = self.sim.now // 1000
        result = PacketResult()
        dp.run_work(IngressWork(port.number, data), result, self.trace)
        st = self.xdp_stats
        st.processed += 1
        for out in result.outputs:
            if self.architecture == "xdp" and out.instance_type in (XDP_TX, XDP_REDIRECT):
                target = self.ports.get(out.port)
                if target is None:
                    self._drop(f"no port {out.port}")
                    continue
                if out.instance_type == XDP_TX:
                    st.tx += 1
                else:
                    st.redirected += 1
                target.enqueue(out.data, len(out.data))   # a full queue counts in the port's stats
            else:
                st.passed += 1
                Host.receive(self, port, out.data)
        for reason in result.drops:
            self._drop(reason)

    def _drop(self, reason: str) -> None:
        drops = self.xdp_stats.drops
        drops[reason] = drops.get(reason, 0) + 1

    def summary(self, now_ns: int | None = None) -> dict[str, Any]:
        """What the program did, the core's utilisation and the program's counters, as plain data."""
        now = self.sim.now if now_ns is None else now_ns
        st = self.xdp_stats
        counters = {full.split(".")[-1]: packets for full, (packets, _) in self.api.counter_totals().items()
                    if packets}
        return {"program": self.spec.xdp.program.name, "architecture": self.architecture,
                "received": st.received, "processed": st.processed, "passed": st.passed, "tx": st.tx,
                "redirected": st.redirected, "drops": dict(sorted(st.drops.items())), "max_queue": st.max_queue,
                "busy_ns": round(self.pipe.busy_ns(now)), "utilisation": round(self.pipe.utilisation(now), 6),
                "counters": dict(sorted(counters.items()))}
