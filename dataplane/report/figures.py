"""A scenario's own figures on the report page, from what its ``results.json`` says to draw.

``figures`` is a list of ``{"kind": "line", "title", "x_label", "y_label", "note", "series":
[{"name", "x", "y"}]}`` (a line chart over any x: the collective command's busbw against
log2 of the size, with its bound) and ``{"kind": "timeline", "title", "rows": [{"name",
"spans": [[start ns, end ns, kind], ...]}]}`` (one bar of coloured spans per row: the training
scenario's GPUs, compute and waits, idle left blank).
"""
from __future__ import annotations

from html import escape
from typing import Any

from dataplane.report.charts import PALETTE, line_chart

__all__ = ["render_figures", "timeline_svg"]

ROW_H, LEFT, RIGHT, WIDTH = 14, 70, 16, 900


def render_figures(figures: list[dict[str, Any]]) -> str:
    parts = ['<section class="figures" id="figures"><h2>Scenario figures</h2>']
    for i, fig in enumerate(figures):
        if not isinstance(fig, dict):
            continue
        if fig.get("kind") == "line":
            series = [(str(s.get("name", "")), list(s.get("x", [])), list(s.get("y", [])))
                      for s in fig.get("series", []) if isinstance(s, dict)]
            parts.append(line_chart(f"figure-{i}", str(fig.get("title", "")), series, str(fig.get("y_label", "")),
                                    x_label=str(fig.get("x_label", "")), x_is_time=False, note=str(fig.get("note", ""))))
        elif fig.get("kind") == "timeline":
            parts.append(timeline_svg(f"figure-{i}", str(fig.get("title", "")), fig.get("rows", [])))
    return "".join(parts) + "</section>"


def timeline_svg(chart_id: str, title: str, rows: list[dict[str, Any]]) -> str:
    """One bar per row, its spans coloured by kind (a key below); the x axis in ms."""
    rows = [r for r in rows if isinstance(r, dict)]
    ends = [s[1] for r in rows for s in r.get("spans", [])]
    if not ends:
        return f'<p class="none">{escape(title)}: nothing recorded.</p>'
    end = max(ends) or 1
    kinds: list[str] = []
    for r in rows:
        for span in r.get("spans", []):
            if span[2] not in kinds:
                kinds.append(span[2])
    colour = {k: PALETTE[i % len(PALETTE)] for i, k in enumerate(kinds)}
    height = ROW_H * len(rows) + 30
    scale = (WIDTH - LEFT - RIGHT) / end
    out = [f'<figure class="chartbox"><figcaption>{escape(title)}</figcaption>'
           f'<svg class="timeline" id="{escape(chart_id)}" viewBox="0 0 {WIDTH} {height}" '
           f'xmlns="http://www.w3.org/2000/svg">']
    for j, r in enumerate(rows):
        y = j * ROW_H + 4
        out.append(f'<text class="tick" x="{LEFT - 6}" y="{y + ROW_H - 4}" text-anchor="end">'
                   f'{escape(str(r.get("name", j)))}</text>')
        for s, e, kind in r.get("spans", []):
            out.append(f'<rect x="{LEFT + s * scale:.1f}" y="{y}" width="{max(0.5, (e - s) * scale):.1f}" '
                       f'height="{ROW_H - 3}" fill="{colour[kind]}"><title>{escape(kind)} {s / 1e6:.3f}-'
                       f'{e / 1e6:.3f} ms</title></rect>')
    axis_y = ROW_H * len(rows) + 8
    for t in range(6):
        x = LEFT + t * (WIDTH - LEFT - RIGHT) / 5
        out.append(f'<text class="tick" x="{x:.1f}" y="{axis_y + 14}" text-anchor="middle">'
                   f'{end * t / 5 / 1e6:.2f}</text>')
    out.append("</svg><div class=\"keys\">" + "".join(
        f'<span><i style="background:{colour[k]}"></i>{escape(k)}</span>' for k in kinds)
        + '<span>blank: idle</span><span>x: ms</span></div></figure>')
    return "".join(out)
