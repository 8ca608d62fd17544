"""One run of a training job on a fabric, clean or under one fault (``scenarios.training``)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from dataplane.net.training.job import Job
from dataplane.scenarios.fabric import GENERATED, Fabric, FabricConfig, build_fabric

__all__ = ["Fault", "JobResult", "run_job", "format_results"]


@dataclass(frozen=True)
class Fault:
    """What goes wrong in a run (``scenarios.training``'s docstring); ``clean``: nothing."""

    kind: str
    link: tuple[str, ...] | None = None
    rate: float = 0.5
    down_ns: int = 10_000_000
    slowdown: float = 1.5
    gpu: int | None = None
    tenant_bps: int = 25_000_000_000
    loss: float = 0.001

    def describe(self, job: Job, link: tuple[str, str] | None, at_ns: int | None) -> str:
        where = f"{link[0]}-{link[1]}" if link else ""
        if self.kind == "degraded":
            return f"link {where} at {self.rate:.0%} of its rate"
        if self.kind == "down":
            return f"link {where} down from the start, routes converged without it"
        if self.kind == "flap":
            return f"link {where} down {self.down_ns / 1e6:g} ms from {(at_ns or 0) / 1e6:.3f} ms"
        if self.kind == "straggler":
            return f"GPU {self._straggler(job)} computes {self.slowdown:g}x slower"
        if self.kind == "tenant":
            return f"another tenant's UDP flows at {self.tenant_bps / 1e9:g} Gbps each"
        if self.kind == "loss":
            return f"{self.loss:.2%} loss on every link"
        return "no fault"

    def _straggler(self, job: Job) -> int:
        return self.gpu if self.gpu is not None else job.world - 1


@dataclass
class JobResult:
    fault: Fault
    description: str
    steps: list[dict[str, Any]]
    per_gpu: list[dict[str, Any]]
    timelines: list[list[tuple[int, int, str]]] = field(default_factory=list)
    retransmitted: int = 0
    clean_step_ns: float | None = None

    @property
    def mean_step_ns(self) -> float:
        return sum(s["step_ns"] for s in self.steps) / len(self.steps) if self.steps else 0.0

    def summary(self) -> dict[str, Any]:
        mean = self.mean_step_ns
        steps = self.steps
        return {
            "fault": self.fault.kind, "what": self.description,
            "step_ms": round(mean / 1e6, 4),
            "inflation": round(mean / self.clean_step_ns - 1, 4) if self.clean_step_ns else 0.0,
            "compute_ms": round(_mean(s["mean_compute_ns"] for s in steps) / 1e6, 4),
            "communication_ms": round(_mean(s["mean_communication_ns"] for s in steps) / 1e6, 4),
            "exposed_ms": round(_mean(s["mean_exposed_ns"] for s in steps) / 1e6, 4),
            "idle": round(_mean(s["mean_idle"] for s in steps), 4),
            "max_idle": round(max((s["max_idle"] for s in steps), default=0.0), 4),
            "retransmitted": self.retransmitted,
            "steps_ms": [round(st["step_ns"] / 1e6, 4) for st in steps],
        }


def _mean(values: Any) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def _place(fabric: Fabric, job: Job) -> list[Any]:
    if isinstance(job.gpus, int):
        if job.gpus > len(fabric.hosts):
            raise ValueError(f"the job has {job.gpus} GPUs but the fabric only {len(fabric.hosts)} hosts "
                             f"(a larger --k, or fewer gpus)")
        return fabric.hosts[:job.gpus]
    by_name = {h.name: h for h in fabric.hosts}
    missing = [g for g in job.gpus if g not in by_name]
    if missing:
        raise ValueError(f"{job.source}: gpus names hosts the fabric does not have: {', '.join(missing[:5])}")
    return [by_name[g] for g in job.gpus]


def _fault_link(fabric: Fabric, fault: Fault, first_host: Any) -> tuple[str, str]:
    if fault.link is not None:
        a, b = fault.link
        try:
            fabric.net.link(a, b)
        except Exception:
            raise ValueError(f"--fault-link {a},{b}: the fabric has no link between them") from None
        return a, b
    rack = fabric.rack_of[first_host.name]
    if fault.kind == "down":        # an uplink of the first GPU's rack: a host link has no other way
        for switch, port in fabric.uplinks:
            if switch == rack:
                return rack, fabric.net.switch(rack).ports[port].peer.node.name
        raise ValueError("down: the fabric has no uplink to fail (name one with --fault-link)")
    return first_host.name, rack


def run_job(job: Job, fabric_cfg: FabricConfig, fault: Fault, clean: JobResult | None = None) -> JobResult | None:
    """Build the fabric, apply ``fault``, run ``job`` to its end; None on MPI ranks but 0."""
    from dataplane.net.collectives.comm import Communicator
    from dataplane.net.loadbalance.schemes import ACK_DSCP
    from dataplane.net.parallel.session import gather_results
    from dataplane.net.rdma import TransportConfig
    from dataplane.net.rdma.entropy import EntropyParams
    from dataplane.net.training.gpu import GpuWorker
    from dataplane.net.training.measure import decompose, step_ends
    from dataplane.net.training.program import GpuComms, Plans, gpu_program

    if job.lb is not None and fabric_cfg.lb is None:
        fabric_cfg = replace(fabric_cfg, lb=job.lb)
    fabric = build_fabric(fabric_cfg)
    hosts = _place(fabric, job)
    link, at = None, None
    if fault.kind == "down":
        link = _fault_link(fabric, fault, hosts[0])
        if fabric_cfg.topology not in GENERATED:
            raise ValueError("down: failing a link with converged routes needs a generated fabric")
        fabric = build_fabric(replace(fabric_cfg, down_links=(link,)))
        hosts = _place(fabric, job)
    if fault.kind in ("degraded", "flap"):
        link = _fault_link(fabric, fault, hosts[0])
        net_link = fabric.net.link(*link)
        if fault.kind == "degraded":
            net_link.rate_bps = max(1, int(net_link.rate_bps * fault.rate))
        else:
            at = _flap_time(clean)
            fabric.net.set_link(*link, up=False, at_ns=at)
            fabric.net.set_link(*link, up=True, at_ns=at + fault.down_ns)
    if fault.kind == "loss":
        for l in fabric.net.links:
            l.loss = fault.loss
    lb = fabric_cfg.lb
    # reps: the hosts choose every packet's entropy (dataplane.net.rdma.entropy)
    entropy = EntropyParams(seed=fabric_cfg.seed, spray_acks=lb.spray_acks,
                            explore_every=lb.explore_every) if lb is not None and lb.host_entropy else None
    transport = TransportConfig(rto_ns=1_000_000, receiver=job.receiver, entropy=entropy,
                                window=lb.transport_window if lb is not None else None,
                                window_counts=lb.window_counts if lb is not None else "span",
                                ack_dscp=ACK_DSCP if lb is not None and lb.ack_priority else None)
    comms: list[Communicator] = []
    by_gpu: dict[int, dict[str, Any]] = {g: {} for g in range(job.world)}

    def communicator(kind: str, gpus: list[int]) -> None:
        comm = Communicator([hosts[g] for g in gpus], comm_id=len(comms), transport=transport)
        comms.append(comm)
        for rank, g in enumerate(gpus):
            by_gpu[g][kind] = comm.ranks[rank]

    for s in range(job.pipeline):
        for t in range(job.tensor):
            if job.data > 1:
                communicator("data", [job.gpu_at(s, d, t) for d in range(job.data)])
        for d in range(job.data):
            if job.tensor > 1:
                communicator("tensor", [job.gpu_at(s, d, t) for t in range(job.tensor)])
    if job.pipeline > 1:
        communicator("pipeline", list(range(job.world)))
    dp_hosts = [hosts[job.gpu_at(0, d, 0)] for d in range(job.data)]
    plans = Plans(job, job.world, fabric.racks(dp_hosts))
    workers = []
    for g in range(job.world):
        c = by_gpu[g]
        program = gpu_program(job, g, GpuComms(c.get("data"), c.get("tensor"), c.get("pipeline")), plans)
        slow = fault.slowdown if fault.kind == "straggler" and g == fault._straggler(job) else 1.0
        workers.append(GpuWorker(hosts[g], g, program, slow))
    if fault.kind == "tenant":
        # the tenant sends for three times the clean job's run (the simulation ends with its traffic)
        span = 3 * sum(st["step_ns"] for st in clean.steps) if clean is not None else 100_000_000
        _tenant(fabric, hosts, fault.tenant_bps, span)
    for w in workers:
        w.start()
    fabric.net.run()
    ranks = [r for comm in comms for r in comm.ranks]
    if not gather_results(fabric.net, [*workers, *ranks]):
        return None
    unfinished = [w.gpu for w in workers if w.done_ns is None]
    if unfinished:
        raise RuntimeError(f"GPUs {unfinished[:8]} never finished the job")
    ends = step_ends([w.step_starts for w in workers], [w.done_ns for w in workers], job.steps)
    spans = [[(rec.start_ns, rec.end_ns) for kind in ("data", "tensor", "pipeline") if kind in by_gpu[g]
              for rec in by_gpu[g][kind].log] for g in range(job.world)]
    steps = decompose(ends, [w.timeline for w in workers], spans)
    per_gpu = [{"gpu": g, "host": hosts[g].name,
                "compute_ms": round(sum(s["compute_ns"][g] for s in steps) / 1e6, 4),
                "communication_ms": round(sum(s["communication_ns"][g] for s in steps) / 1e6, 4),
                "exposed_ms": round(sum(s["exposed_ns"][g] for s in steps) / 1e6, 4),
                "idle": round(sum(s["idle"][g] * s["step_ns"] for s in steps) / max(1, ends[-1]), 4)}
               for g in range(job.world)]
    retx = sum(st.retransmitted for r in ranks for st in r.qp_stats.values())
    for row in steps:          # per-GPU lists stay in per_gpu; the rows keep the job's figures
        for key in ("compute_ns", "communication_ns", "exposed_ns", "idle"):
            row.pop(key)
    return JobResult(fault, fault.describe(job, link, at), steps, per_gpu, [w.timeline for w in workers], retx,
                     clean.mean_step_ns if clean is not None else None)


def _flap_time(clean: JobResult | None) -> int:
    """The middle of the clean run's second step (or of its first, for a one-step job)."""
    if clean is None or not clean.steps:
        return 1_000_000
    lo = clean.steps[0]["step_ns"] if len(clean.steps) > 1 else 0
    step = clean.steps[1]["step_ns"] if len(clean.steps) > 1 else clean.steps[0]["step_ns"]
    return int(lo + step // 2)


def _tenant(fabric: Fabric, hosts: list[Any], rate_bps: int, duration_ns: int) -> list[Any]:
    """UDP flows host i -> host i + n/2 over the whole fabric, the job's first host left out."""
    from dataplane.net.apps.basic import UdpFlow, UdpSink

    every = fabric.hosts
    n = len(every)
    apps: list[Any] = []
    sinks: dict[str, Any] = {}
    for i, h in enumerate(every):
        if h is hosts[0] or n < 2:
            continue
        dst = every[(i + n // 2) % n]
        if dst.name not in sinks:
            sinks[dst.name] = UdpSink(dst, 7000)
        apps.append(UdpFlow(h, dst.ip, rate_bps=rate_bps, size_bytes=4000, dst_port=7000, start_ns=0,
                            duration_ns=duration_ns))
    return apps


def format_results(job: Job, fabric: FabricConfig, results: list[JobResult]) -> str:
    """The clean run's steps, then every run against it."""
    clean = results[0]
    lb = f"; {job.lb.describe()}, {job.receiver} receivers" if job.lb is not None else ""
    lines = [f"training job {job.name}: {job.world} GPUs (data {job.data} x tensor {job.tensor} x pipeline "
             f"{job.pipeline}, {job.microbatches} micro-batch(es)), {job.steps} steps; {fabric.describe()}{lb}",
             "",
             f"{'step':>4} {'step ms':>9} {'compute ms':>11} {'comm ms':>9} {'exposed ms':>11} {'idle':>7} "
             f"{'worst idle':>10}"]
    for s in clean.steps:
        lines.append(f"{s['step']:>4} {s['step_ns'] / 1e6:>9.3f} {s['mean_compute_ns'] / 1e6:>11.3f} "
                     f"{s['mean_communication_ns'] / 1e6:>9.3f} {s['mean_exposed_ns'] / 1e6:>11.3f} "
                     f"{s['mean_idle']:>7.1%} {s['max_idle']:>10.1%}")
    lines += ["", "(compute, comm, exposed and idle are the GPUs' means; idle = share of the step not computing)", "",
              f"{'run':<10} {'step ms':>9} {'vs clean':>9} {'exposed ms':>11} {'idle':>7} {'worst idle':>10} "
              f"{'retx':>7}  {'each step, ms':<24} what"]
    for r in results:
        s = r.summary()
        each = "/".join(f"{x:.2f}" for x in s["steps_ms"])
        lines.append(f"{s['fault']:<10} {s['step_ms']:>9.3f} {s['inflation']:>+9.1%} {s['exposed_ms']:>11.3f} "
                     f"{s['idle']:>7.1%} {s['max_idle']:>10.1%} {s['retransmitted']:>7}  {each:<24} {s['what']}")
    return "\n".join(lines)
