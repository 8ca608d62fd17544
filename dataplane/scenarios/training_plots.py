"""The training scenario's picture: each GPU's step as bars of compute and waits, one panel per run."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from dataplane.net.capture.plots import pyplot

COLOURS = {"forward": "tab:blue", "backward": "tab:cyan", "optimizer": "tab:purple", "exposed": "tab:red",
           "tensor": "tab:orange", "pipeline": "tab:olive"}


def plot_timelines(results: list[Any], path: Path, max_gpus: int = 32) -> None:
    """One Gantt chart per run (compute kinds and waits; white is idle), the first ``max_gpus`` GPUs."""
    plt = pyplot()
    if plt is None:
        return
    from matplotlib.patches import Patch
    fig, axes = plt.subplots(len(results), 1, figsize=(9, 1.2 + 1.6 * len(results)), squeeze=False)
    end = max((s for r in results for t in r.timelines for _, s, _ in t), default=1)
    for ax, r in zip(axes[:, 0], results):
        for g, timeline in enumerate(r.timelines[:max_gpus]):
            for kind in COLOURS:
                bars = [(s / 1e6, (e - s) / 1e6) for s, e, k in timeline if k == kind]
                if bars:
                    ax.broken_barh(bars, (g - 0.4, 0.8), color=COLOURS[kind], linewidth=0)
        ax.set_xlim(0, end / 1e6)
        ax.set_ylim(-0.5, min(len(r.timelines), max_gpus) - 0.5)
        ax.set_ylabel("GPU")
        ax.set_title(f"{r.fault.kind}: {r.description}", fontsize=9, loc="left")
    axes[-1, 0].set_xlabel("time (ms)")
    fig.legend(handles=[Patch(color=c, label=k) for k, c in COLOURS.items()], loc="upper right", ncol=6, fontsize=7)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(path, dpi=90)
    plt.close(fig)
