"""What each GPU of a job does in a step: ``gpu_program``, a generator of ``gpu`` commands.

One step, for the GPU at (pipeline stage s, data replica d, tensor index t), with M micro-batches
(GPipe's schedule: every forward, then every backward):

* forward, for each micro-batch: the activation from stage s-1 (waited for: ``pipeline``), each
  layer of the stage (with tensor parallelism, two AllReduces of its activation inside the
  tensor group, half of the layer's compute before each: Megatron's attention and MLP blocks;
  waited for: ``tensor``), then the activation sent on to stage s+1;
* backward, micro-batches in reverse: the gradient from stage s+1, each layer in reverse (and
  its tensor AllReduces), the gradient sent back to s-1. During the last micro-batch's backward
  each layer's gradient joins a bucket; a full bucket (``bucket_bytes``) starts its AllReduce in
  the data-parallel group at once, overlapping the backward compute that follows (PyTorch DDP);
* after the backward, the last bucket; then the wait for every bucket (``exposed``: the
  data-parallel communication the compute did not hide), then the optimizer.

Plans are made once and shared (``Plans``): every GPU of a group runs the same plan.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from dataplane.net.collectives.algorithms import ELEM_BYTES, build_plan
from dataplane.net.collectives.comm import CommRank
from dataplane.net.collectives.plan import Plan, PlanBuilder
from dataplane.net.training.gpu import Compute, Handle, Step, Submit, Wait
from dataplane.net.training.job import Job

__all__ = ["Plans", "GpuComms", "gpu_program"]


@dataclass
class Plans:
    """Plans by what they move, made on first use: AllReduces of a group size and byte count,
    and point-to-point messages between two GPUs of the pipeline communicator."""

    job: Job
    world: int
    dp_groups: list[list[int]] | None = None     # racks inside a data-parallel group (hierarchical)
    _cache: dict[tuple, Plan] = field(default_factory=dict)

    def allreduce(self, ranks: int, nbytes: int, algorithm: str, channels: int) -> Plan:
        key = ("ar", ranks, nbytes, algorithm, channels)
        plan = self._cache.get(key)
        if plan is None:
            groups = self.dp_groups if algorithm == "hierarchical" else None
            plan = self._cache[key] = build_plan("allreduce", algorithm, ranks, max(1, nbytes // ELEM_BYTES),
                                                 channels=channels, groups=groups)
        return plan

    def p2p(self, src: int, dst: int, nbytes: int) -> Plan:
        key = ("p2p", src, dst, nbytes)
        plan = self._cache.get(key)
        if plan is None:
            b = PlanBuilder(self.world, ELEM_BYTES)
            region = (0, max(1, nbytes // ELEM_BYTES))
            b.send(src, dst, 0, region)
            b.recv(dst, src, 0, region, reduce=False)
            plan = self._cache[key] = b.build()
        return plan


@dataclass
class GpuComms:
    """A GPU's ranks in its communicators (None where the group is one GPU)."""

    data: CommRank | None
    tensor: CommRank | None
    pipeline: CommRank | None


def gpu_program(job: Job, gpu: int, comms: GpuComms, plans: Plans):
    """The commands of GPU ``gpu`` for ``job.steps`` steps (module docstring)."""
    stage, _, _ = job.coordinates(gpu)
    layers = job.stage_layers(stage)
    prev_gpu = gpu - job.data * job.tensor if stage > 0 else None
    next_gpu = gpu + job.data * job.tensor if stage < job.pipeline - 1 else None
    act = max(ELEM_BYTES, layers[0].activation_bytes if layers else ELEM_BYTES)
    M = job.microbatches

    def tensor_allreduces(compute_ns: int, nbytes: int, kind: str):
        if comms.tensor is None or nbytes <= 0:
            yield Compute(compute_ns, kind)
            return
        plan = plans.allreduce(job.tensor, nbytes, "ring", 1)
        for half in (compute_ns // 2, compute_ns - compute_ns // 2):
            yield Compute(half, kind)
            handle = yield Submit(comms.tensor, plan, "tensor")
            yield Wait([handle], "tensor")

    def receive(src: int, label: str):
        assert comms.pipeline is not None
        handle = yield Submit(comms.pipeline, plans.p2p(src, gpu, act), label)
        yield Wait([handle], "pipeline")

    def send(dst: int, label: str):
        assert comms.pipeline is not None
        yield Submit(comms.pipeline, plans.p2p(gpu, dst, act), label)

    for step in range(job.steps):
        yield Step(step)
        for _ in range(M):
            if prev_gpu is not None:
                yield from receive(prev_gpu, "activation")
            for layer in layers:
                yield from tensor_allreduces(layer.forward_ns, layer.activation_bytes, "forward")
            if next_gpu is not None:
                yield from send(next_gpu, "activation")
        buckets: list[Handle] = []
        bucket = 0
        for m in reversed(range(M)):
            if next_gpu is not None:
                yield from receive(next_gpu, "gradient")
            for layer in reversed(layers):
                yield from tensor_allreduces(layer.backward_ns, layer.activation_bytes, "backward")
                if m == 0 and comms.data is not None:
                    bucket += layer.gradient_bytes
                    if bucket >= job.bucket_bytes:
                        buckets.append((yield Submit(comms.data, _dp_plan(job, plans, bucket), "gradients")))
                        bucket = 0
            if prev_gpu is not None:
                yield from send(prev_gpu, "gradient")
        if bucket and comms.data is not None:
            buckets.append((yield Submit(comms.data, _dp_plan(job, plans, bucket), "gradients")))
        if buckets:
            yield Wait(buckets, "exposed")
        yield Compute(job.optimizer_ns, "optimizer")


def _dp_plan(job: Job, plans: Plans, nbytes: int) -> Plan:
    return plans.allreduce(job.data, nbytes, job.algorithm, job.channels)

