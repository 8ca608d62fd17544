"""The collective command's picture: busbw against size, with the topology's bound."""
from __future__ import annotations

from pathlib import Path
from typing import Any


def plot_busbw(cfg: Any, rows: list[dict[str, Any]], path: Path) -> None:
    """busbw (GB/s) per size on a log axis, and the bound as a dashed line; nothing without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    if not rows:
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
