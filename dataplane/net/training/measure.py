"""A job's steps taken apart: compute, communication, exposed communication, idle.

Step k of the job ends when its last GPU ends it (a synchronous job waits for its slowest
GPU): T_k = max over GPUs of the time GPU g starts step k+1 (or ends its program), T_-1 = 0;
the step time is T_k - T_(k-1). Inside that window, per GPU:

* ``compute``: time its compute stream was busy (forward, backward, optimizer);
* ``communication``: time at least one of its collectives was under way (the union of their
  spans, overlapped with compute or not);
* ``exposed``: time its compute stream waited for communication it could not hide (the
  data-parallel buckets after the backward, tensor-parallel AllReduces, the pipeline's
  activations and gradients, which include the pipeline's bubble);
* ``idle``: the window's time it did not compute: 1 - compute / step (a straggler's peers idle
  while they wait for it, even where no message is late).
"""
from __future__ import annotations

from typing import Any, Sequence

__all__ = ["step_ends", "decompose", "overlap", "union"]

WAITS = ("exposed", "tensor", "pipeline")


def step_ends(starts: Sequence[Sequence[int]], done: Sequence[int | None], steps: int) -> list[int]:
    """T_k for every step from every GPU's step starts and end (module docstring)."""
    ends = []
    for k in range(steps):
        ends.append(max((s[k + 1] if k + 1 < len(s) else (d or 0)) for s, d in zip(starts, done)))
    return ends


def overlap(spans: Sequence[tuple[int, int, Any]], lo: int, hi: int, kinds: Sequence[str] | None = None) -> int:
    """Time of ``spans`` (start, end, kind) inside [lo, hi), only those of ``kinds`` if given."""
    total = 0
    for s, e, kind in spans:
        if kinds is not None and kind not in kinds:
            continue
        a, b = max(s, lo), min(e, hi)
        if b > a:
            total += b - a
    return total


def union(spans: Sequence[tuple[int, int]], lo: int, hi: int) -> int:
    """Time covered by at least one of ``spans`` inside [lo, hi)."""
    clipped = sorted((max(s, lo), min(e, hi)) for s, e in spans if min(e, hi) > max(s, lo))
    total, end = 0, lo
    for s, e in clipped:
        if e > end:
            total += e - max(s, end)
            end = e
    return total


def decompose(ends: Sequence[int], timelines: Sequence[Sequence[tuple[int, int, str]]],
              comm_spans: Sequence[Sequence[tuple[int, int]]]) -> list[dict[str, Any]]:
    """Per step: the job's step time and per-GPU compute, communication, exposed and idle
    (lists in GPU order), with the job's means and worst GPU."""
    rows = []
    lo = 0
    for k, hi in enumerate(ends):
        step = hi - lo
        compute = [overlap(t, lo, hi, ("forward", "backward", "optimizer")) for t in timelines]
        exposed = [overlap(t, lo, hi, WAITS) for t in timelines]
        comm = [union(c, lo, hi) for c in comm_spans]
        idle = [1 - c / step if step else 0.0 for c in compute]
        n = len(timelines) or 1
        rows.append({"step": k, "step_ns": step, "compute_ns": compute, "communication_ns": comm,
                     "exposed_ns": exposed, "idle": [round(x, 4) for x in idle],
                     "mean_compute_ns": sum(compute) / n, "mean_communication_ns": sum(comm) / n,
                     "mean_exposed_ns": sum(exposed) / n, "mean_idle": round(sum(idle) / n, 4),
                     "max_idle": round(max(idle, default=0.0), 4)})
        lo = hi
    return rows
