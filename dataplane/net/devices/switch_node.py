"""A P4 switch in the network: a v1model or PSA pipeline with real egress queues and a clock.

Ingress runs when a packet arrives (after the configured processing latency); what it
sends to a port waits in that port's queue; the egress pipeline runs when the packet
reaches the head of the queue, so v1model's ``enq_qdepth``, ``deq_qdepth``,
``enq_timestamp``, ``deq_timedelta`` and both global timestamps (PSA's ingress and
egress timestamps) come from the simulated queue and clock. What travels through the queue
is the pipeline's ``EgressWork`` (``dataplane.arch.work``): this module reads its ``port``,
``ctx.packet_length`` and (v1model) ``sm``; PFC reads ``sm.ingress_port``.

Registers, if the program declares them (any control, indexed by port), are kept by
the emulator, because v1model has no field for what they carry:

* ``port_status``: 1 for ports whose link is up, 0 for ports the switch has detected down
  (after its detection delay), for data-plane failover;
* ``queue_bytes``: written just before egress runs, the bytes still waiting in that
  packet's egress queue (not counting the packet), for byte-based ECN/RED marking;
* ``port_backlog``: written just before ingress runs, for every port, the bytes not yet on
  its wire (its queue, plus what is left of the frame being serialised, at the link's rate),
  for load balancing that compares its ports' loads (``programs/lb_least_loaded.p4h``): an
  ingress pipeline cannot otherwise see any port's queue.
* ``port_tx_bytes``: written just before egress runs, the bytes the port has sent before that
  packet (``PortStats.tx_bytes``, modulo the register's width), for INT's egress tx metadata;
* ``timestamp_ns`` (index 0): the simulated clock in ns, written before each pipeline run: when
  the packet arrived (the ingress pipeline runs ``processing_ns`` later) before ingress, when
  it leaves its egress queue before egress; v1model's own timestamps are in microseconds.

Traffic classes (``params["queues"]``, e.g. ``{"count": 4, "scheduler": "dwrr"}``; one queue
by default) give every port of the switch up to 8 queues chosen by v1model's ``priority`` or
PSA's ``class_of_service`` (``dataplane.net.devices.tclass``).

Decisions (``dataplane.arch.v1model_decisions``): a v1model switch whose program keeps no state
and reads neither the clock nor the queue remembers what its pipeline did to each flow and
applies it to the flow's next packets without running the pipeline; the bytes, drops and
counters (a report's table counts too) are those the pipeline would make.
``params["decision_cache"] = False`` (or the class attribute ``decision_cache``) turns it off;
``decisions`` is the cache, or None and ``decision_refusal`` says why. The cache decides a
packet's whole fate when it arrives, so a switch that writes metadata the program reads (the
queue id with traffic classes, say) must keep it off.

PFC (``params["pfc"]``, e.g. ``{"xoff": 64_000, "xon": 32_000}``; off by default) makes the
traffic manager account queued bytes per ingress port and pause upstream ports
(``dataplane.net.devices.pfc.SwitchPfc``, in ``self.pfc``); its ``watchdog`` watches every port
(``dataplane.net.devices.pfc_watchdog``, in ``self.pfc_watchdog``).
"""
from __future__ import annotations

from types import BuiltinMethodType, FunctionType
from typing import Any, ClassVar

from dataplane.arch.aliases import alias_path, set_path
from dataplane.arch.v1model import PacketResult
from dataplane.arch.v1model_decisions import V1Decisions, counts_only, replay
from dataplane.arch.work import CachedEgress, EgressWork, Frame, IngressWork
from dataplane.control.switch import Switch
from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Port
from dataplane.net.devices.node import Node
from dataplane.net.devices.pfc import PfcConfig, SwitchPfc
from dataplane.net.devices.pfc_watchdog import PfcWatchdog, WatchedPort
from dataplane.net.devices.tclass import ClassPort, QueueSet
from dataplane.net.topology.spec import SwitchSpec
from dataplane.net.topology.tclass_spec import QueueConfig

