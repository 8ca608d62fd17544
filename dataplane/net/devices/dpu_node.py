"""A DPU in the network: a PNA program behind a pipeline with a packet rate, a throughput
ceiling and a latency, so that offloading work to it has a visible cost.

The cost model is one FIFO server:

* a packet occupies the pipeline for ``max(1 / packet_rate, bits / rate)`` (``bits`` is the
  frame as links count it: Ethernet header to payload, no preamble or gap);
* packets that find the pipeline busy wait in a bounded FIFO in front of it (``queue``,
  packets or bytes, not counting the one in service); one that finds it full is dropped
  (reason ``"pipeline queue full"``);
* the program runs, and its outputs join their ports' egress queues, ``latency`` after the
  packet's pipeline slot ends: transit = wait + slot + latency.

Because the server is FIFO with known service times, a packet's start and end are fixed
when it arrives, so each packet costs one simulator event (its output). Times are kept
exactly in units of ``1/Q`` ns (``Q`` from the rates, reduced by their gcd), so a
150 Mpps pipeline's 6.67 ns slots never drift; only the output event is rounded up to a
whole nanosecond. The program sees ``istd.timestamp`` at its output time.

Taking the node down (``Network.set_node``) loses the packets waiting and the one in
service (counted as ``"node down"``) and frees the pipeline.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from math import gcd
from typing import Any

from dataplane.arch.v1model import PacketResult
from dataplane.control.switch import Switch
from dataplane.net.devices.link import Port
from dataplane.net.devices.node import Node
from dataplane.net.core.sim import Simulator
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
        pps, bps = spec.packet_rate_pps, spec.rate_bps
        if pps <= 0 or bps <= 0:
            raise ValueError(f"DPU '{spec.name}': packet rate and rate must be positive")
        # One pipeline slot is max(1e9/pps, bits*1e9/bps) ns = max(A, bits*B) / Q ns.
        g = gcd(10**9 * bps, 10**9 * pps, pps * bps)
        self._a = 10**9 * bps // g
        self._b = 10**9 * pps // g
        self._q = pps * bps // g
        self._latency = spec.latency_ns
        self._capacity, kind = spec.queue
        self._count_bytes = kind == "bytes"
        self._free_q = 0           # when the pipeline is next free (units of 1/Q ns)
        self._busy_q = 0           # pipeline time booked so far, including slots not yet over
        self._waiting: deque = deque()   # (start_q, size) of accepted packets not yet in the pipeline
        self._waiting_bytes = 0
        self._epoch = 0            # bumped when the node goes down; outputs of older packets are lost
        self._booked_ns = 0        # when the last slot was booked (an arrival) or given back (down)

    # ---- up/down --------------------------------------------------------------------------------
    @property
    def up(self) -> bool:
        return self._up

    @up.setter
    def up(self, value: bool) -> None:
        if self._up and not value:
            # A failed DPU loses what it holds; the slots it will not serve are not busy time.
            now_q = self.sim.now * self._q
            if self._free_q > now_q:
                self._busy_q -= self._free_q - now_q
                self._free_q = now_q
            self._waiting.clear()
            self._waiting_bytes = 0
            self._epoch += 1
            self._booked_ns = self.sim.now
        self._up = value

    # ---- the packet path ------------------------------------------------------------------------
    def receive(self, port: Port, data: bytes) -> None:
        """A packet arrived: book its pipeline slot, or drop it if the FIFO is full."""
        if not self._up:
            return
        st = self.stats
        st.received += 1
        now = self._booked_ns = self.sim.now
        now_q = now * self._q
        waiting = self._waiting
        while waiting and waiting[0][0] <= now_q:     # these have entered the pipeline by now
            self._waiting_bytes -= waiting.popleft()[1]
        size = len(data)
        free = self._free_q
        if free > now_q:
            if self._count_bytes:
                full = self._waiting_bytes + size > self._capacity
            else:
                full = len(waiting) >= self._capacity
            if full:
                self._drop(QUEUE_FULL)
                return
            start = free
            waiting.append((start, size))
            self._waiting_bytes += size
            if len(waiting) > st.max_queue:
                st.max_queue = len(waiting)
        else:
            start = now_q
        slot = size * 8 * self._b
        if slot < self._a:
            slot = self._a
        end = start + slot
        self._free_q = end
        self._busy_q += slot
        q = self._q
        self.sim.at(-(-end // q) + self._latency, self._output, port.number, data, self._epoch)

    def _output(self, port_number: int, data: bytes, epoch: int) -> None:
        if epoch != self._epoch:
            self._drop(NODE_DOWN)
            return
        dp = self.dp
        dp.now_us = self.sim.now // 1000
        result = PacketResult()
        dp.run_work(("ingress", port_number, data, 0, None, 0), result)
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
        """Time the pipeline has spent busy from 0 to ``now_ns`` (default: the simulator's clock).

        ``now_ns`` may lie ahead of the clock (slots already booked count as they will run) but
        not before the last arrival: the past is not kept, only the total and the backlog.
        """
        now = self.sim.now if now_ns is None else now_ns
        if now < self._booked_ns:
            raise ValueError(f"DPU '{self.name}': busy time is known from {self._booked_ns} ns on, not at {now} ns")
        # Everything booked beyond now is one gapless run up to _free_q (the FIFO starts each
        # waiting packet the moment the one before ends), so it is exactly free - now.
        return (self._busy_q - max(0, self._free_q - now * self._q)) / self._q

    def utilisation(self, now_ns: int | None = None) -> float:
        """Busy time over elapsed time (from 0 to ``now_ns``, default the simulator's clock)."""
        now = self.sim.now if now_ns is None else now_ns
        return self.busy_ns(now) / now if now > 0 else 0.0

    def queue_depth(self) -> int:
        """Packets waiting in front of the pipeline now."""
        now_q = self.sim.now * self._q
        return sum(1 for start, _ in self._waiting if start > now_q)

    @property
    def slot_ns(self) -> float:
        """The pipeline slot of a minimum-cost packet, 1/packet_rate, in ns."""
        return self._a / self._q

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
