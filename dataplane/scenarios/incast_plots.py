"""Plots of ``dataplane scenario incast`` runs (``IncastRun``): bottleneck queue depth over time,
per-flow throughput (and the DCQCN rate of ECN runs) over time."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from dataplane.net.capture.plots import pyplot


def _label(run: Any) -> str:
    """The run's mode, with /hpcc when its senders ran HPCC (the ecn modes are DCQCN's otherwise)."""
    return f"{run.config.mode}/hpcc" if run.config.hpcc else run.config.mode


def plot_queue(runs: list[Any], path: Path, title: str | None = None) -> Path | None:
    """Bottleneck queue depth (bytes) over time for each run, with the marking band."""
    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(8, 4))
    for run in runs:
        ax.plot([t / 1000 for t in run.queue_times], [b / 1e6 for b in run.queue_bytes],
                label=f"{_label(run)} ({run.config.senders} senders)", linewidth=1)
    ecn = next((r.config for r in runs if r.config.ecn), None)
    if ecn is not None:
        ax.axhspan(ecn.kmin_bytes / 1e6, ecn.kmax_bytes / 1e6, color="tab:green", alpha=0.15,
                   label=f"marking band {ecn.kmin_bytes // 1000}-{ecn.kmax_bytes // 1000} KB")
    buf = runs[0].config.buffer_bytes
    ax.axhline(buf / 1e6, color="grey", linestyle=":", linewidth=1, label=f"buffer {buf / 1e6:g} MB")
    ax.set_xlabel("time (µs)")
    ax.set_ylabel("bottleneck queue (MB)")
    ax.set_title(title or "Incast: bottleneck egress queue depth")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_rates(runs: list[Any], path: Path) -> Path | None:
    """Per-flow received throughput over time, one panel per run (ECN runs add the DCQCN rate)."""
    plt = pyplot()
    if plt is None:
        return None
    panels = []
    for run in runs:
        panels.append((run, "received"))
        if run.config.ecn:
            panels.append((run, "dcqcn"))
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 3 * len(panels)), squeeze=False)
    for ax, (run, kind) in zip(axes[:, 0], panels):
        if kind == "received":
            for _name, series in run.flow_series.items():
                ax.plot([t / 1000 for t, _ in series], [r / 1e9 for _, r in series], linewidth=0.8)
            ax.set_title(f"{_label(run)}: per-flow throughput at the receiver "
                         f"({run.config.bin_ns // 1000} µs bins)")
        else:
            for _name, log in run.rate_logs.items():
                xs, ys = [], []
                for _i, (t, r) in enumerate(log):
                    if xs:
                        xs.append(t / 1000)
                        ys.append(ys[-1])
                    xs.append(t / 1000)
                    ys.append(r / 1e9)
                ax.plot(xs, ys, linewidth=0.8)
            ax.set_title(f"{_label(run)}: " + ("HPCC sending rate W / T per flow" if run.config.hpcc
                                               else "DCQCN sending rate RC per flow"))
        ax.set_ylabel("Gb/s")
        ax.set_xlabel("time (µs)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
