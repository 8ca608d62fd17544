"""The topology as SVG: hosts on the bottom row, switches and DPUs in rows above by their hop
distance from the hosts; links coloured by utilisation, failed links dashed and marked.
Every node and link has a ``<title>`` (the browser's tooltip) with its figures."""
from __future__ import annotations

from collections import Counter
from html import escape
from typing import Any

from dataplane.natural_order import natural_key

KIND_COLOUR = {"switch": "#3b6ea8", "dpu": "#8a4fb0", "host": "#4a8a4a"}
FAILED = "#d62728"
ROW_HEIGHT = 110
MARGIN = 40


def utilisation_colour(u: float) -> str:
    """Grey when idle, then green (low) through yellow to red (saturated)."""
    if u <= 0:
        return "#b0b0b0"
    u = min(u, 1.0)
    if u < 0.5:
        r, g = int(60 + 390 * u), 170
    else:
        r, g = 255, int(170 - 300 * (u - 0.5))
    return f"#{min(r, 255):02x}{max(g, 0):02x}30"


def format_rate(bps: float) -> str:
    for unit, scale in (("Tb/s", 1e12), ("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= scale:
            return f"{bps / scale:g} {unit}"
    return f"{bps:g} b/s"


def format_ns(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.4g} {unit}"
    return f"{ns:.4g} ns"


def layout(topo: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Node name -> (x, y): rows by hop distance from the hosts, each row ordered by the mean
    position of its neighbours in the row below (fewer crossings than alphabetical order)."""
    kinds = {n["name"]: n["kind"] for n in topo["nodes"]}
    adj: dict[str, list[str]] = {n: [] for n in kinds}
    for link in topo["links"]:
        if link["a"] in adj and link["b"] in adj:
            adj[link["a"]].append(link["b"])
            adj[link["b"]].append(link["a"])
    level = {n: 0 for n, k in kinds.items() if k == "host"}
    if not level:   # no hosts: start from the nodes with fewest links
        fewest = min((len(v) for v in adj.values()), default=0)
        level = {n: 0 for n, v in adj.items() if len(v) == fewest}
    frontier = sorted(level, key=natural_key)
    while frontier:
        nxt = []
        for n in frontier:
            for m in adj[n]:
                if m not in level:
                    level[m] = level[n] + 1
                    nxt.append(m)
        frontier = nxt
    top = max(level.values(), default=0)
    for n in kinds:   # unconnected nodes: a row of their own on top
        level.setdefault(n, top + 1)
    rows: dict[int, list[str]] = {}
    for n in sorted(kinds, key=natural_key):
        rows.setdefault(level[n], []).append(n)
    width = max(len(r) for r in rows.values()) if rows else 1
    # the widest row fits the page's 1100 px without scaling; every row spreads over that width
    spacing = max(9.0, min(120.0, (1100.0 - 2 * MARGIN) / max(width, 1)))
    span = spacing * width
    pos: dict[str, tuple[float, float]] = {}
    height = (max(rows) if rows else 0) * ROW_HEIGHT
    for lvl in sorted(rows):
        names = rows[lvl]
        if lvl > 0:
            def centre(n: str) -> float:
                below = [pos[m][0] for m in adj[n] if m in pos]
                return sum(below) / len(below) if below else float("inf")
            names = sorted(names, key=lambda n: (centre(n), natural_key(n)))
        step = span / len(names)
        for i, n in enumerate(names):
            pos[n] = (MARGIN + (i + 0.5) * step, MARGIN + height - lvl * ROW_HEIGHT)
    return pos


def topology_svg(topo: dict[str, Any]) -> str:
    """The SVG drawing of ``topo`` (report data's ``topology``), or a note when it has no nodes."""
    if not topo.get("nodes"):
        return '<p class="none">No topology was recorded for this run.</p>'
    pos = layout(topo)
    kinds = {n["name"]: n["kind"] for n in topo["nodes"]}
    width = max(x for x, _ in pos.values()) + MARGIN
    height = max(y for _, y in pos.values()) + MARGIN + 10
    label_links = len(topo["links"]) <= 24
    small = len(pos) > 60 or max(Counter(y for _, y in pos.values()).values()) > 24
    out = [f'<svg class="topology" viewBox="0 0 {width:.0f} {height:.0f}" width="{min(width, 1100):.0f}" '
           f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="topology {escape(topo.get("name") or "")}">']
    for link in topo["links"]:
        (x1, y1), (x2, y2) = pos[link["a"]], pos[link["b"]]
        colour = FAILED if link["failed"] else utilisation_colour(link["utilisation"])
        state = ("down at the end" if not link["up"] else "failed, then restored") if link["failed"] else "up"
        title = (f'{link["a_port"]} ↔ {link["b_port"]}: {format_rate(link["rate_bps"])}, '
                 f'{format_ns(link["latency_ns"])}, utilisation {link["utilisation"] * 100:.1f} % '
                 f'(the busier direction, over its window: see the ports table), {state}')
        dash = ' stroke-dasharray="6 4"' if link["failed"] else ""
        width_px = 1.5 + 3.5 * min(link["utilisation"], 1.0)
        out.append(f'<g class="link{" failed" if link["failed"] else ""}"><title>{escape(title)}</title>'
                   f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
                   f'stroke-width="{width_px:.1f}"{dash}/>')
        # marks a third of the way up from the lower end: crossing links keep their labels apart
        (lx, ly), (ux, uy) = ((x1, y1), (x2, y2)) if y1 >= y2 else ((x2, y2), (x1, y1))
        mx, my = lx + (ux - lx) / 3, ly + (uy - ly) / 3
        if link["failed"]:
            out.append(f'<text x="{mx:.1f}" y="{my + 5:.1f}" class="cross" text-anchor="middle" fill="{FAILED}">✕</text>')
        elif label_links:
            out.append(f'<text x="{mx + 4:.1f}" y="{my:.1f}" class="linklabel">{escape(format_rate(link["rate_bps"]))} '
                       f'{escape(format_ns(link["latency_ns"]))}</text>')
        out.append("</g>")
    row = max(Counter(y for _, y in pos.values()).values())
    r = max(3, min(11, int((width - 2 * MARGIN) / row * 0.35)))
    for name, (x, y) in pos.items():
        kind = kinds[name]
        colour = KIND_COLOUR.get(kind, "#777")
        out.append(f'<g class="node {kind}" data-node="{escape(name)}"><title>{escape(f"{kind} {name}")}</title>')
        if kind == "host":
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{colour}"/>')
        elif kind == "dpu":
            out.append(f'<polygon points="{x:.1f},{y - r - 3:.1f} {x + r + 3:.1f},{y:.1f} {x:.1f},{y + r + 3:.1f} '
                       f'{x - r - 3:.1f},{y:.1f}" fill="{colour}"/>')
        else:
            out.append(f'<rect x="{x - r - 6:.1f}" y="{y - r:.1f}" width="{2 * r + 12}" height="{2 * r}" rx="3" fill="{colour}"/>')
        if not small or kind != "host":
            out.append(f'<text x="{x:.1f}" y="{y + r + 14:.1f}" text-anchor="middle" class="nodelabel">{escape(name)}</text>')
        out.append("</g>")
    out.append("</svg>")
    legend = ('<div class="legend">'
              + "".join(f'<span><i style="background:{c}"></i>{k}</span>' for k, c in KIND_COLOUR.items())
              + "".join(f'<span><i style="background:{utilisation_colour(u)}"></i>{label}</span>'
                        for u, label in ((0, "idle link"), (0.2, "20 % used"), (0.6, "60 %"), (1.0, "100 %")))
              + f'<span><i style="background:{FAILED}"></i>failed link (dashed, ✕)</span></div>')
    return "".join(out) + legend
