"""A DPU in the network: a PNA program behind a pipeline with a packet rate, a throughput
ceiling and a latency, so that offloading work to it has a visible cost.

The cost model is one FIFO server (``dataplane.net.devices.pipeline``): a packet occupies the
pipeline for ``max(1 / packet_rate, bits / rate)``, waits in a bounded FIFO in front of it
(``queue``; one that finds it full is dropped, reason ``"pipeline queue full"``), and the
program's outputs join their ports' egress queues ``latency`` after the packet's slot ends:
transit = wait + slot + latency. Each packet costs one simulator event (its output); the
program sees ``istd.timestamp`` at its output time.

Taking the node down (``Network.set_node``) loses the packets waiting and the one in
service (counted as ``"node down"``) and frees the pipeline.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dataplane.arch.v1model import PacketResult
from dataplane.arch.work import IngressWork
from dataplane.control.switch import Switch
from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Port
from dataplane.net.devices.node import Node
from dataplane.net.devices.pipeline import FifoPipeline
from dataplane.net.topology.spec import DpuSpec

QUEUE_FULL = "pipeline queue full"
NODE_DOWN = "node down"


@dataclass(eq=False)
class DpuStats:
    """What a DPU counted; busy time and utilisation depend on the clock: ``DpuNode.busy_ns``."""
    received: int = 0          # packets that arrived while the node was up
    processed: int = 0         # packets the program ran on
    outputs: int = 0           # packets handed to an egress port (its queue may still tail-drop)
    drops: dict[str, int] = field(default_factory=dict)   # reason -> packets (PNA drops, queue full, ...)
    max_queue: int = 0         # most packets waiting in front of the pipeline at once

    @property
    def dropped(self) -> int:
        return sum(self.drops.values())


class DpuNode(Node):
    """Runs a PNA program (``api``, a ``Switch`` holding a ``PnaNic``) under the cost model above."""

    kind = "dpu"

    def __init__(self, sim: Simulator, spec: DpuSpec, api: Switch):
        self._up = False           # Node.__init__ sets ``up``; the setter reads this first
        super().__init__(sim, spec.name)
        self.spec = spec
        self.api = api
        self.dp = api.dp
        self.stats = DpuStats()
        self.pipe = FifoPipeline(f"DPU '{spec.name}'", spec.rate_bps, spec.packet_rate_pps, spec.latency_ns,
                                 spec.queue)

    # ---- up/down --------------------------------------------------------------------------------
    @property
    def up(self) -> bool:
        return self._up

    @up.setter
    def up(self, value: bool) -> None:
        if self._up and not value:
            self.pipe.stop(self.sim.now)   # a failed DPU loses what it holds
        self._up = value

    # ---- the packet path ------------------------------------------------------------------------
    def receive(self, port: Port, data: bytes) -> None:
        """A packet arrived: book its pipeline slot, or drop it if the FIFO is full."""
        if not self._up:
            return
        st = self.stats
        st.received += 1
        pipe = self.pipe
        due = pipe.admit(self.sim.now, len(data))
        if due is None:
            self._drop(QUEUE_FULL)
            return
        if pipe.max_queue > st.max_queue:
            st.max_queue = pipe.max_queue
        self.sim.at(due, self._output, port.number, data, pipe.epoch)

    def _output(self, port_number: int, data: bytes, epoch: int) -> None:
        if epoch != self.pipe.epoch:
            self._drop(NODE_DOWN)
            return
        dp = self.dp
        dp.now_us = self.sim.now // 1000
        result = PacketResult()
        dp.run_work(IngressWork(port_number, data), result, self.trace)
        st = self.stats
        st.processed += 1
        for out in result.outputs:
            port = self.ports.get(out.port)
            if port is None:
                self._drop(f"no port {out.port}")
                continue
            st.outputs += 1
            port.enqueue(out.data, len(out.data))   # a full egress queue counts in the port's stats
        for reason in result.drops:
            self._drop(reason)
        if dp.digests:
            dp.digests.clear()     # no controller listens on a DPU; do not let them pile up

    def _drop(self, reason: str) -> None:
        drops = self.stats.drops
        drops[reason] = drops.get(reason, 0) + 1

    # ---- measurements ----------------------------------------------------------------------------
    def busy_ns(self, now_ns: int | None = None) -> float:
        """Time the pipeline has spent busy from 0 to ``now_ns`` (default: the simulator's clock);
        see ``FifoPipeline.busy_ns``."""
        return self.pipe.busy_ns(self.sim.now if now_ns is None else now_ns)

    def utilisation(self, now_ns: int | None = None) -> float:
        """Busy time over elapsed time (from 0 to ``now_ns``, default the simulator's clock)."""
        return self.pipe.utilisation(self.sim.now if now_ns is None else now_ns)

    def queue_depth(self) -> int:
        """Packets waiting in front of the pipeline now."""
        return self.pipe.queue_depth(self.sim.now)

    @property
    def slot_ns(self) -> float:
        """The pipeline slot of a minimum-cost packet, 1/packet_rate, in ns."""
        return self.pipe.slot_ns

    def summary(self, now_ns: int | None = None) -> dict[str, Any]:
        """Counters and utilisation as plain data (the ``dpus`` entry of ``dataplane run --json``)."""
        st = self.stats
        return {"received": st.received, "processed": st.processed, "outputs": st.outputs,
                "drops": dict(sorted(st.drops.items())), "max_queue": st.max_queue,
                "busy_ns": round(self.busy_ns(now_ns)), "utilisation": round(self.utilisation(now_ns), 6),
                "counters": self.program_counters()}

    def program_counters(self) -> dict[str, int]:
        """Packets counted by each of the program's indexed counters (all cells), nonzero ones
        only: a program's own drop counters say why it dropped what the summary counts."""
        counts = {full.split(".")[-1]: packets for full, (packets, _) in self.api.counter_totals().items() if packets}
        return dict(sorted(counts.items()))