_MASK32 = 0xFFFFFFFF
_MASK48 = (1 << 48) - 1
_QDEPTH_MAX = (1 << 19) - 1     # enq_qdepth/deq_qdepth are bit<19>


class SwitchNode(Node):
    kind = "switch"
    #: keep a decision cache when the program allows (see the module docstring)
    decision_cache: ClassVar[bool] = True

    def __init__(self, sim: Simulator, spec: SwitchSpec, api: Switch):
        super().__init__(sim, spec.name)
        self.spec = spec
        self.processing_ns = spec.processing_ns
        self.controller: Any = None  # a ControllerHandle, when one is attached
        self.cpu: Any = None        # where packets for the CPU port go (``live.CpuPort``), when served
        self.drops: dict[str, int] = {}
        self.packets_in = 0
        self.queue_config = QueueConfig.from_value(spec.params.get("queues"))
        self.load(api)
        config = PfcConfig.from_value(spec.params.get("pfc"))
        self.pfc: SwitchPfc | None = SwitchPfc(self, config) if config is not None else None
        self.pfc_watchdog = self.watchdog_for(config)

    def watchdog_for(self, config: PfcConfig | None) -> PfcWatchdog | None:
        """The PFC watchdog ``config`` asks for on this switch, or None."""
        if config is None or config.watchdog is None:
            return None
        return PfcWatchdog(self, config.watchdog, config.lossless)

    def load(self, api: Switch) -> None:
        """Run ``api``'s pipeline from now on (at start, or when a controller sets a new one)."""
        old = getattr(self, "decisions", None)
        if old is not None:
            old.detach()
        self.api = api
        self.dp = api.dp
        # v1model's standard_metadata has the queue fields the egress queue fills; PSA has none.
        self._queue_metadata = self.dp.architecture == "v1model"
        self.port_status = self._find_register("port_status")
        self._queue_bytes_register = self._find_register("queue_bytes")
        self._backlog_register = self._find_register("port_backlog")
        self._tx_bytes_register = self._find_register("port_tx_bytes")
        self._clock_register = self._find_register("timestamp_ns")
        self._telemetry = self._clock_register is not None or self._tx_bytes_register is not None
        # BMv2 writes queueing_metadata.qid into a field that aliases it, if the program has one.
        self._qid_path = alias_path(self.dp, "queueing_metadata.qid") if self._queue_metadata else None
        self.decisions: V1Decisions | None = None
        if not (self.decision_cache and self.spec.params.get("decision_cache", True)):
            self.decision_refusal = "turned off"
        elif self._telemetry:
            # the clock and the bytes sent change under the program between its packets
            self.decision_refusal = "the program reads timestamp_ns or port_tx_bytes, which the fabric writes"
        elif self._backlog_register is not None:
            # every port's backlog changes under the program between its packets (issue 34)
            self.decision_refusal = "the program reads port_backlog, which the fabric writes"
        elif self.queue_config is not None and self.queue_config.multiple:
            # any metadata this node writes for the program to read refuses the cache here
            self.decision_refusal = "traffic classes write the queue id into metadata before egress"
        else:
            found = V1Decisions.for_switch(self.dp, self.ports)
            self.decisions, self.decision_refusal = (None, found) if isinstance(found, str) else (found, "")

    def add_port(self, number: int, name: str) -> Port:
        cfg = self.queue_config
        if cfg is not None and cfg.multiple:
            port: Port = ClassPort(self.sim, self, number, name, cfg, self._class_of)
        elif self.pfc_watchdog is not None:      # one queue: the watchdog watches the whole port
            port = WatchedPort(self.sim, self, number, name)
        else:
            return super().add_port(number, name)
        self.ports[number] = port
        return port

    def _class_of(self, item: EgressWork) -> int:
        """The queue a packet asks for: v1model's priority, PSA's class_of_service."""
        return item.sm.priority if self._queue_metadata else item.ctx.class_of_service

    def _find_register(self, name: str):
        for full, inst in self.dp.instances.items():
            if full.split(".")[-1] == name and hasattr(inst, "values") and hasattr(inst, "width"):
                return inst
        return None

    def set_port_status(self, port: int, up: bool) -> None:
        if self.port_status is not None and 0 <= port < self.port_status.size:
            self.port_status.values[port] = 1 if up else 0

    # ---- the packet path ---------------------------------------------------------------------
    def receive(self, port: Port, data: Any) -> None:
        if not self.up:
            return
        self.packets_in += 1
        if self.processing_ns:
            self.sim.schedule(self.processing_ns, self._ingress, port.number, data)
            return
        self._ingress(port.number, data)

    def _ingress(self, port_number: int, data: Any) -> None:
        if not self.up:
            return
        dp = self.dp
        dp.now_us = self.sim.now // 1000
        if self._backlog_register is not None:
            self._write_backlog(self._backlog_register)
        clock = self._clock_register
        if clock is not None:
            clock.values[0] = (self.sim.now - self.processing_ns) & ((1 << clock.width) - 1)
        decisions = self.decisions
        trace = self.trace
        if decisions is not None and (trace is None or counts_only(trace)):
            got = decisions.decide(port_number, data, trace)
            if got.__class__ is CachedEgress:
                port = self.ports[got.port]
                if self.pfc is None:
                    port.enqueue(got, got.packet_length)
                else:
                    self.pfc.enqueue(port, got)
                return
            if got.__class__ is str:
                self._drop(got)
                return
            work, result = got
            self._finish_ingress(work, result)
            return
        if data.__class__ is Frame:
            data = data.join()      # type: ignore[union-attr]
        result = PacketResult()
        work = dp.run_work(IngressWork(port_number, data), result, trace)
        self._finish_ingress(work, result)

    def _finish_ingress(self, work: list, result: PacketResult) -> None:
        dp = self.dp
        if work:
            item = work[0]
            if len(work) == 1 and item.__class__ is EgressWork and self.pfc is None:
                # The common case: one unicast packet for one port (what _run would do with it).
                port = self.ports.get(item.port)
                if port is None:
                    self._no_port(item)
                else:
                    port.enqueue(item, item.ctx.packet_length)
            else:
                self._run(work, result)
        if result.drops:
            for reason in result.drops:
                self._drop(reason)
        if dp.digests:
            self._deliver_digests()

    def _write_backlog(self, reg) -> None:
        """``port_backlog[p]``: the bytes port p has not yet put on its wire (module docstring)."""
        now = self.sim.now
        values, size, limit = reg.values, reg.size, (1 << reg.width) - 1
        for number, port in self.ports.items():
            if number < size:
                backlog = port.queue_bytes
                link = port.link
                if port.free_at > now and link is not None:
                    backlog += (port.free_at - now) * link.rate_bps // 8_000_000_000
                values[number] = backlog if backlog < limit else limit

    def _deliver_digests(self) -> None:
        dp = self.dp
        if self.controller is not None:
            self.controller.deliver_digests(list(dp.digests))
            dp.digests.clear()

    def _run(self, work: list, result: PacketResult) -> None:
        """Queue egress work on its ports; run ingress work (resubmits, recirculations) in order."""
        dp = self.dp
        work = list(work)
        while work:
            item = work.pop(0)
            if item.__class__ is EgressWork:
                port = self.ports.get(item.port)
                if port is None:
                    self._no_port(item)
                elif self.pfc is None:
                    port.enqueue(item, item.ctx.packet_length)
                else:
                    self.pfc.enqueue(port, item)
            else:
                work.extend(dp.run_work(item, result, self.trace))

    def dequeue(self, port: Any, item: Any, enq_time: int, enq_depth: int) -> Any:
        # port: a Port, or a served switch's CpuPort (live.py); item: an EgressWork or a CachedEgress;
        # returns bytes, an unjoined Frame or None
        if self.pfc is not None:
            self.pfc.dequeued(item)
        if not self.up:
            return None
        if item.__class__ is CachedEgress:
            owner = item.owner
            trace = self.trace
            if item.epoch == owner.epoch and owner is self.decisions and (trace is None or counts_only(trace)):
                if trace is not None:
                    replay(item.decision.egress_events, trace)
                out = item.out
                if out is None:
                    self._drop(item.drop)  # type: ignore[arg-type]  # a drop has its reason
                elif out.__class__ is Frame and not unjoined_ok(port):
                    out = out.join()
                return out
            # An egress table changed while it waited (or a trace started): run egress for real.
            item = owner.egress_work(item, trace)
        now = self.sim.now
        queue = port.queue
        if queue.__class__ is QueueSet:      # traffic classes: the packet's own queue
            qid = item.qid = queue.last_qid      # the queue popleft just served
            depth, qbytes = len(queue.queues[qid]), queue.bytes[qid]
            if self._qid_path is not None:
                set_path(item.meta, self._qid_path, qid)
        else:
            depth, qbytes = len(queue), port.queue_bytes
        if self._queue_metadata:
            sm: Any = item.sm     # the generated standard_metadata_t
            sm.enq_timestamp = (enq_time // 1000) & _MASK32
            sm.enq_qdepth = enq_depth if enq_depth < _QDEPTH_MAX else _QDEPTH_MAX
            sm.deq_timedelta = ((now - enq_time) // 1000) & _MASK32
            sm.deq_qdepth = depth if depth < _QDEPTH_MAX else _QDEPTH_MAX
        dp = self.dp
        dp.now_us = (now // 1000) & _MASK48
        qb = self._queue_bytes_register
        if qb is not None and port.number < qb.size:
            qb.values[port.number] = min(qbytes, (1 << qb.width) - 1)
        if self._telemetry:
            self._telemetry_registers(port, now)
        result = PacketResult()
        more = dp.run_work(item, result, self.trace)
        if more:
            self._run(more, result)
            if dp.digests:
                self._deliver_digests()
        if result.drops:
            for reason in result.drops:
                self._drop(reason)
        outputs = result.outputs
        if len(outputs) == 1:
            out = outputs[0]
            return out.data if out.port == port.number else None
        number = port.number
        for out in outputs:
            if out.port == number:
                return out.data
        return None

    def _telemetry_registers(self, port: Any, now: int) -> None:
        """``timestamp_ns`` and ``port_tx_bytes`` before an egress run (the module docstring)."""
        clock = self._clock_register
        if clock is not None:
            clock.values[0] = now & ((1 << clock.width) - 1)
        tx = self._tx_bytes_register
        stats = getattr(port, "stats", None)      # the CPU port of a served switch has none
        if tx is not None and stats is not None and port.number < tx.size:
            tx.values[port.number] = stats.tx_bytes & ((1 << tx.width) - 1)

    def _no_port(self, item: EgressWork) -> None:
        """Egress work for a port no link ends at: the CPU port when served, else a drop."""
        cpu = self.cpu
        if cpu is not None and item.port == cpu.number:
            cpu.enqueue(item, item.ctx.packet_length)
        else:
            self._drop(f"no port {item.port}")

    def _drop(self, reason: str) -> None:
        self.drops[reason] = self.drops.get(reason, 0) + 1


_RECEIVE, _INGRESS = SwitchNode.receive, SwitchNode._ingress
#: this module compiled (dataplane.compiled): a node's own methods are then bound builtins, and a
#: replacement a user wrote in Python is not
_COMPILED = not isinstance(_RECEIVE, FunctionType)


def unjoined_ok(port: Port) -> bool:
    """Whether a frame ``port`` sends may stay an unjoined ``Frame`` (dataplane.engine.decision.frame):
    only when its peer is a switch whose cache reads one as it is, and nothing else sees it (not a
    capture, another kind of node, nor a switch whose ``receive`` or ``_ingress`` was replaced)."""
    node = port.peer.node      # type: ignore[union-attr]
    if port.capture is not None or node.__class__ is not SwitchNode or node.decisions is None:
        return False
    if _COMPILED:
        return node.receive.__class__ is BuiltinMethodType and node._ingress.__class__ is BuiltinMethodType
    return getattr(node.receive, "__func__", None) is _RECEIVE and getattr(node._ingress, "__func__", None) is _INGRESS
