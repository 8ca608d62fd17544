"""The collective command's picture: busbw against size, with the topology's bound (a PNG, and
the same as a figure of the HTML report)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from dataplane.net.capture.plots import pyplot


def busbw_figure(cfg: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The report's figure (``dataplane.report.figures``): busbw and bound against log2 of the size."""
    x = [math.log2(r["size"]) if r["size"] else 0.0 for r in rows]
    series = [{"name": f"busbw, {cfg.collective} {cfg.algorithm}", "x": x, "y": [r["busbw"] for r in rows]}]
    bounded = [(xi, r["bound_busbw"]) for xi, r in zip(x, rows) if r["bound_busbw"] is not None]
    if bounded:
        series.append({"name": "bound", "x": [b[0] for b in bounded], "y": [b[1] for b in bounded]})
    return [{"kind": "line", "title": f"busbw against size ({cfg.collective}, {cfg.algorithm})",
             "x_label": "size, log2 of bytes", "y_label": "GB/s", "series": series,
             "note": "busbw as nccl-tests defines it; bound: the busiest link at line rate"}]


def plot_busbw(cfg: Any, rows: list[dict[str, Any]], path: Path) -> None:
    """busbw (GB/s) per size on a log axis, and the bound as a dashed line; nothing without matplotlib."""
    plt = pyplot()
    if plt is None or not rows:
        return
    fig, ax = plt.subplots(figsize=(6, 3.6))
    sizes = [r["size"] for r in rows]
    ax.plot(sizes, [r["busbw"] for r in rows], marker="o", label=f"{cfg.collective} {cfg.algorithm}")
    bounds = [(r["size"], r["bound_busbw"]) for r in rows if r["bound_busbw"] is not None]
    if bounds:
        ax.plot([s for s, _ in bounds], [b for _, b in bounds], linestyle="--", color="grey", label="bound")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("size (bytes)")
    ax.set_ylabel("busbw (GB/s)")
    ax.set_title(f"{cfg.collective} ({cfg.algorithm}), {rows[0]['ranks']} ranks")
    ax.legend(loc="upper left")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
