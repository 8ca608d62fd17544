"""The plot of ``dataplane scenario pic`` sweeps (``PicResult`` rows): convergence time against
FIB size, one line per mode, with the flat FIB's model beside it."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from dataplane.net.capture.plots import pyplot


def fmt_ns(ns: int) -> str:
    """A simulated duration in s, ms or us, as the table and the plot print it."""
    if ns >= 1_000_000_000:
        return f"{ns / 1e9:.3f} s"
    if ns >= 1_000_000:
        return f"{ns / 1e6:.3f} ms"
    return f"{ns / 1e3:.1f} us"


def plot_pic(results: Sequence[Any], path: str | Path, title: str | None = None) -> Path | None:
    """Convergence time (log) against prefix count (log), one line per mode, the flat model dashed."""
    plt = pyplot()
    if plt is None:
        return None
    path = Path(path)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    styles = {"flat": ("tab:red", "o"), "pic": ("tab:blue", "s"), "dataplane": ("tab:green", "^")}
    for mode in [m for m in styles if any(r.mode == m for r in results)]:
        rs = sorted((r for r in results if r.mode == mode), key=lambda r: r.prefixes)
        color, marker = styles[mode]
        ax.plot([r.prefixes for r in rs], [max(r.convergence_ns, 1) / 1e6 for r in rs], marker=marker,
                color=color, label=mode)
    flat = sorted((r for r in results if r.mode == "flat"), key=lambda r: r.prefixes)
    if flat:
        ax.plot([r.prefixes for r in flat], [r.model_ns / 1e6 for r in flat], linestyle="--", color="tab:red",
                alpha=0.5, linewidth=1, label="detection + N / write rate")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("prefixes in the FIB")
    ax.set_ylabel("convergence (ms, failure to last lost packet)")
    r0 = results[0] if results else None
    if title is None and r0 is not None:
        title = (f"Link failure: detection {fmt_ns(r0.detection_ns)}, "
                 f"{1e9 / r0.write_latency_ns:,.0f} writes/s")
    ax.set_title(title or "Link failure", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path
