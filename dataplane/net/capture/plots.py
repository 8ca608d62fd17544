"""PNG plots of a run (matplotlib, headless): queue depth over time, throughput per flow; and
``pyplot``, through which every command's ``--out`` draws its PNGs."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def pyplot() -> Any | None:
    """matplotlib's pyplot on its headless backend, or None when no PNG is to be drawn: matplotlib
    is not installed, or ``DATAPLANE_PLOTS=0`` is set (a sweep's many runs, or PyPy, where
    drawing a run's figures can take longer than the run). The data behind them is written either way."""
    if os.environ.get("DATAPLANE_PLOTS", "1").strip() == "0":
        return None
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")  # no display on servers and CI
    import matplotlib.pyplot as plt

    return plt


def plot_queues(net: Any, path: Path, top: int = 6) -> Path | None:
    """Queue depth (packets) over time for the ``top`` ports that queued most."""
    ports = _ports_that_queued(net, lambda p: True)
    if not ports:
        return None
    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(8, 4))
    for p in ports[:top]:
        ax.plot(*_steps(p.stats.qdepth_flat), label=p.name, linewidth=1)
    return _save_depth_plot(plt, fig, ax, path, "Egress queue depth")


def plot_queue_classes(net: Any, path: Path, top: int = 4) -> Path | None:
    """Per-queue depth (packets) over time on the ``top`` multi-queue ports that queued most
    (traffic classes, ``dataplane.net.devices.tclass``); None if no port has several queues."""
    ports = _ports_that_queued(net, lambda p: hasattr(p, "queue_metrics"))
    if not ports:
        return None
    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(8, 4))
    for p in ports[:top]:
        for qid, st in enumerate(p.queue.stats):
            if st.max_qdepth:
                ax.plot(*_steps(st.qdepth_flat), label=f"{p.name} q{qid}", linewidth=1)
    return _save_depth_plot(plt, fig, ax, path, "Egress queue depth per traffic class")


def _ports_that_queued(net: Any, keep: Any) -> list[Any]:
    """Switch ports that ``keep`` accepts and that queued at all, deepest first (then by name)."""
    ports = [p for n in list(net.switches.values()) for p in n.ports.values() if keep(p) and p.stats.max_qdepth > 0]
    ports.sort(key=lambda p: (-p.stats.max_qdepth, p.name))
    return ports


def _steps(flat: Any) -> tuple[list[float], list[int]]:
    """A depth record (time ns, depth, time ns, depth, ...) as a step line in µs: each change
    drawn as a vertical jump from the depth before it, starting from an empty queue."""
    xs: list[float] = []
    ys: list[int] = []
    last = 0
    for t, d in zip(flat[0::2], flat[1::2]):
        xs += [t / 1000, t / 1000]
        ys += [last, d]
        last = d
    return xs, ys


def _save_depth_plot(plt: Any, fig: Any, ax: Any, path: Path, title: str) -> Path:
    ax.set_xlabel("time (µs)")
    ax.set_ylabel("queue depth (packets)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def throughput_lines(series: dict[str, list[tuple[int, float]]], max_lines: int = 12) -> list[tuple[str, list]]:
    """The labelled lines of the throughput plot: every flow when there are at most ``max_lines``,
    else the busiest ``max_lines - 1`` and one line for the mean of the others, so that every line
    drawn is in the legend."""
    from dataplane.natural_order import natural_sorted

    flows = [(name, pts) for name, pts in natural_sorted(series.items()) if pts]
    if len(flows) <= max_lines:
        return flows
    flows.sort(key=lambda kv: -sum(g for _, g in kv[1]))
    shown, rest = flows[:max_lines - 1], flows[max_lines - 1:]
    total: dict[int, float] = {}
    for _, pts in rest:
        for t, g in pts:
            total[t] = total.get(t, 0.0) + g
    mean = [(t, g / len(rest)) for t, g in sorted(total.items())]
    return [*natural_sorted(shown), (f"mean of the other {len(rest)} flows", mean)]


def plot_throughput(series: dict[str, list[tuple[int, float]]], path: Path, max_lines: int = 12) -> Path | None:
    """Throughput (Gb/s) over time, one line per flow (see ``throughput_lines``); ``series`` maps a
    flow name to (time ns, Gb/s)."""
    if not any(series.values()):
        return None
    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(8, 4))
    for name, points in throughput_lines(series, max_lines):
        ax.plot([t / 1000 for t, _ in points], [g for _, g in points], label=name, linewidth=1)
    ax.set_xlabel("time (µs)")
    ax.set_ylabel("throughput (Gb/s)")
    ax.set_title("Throughput per flow")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
