"""SVG charts for the report: line charts with a hover read-out and a CDF.

Each chart is an ``<svg class="chart">`` whose ``data-chart`` attribute holds its points as
JSON; the page's script (``page.SCRIPT``) reads it to show the values under the pointer.
"""
from __future__ import annotations

import json
import math
from html import escape
from typing import Sequence

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
W, H = 760, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 14, 40
MAX_POINTS = 500

Series = tuple[str, Sequence[float], Sequence[float]]   # name, xs, ys


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round tick values covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    step = 10 ** math.floor(math.log10((hi - lo) / n))
    for m in (1, 2, 2.5, 5, 10):
        if (hi - lo) / (step * m) <= n:
            step *= m
            break
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def time_unit(max_ns: float) -> tuple[str, float]:
    """The unit to show times up to ``max_ns`` in, and its size in ns."""
    if max_ns >= 5e8:
        return "s", 1e9
    if max_ns >= 5e5:
        return "ms", 1e6
    if max_ns >= 5e2:
        return "µs", 1e3
    return "ns", 1.0


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1e6 or abs(v) < 1e-3:
        return f"{v:.3g}"
    return f"{v:.6g}"


def thin(xs: Sequence[float], ys: Sequence[float], limit: int = MAX_POINTS) -> tuple[list, list]:
    """At most ``limit`` points, keeping each stretch's largest value (a peak stays visible)."""
    n = len(xs)
    if n <= limit:
        return list(xs), list(ys)
    k = math.ceil(n / limit)
    ox, oy = [], []
    for i in range(0, n, k):
        j = max(range(i, min(i + k, n)), key=lambda m: ys[m])
        ox.append(xs[j])
        oy.append(ys[j])
    return ox, oy


def line_chart(chart_id: str, title: str, series: list[Series], y_label: str, *, x_label: str = "time",
               x_is_time: bool = True, step: bool = False, markers: Sequence[tuple[float, str]] = (),
               y_max: float | None = None, note: str = "", empty_note: str = "",
               x_range: Sequence[float] | None = None) -> str:
    """A line chart (``step``: drawn as steps, for per-interval counts and depths); ``markers``
    are vertical lines at (x, label), e.g. failures. The x axis spans ``x_range`` (the data
    and markers reaching past it widen it), else the data and markers. Empty series make a
    'no data' note."""
    series = [(n, *thin(xs, ys)) for n, xs, ys in series if len(xs)]
    if not series:
        return f'<p class="none" data-chart-id="{escape(chart_id)}">{escape(title)}: no data in this run{escape(empty_note)}.</p>'
    all_x = [x for _, xs, _ in series for x in xs] + [m[0] for m in markers] + list(x_range or ())
    x_lo, x_hi = min(all_x), max(all_x)
    if x_hi <= x_lo:
        x_hi = x_lo + 1
    y_hi = y_max if y_max is not None else max(max(ys) for _, _, ys in series)
    y_hi = y_hi if y_hi > 0 else 1
    unit, scale = time_unit(x_hi) if x_is_time else ("", 1.0)
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x_lo) / (x_hi - x_lo) * pw

    def py(y: float) -> float:
        return TOP + ph - y / y_hi * ph

    out = [f'<figure class="chartbox"><figcaption>{escape(title)}</figcaption>'
           f'<svg class="chart" id="{escape(chart_id)}" viewBox="0 0 {W} {H}" xmlns="http://www.w3.org/2000/svg" '
           f'data-chart="{escape(json.dumps(_payload(series, x_lo, x_hi, y_hi, unit, scale, y_label, step), separators=(",", ":")))}">']
    for t in nice_ticks(0, y_hi):
        if t > y_hi:
            continue
        out.append(f'<line class="grid" x1="{LEFT}" x2="{W - RIGHT}" y1="{py(t):.1f}" y2="{py(t):.1f}"/>'
                   f'<text class="tick" x="{LEFT - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    for t in nice_ticks(x_lo / scale, x_hi / scale, 8):
        x = px(t * scale)
        if LEFT - 0.5 <= x <= W - RIGHT + 0.5:
            out.append(f'<text class="tick" x="{x:.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{_fmt(t)}</text>')
    out.append(f'<line class="axis" x1="{LEFT}" x2="{W - RIGHT}" y1="{TOP + ph}" y2="{TOP + ph}"/>'
               f'<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + ph}"/>'
               f'<text class="label" x="{LEFT + pw / 2:.0f}" y="{H - 6}" text-anchor="middle">'
               f'{escape(x_label)}{f" ({unit})" if unit else ""}</text>'
               f'<text class="label" transform="translate(14 {TOP + ph / 2:.0f}) rotate(-90)" text-anchor="middle">'
               f'{escape(y_label)}</text>')
    for x, label in markers:
        out.append(f'<g class="marker"><title>{escape(label)}</title><line x1="{px(x):.1f}" x2="{px(x):.1f}" '
                   f'y1="{TOP}" y2="{TOP + ph}"/></g>')
    for i, (name, xs, ys) in enumerate(series):
        pts = []
        for j, (x, y) in enumerate(zip(xs, ys)):
            if step and j:
                pts.append(f"{px(x):.1f},{py(ys[j - 1]):.1f}")
            pts.append(f"{px(x):.1f},{py(y):.1f}")
        colour = PALETTE[i % len(PALETTE)]
        if len(xs) == 1:   # one point draws no line
            out.append(f'<circle cx="{px(xs[0]):.1f}" cy="{py(ys[0]):.1f}" r="3" fill="{colour}"/>')
        out.append(f'<polyline class="line" fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(pts)}">'
                   f'<title>{escape(name)}</title></polyline>')
    out.append(f'<line class="cursor" x1="0" x2="0" y1="{TOP}" y2="{TOP + ph}" visibility="hidden"/></svg>')
    out.append('<div class="keys">' + "".join(
        f'<span><i style="background:{PALETTE[i % len(PALETTE)]}"></i>{escape(n)}</span>'
        for i, (n, _, _) in enumerate(series)) + "</div>")
    if note:
        out.append(f'<p class="note">{escape(note)}</p>')
    out.append("</figure>")
    return "".join(out)


def _payload(series, x_lo, x_hi, y_hi, unit, scale, y_label, step) -> dict:
    """What the hover script needs: the plot box, scales and every series' points."""
    return {"box": [LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM], "x": [x_lo, x_hi], "y": y_hi,
            "unit": unit, "scale": scale, "ylabel": y_label, "step": step,
            "series": [{"name": n, "colour": PALETTE[i % len(PALETTE)], "x": list(xs), "y": list(ys)}
                       for i, (n, xs, ys) in enumerate(series)]}


def cdf_chart(chart_id: str, title: str, values_ns: Sequence[int], what: str) -> str:
    """The empirical CDF of completion times (ns), with hover."""
    if not values_ns:
        return f'<p class="none" data-chart-id="{escape(chart_id)}">{escape(title)}: no completed flows in this run.</p>'
    ordered = sorted(values_ns)
    n = len(ordered)
    xs = [float(v) for v in ordered]
    ys = [(i + 1) / n for i in range(n)]
    if n > MAX_POINTS:   # evenly spaced quantiles, the last one kept
        idx = sorted({min(n - 1, round(k * (n - 1) / (MAX_POINTS - 1))) for k in range(MAX_POINTS)})
        xs, ys = [xs[i] for i in idx], [ys[i] for i in idx]
    return line_chart(chart_id, title, [(what or "flows", xs, ys)], "fraction of flows", x_label="completion time",
                      step=True, y_max=1.0)
