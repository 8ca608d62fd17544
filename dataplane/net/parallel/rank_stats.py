"""How a partitioned run's work split between its ranks: an opt-in report on stderr.

``DATAPLANE_RANK_STATS=1`` in the environment makes rank 0 print, after gathering, one line a
rank (events, pipeline runs, CPU time running events and packing the cut's frames, wall time
waiting at the windows' exchanges) and the run's balance. The wall times depend on how the
machine shares its cores; the CPU times do not, so the balance is computed from those: the
ranks meet at the end of every window, so with a core each the run takes the sum over windows
of the slowest rank's CPU time (the critical path), against the mean rank's total when the work
splits perfectly. It goes to stderr so that ``--json`` and every other output stay the same.
"""
from __future__ import annotations

import os
import sys
from typing import Any, TextIO

ENV_VAR = "DATAPLANE_RANK_STATS"


def wanted() -> bool:
    """True when the environment asks for the report."""
    return os.environ.get(ENV_VAR, "") not in ("", "0")


def critical_path(window_cpu: list[list[float]]) -> float:
    """The sum over windows of the largest CPU time any rank spent in it (one list a rank, one
    entry a window; ranks run in lockstep, so the lists have one length, but a shorter one counts
    as idle in the windows it lacks)."""
    length = max((len(w) for w in window_cpu), default=0)
    return sum(max(w[i] if i < len(w) else 0.0 for w in window_cpu) for i in range(length))


def balance(rank_stats: list[dict[str, Any]]) -> dict[str, float]:
    """The busiest rank's share of the CPU time running events, the critical path (seconds) and
    its ratio to a perfect split (1.0: every window's work was even)."""
    busy = [s["busy_cpu_s"] + s["pack_cpu_s"] for s in rank_stats]
    total = sum(busy)
    path = critical_path([s.get("window_cpu_s", []) for s in rank_stats])
    even = sum(s["busy_cpu_s"] for s in rank_stats) / len(rank_stats) if rank_stats else 0.0
    return {"busiest_share": max(busy) / total if total else 0.0, "critical_path_s": path,
            "over_even": path / even if even else 0.0}


def report(rank_stats: list[dict[str, Any]], out: TextIO | None = None) -> None:
    """Print the per-rank lines and the balance (see the module docstring)."""
    out = out or sys.stderr
    for rank, s in enumerate(rank_stats):
        print(f"rank {rank}: {s['events']:,} events, {s.get('pipeline_runs', 0):,} pipeline runs, "
              f"{s['busy_cpu_s']:.2f} s CPU running events (+{s['pack_cpu_s']:.2f} s packing the cut), "
              f"{s['busy_s']:.2f} s wall running, {s['sync_s']:.2f} s wall at the exchanges, "
              f"{s['windows']:,} windows, {s['cut_messages']:,} frames sent across the cut", file=out)
    b = balance(rank_stats)
    print(f"balance: busiest rank {b['busiest_share']:.1%} of the CPU time; critical path (sum over windows "
          f"of the slowest rank's CPU) {b['critical_path_s']:.2f} s, {b['over_even']:.2f}x an even split",
          file=out)
