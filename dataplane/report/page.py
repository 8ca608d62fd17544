"""The report page: one HTML file from the report data (``collect.report_data``), with its CSS
and hover script inline, so it opens from a file:// URL with no network.

Every run gets the same sections, each a ``<section class="NAME">`` (``SECTIONS``); a section
without data says so instead of being left out.
"""
from __future__ import annotations

from html import escape
from typing import Any

from dataplane.natural_order import natural_sorted
from dataplane.report.charts import cdf_chart, line_chart
from dataplane.report.page_assets import SCRIPT, STYLE
from dataplane.report.telemetry import telemetry_section
from dataplane.report.topology import format_ns, topology_svg

#: the sections of every run, in page order: (class, heading)
SECTIONS = (("topology", "Topology"), ("timeseries", "Over time"), ("drops", "Drops by reason"),
            ("tables", "Tables and counters"), ("flows", "Hosts and flows"), ("telemetry", "In-band telemetry (INT)"),
            ("timeline", "Failures and reroutes"), ("provenance", "Provenance"))
TOP_PORTS = 20


def render(data: dict[str, Any]) -> str:
    """The whole page."""
    runs = data["runs"]
    title = data.get("title") or "dataplane run"
    nav = "".join(f'<li><a href="#run-{i + 1}">{escape(r.get("name") or f"run {i + 1}")}</a></li>'
                  for i, r in enumerate(runs))
    parts = [f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
             f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{STYLE}</style></head><body>',
             f'<header><h1>{escape(title)}</h1><p class="sub">{len(runs)} network{"s" if len(runs) != 1 else ""} '
             f'simulated; made by dataplane {escape(str(data["provenance"].get("dataplane", "")))}</p>']
    if len(runs) > 1:
        parts.append(f'<nav><ol>{nav}</ol></nav>')
    parts.append("</header>")
    if data.get("kind") == "scenario":
        parts.append(_results(data.get("results")))
        if data.get("figures"):
            from dataplane.report.figures import render_figures

            parts.append(render_figures(data["figures"]))
    if not runs:
        parts.append('<p class="none">This report holds no runs.</p>')
    for i, run in enumerate(runs):
        parts.append(_run(i + 1, run, data))
    parts.append(f'<div id="tip" hidden></div><script>{SCRIPT}</script></body></html>')
    return "".join(parts)


def _results(rows: list[dict[str, Any]] | None) -> str:
    """The scenario's result rows, turned: one row per measure, one column per result row (a
    scenario measures tens of things over a few runs), nested values as ``outer.inner``."""
    body = '<section class="results" id="results"><h2>Scenario results</h2>'
    if not rows:
        return body + '<p class="none">The scenario recorded no result rows.</p></section>'
    flat = [_flatten(row) for row in rows]
    keys: list[str] = []
    for row in flat:
        keys += [k for k in row if k not in keys]
    head = "<th>measure</th>" + "".join(f"<th>{escape(_label(row, i))}</th>" for i, row in enumerate(rows))
    lines = "".join(f"<tr><th scope=row>{escape(k)}</th>"
                    + "".join(f'<td class=num>{escape(_cell(row.get(k)))}</td>' for row in flat) + "</tr>"
                    for k in keys)
    return body + f'<div class="wide"><table class="results"><tr>{head}</tr>{lines}</table></div>' \
        + _utilisation_note(rows) + "</section>"


def _flatten(row: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in row.items():
        if isinstance(v, dict) and v:
            out.update(_flatten(v, f"{prefix}{k}."))
        elif isinstance(v, (list, dict)):
            out[prefix + k] = ", ".join(_cell(x) for x in v) if v else "none"
        else:
            out[prefix + k] = v
    return out


def _label(row: dict[str, Any], i: int) -> str:
    """A result row's column heading: what tells it apart (``mode ecn``), else its number."""
    from dataplane.report.scenario import NAME_KEYS

    label = ", ".join(f"{k} {row[k]}" for k in NAME_KEYS if row.get(k) is not None and not isinstance(row[k], dict))
    return label or f"row {i + 1}"


def _utilisation_note(rows: list[dict[str, Any]]) -> str:
    """Where rows give a port's utilisation, which port and window: the ports table's rule."""
    named = [r for r in rows if r.get("utilisation_port") and r.get("utilisation_to_ns") is not None]
    if not named:
        return ""
    windows = "; ".join(f'{escape(_label(r, rows.index(r)))}: {escape(r["utilisation_port"])} from '
                        f'{escape(format_ns(r["utilisation_from_ns"]))} to {escape(format_ns(r["utilisation_to_ns"]))}'
                        for r in named)
    return (f'<p class="note">utilisation: {UTILISATION_RULE} Here: {windows}; the same port in each run\'s '
            f'busiest-ports table reads the same.</p>')


def _cell(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _run(n: int, run: dict[str, Any], data: dict[str, Any]) -> str:
    name = run.get("name") or f"run {n}"
    out = [f'<article class="run" id="run-{n}"><h2>{escape(name)}</h2>'
           f'<p class="sub">simulated {format_ns(run.get("sim_time_ns", 0))}, {run.get("events", 0):,} events, '
           f'seed {escape(str(run.get("seed")))}</p>']
    markers = [(t, what) for t, what in run.get("timeline", [])]
    body = {"topology": lambda: topology_svg(run.get("topology") or {}) + _ports(run),
            "timeseries": lambda: _timeseries(n, run, markers),
            "drops": lambda: _drops(run), "tables": lambda: _tables(run), "flows": lambda: _flows(n, run),
            "telemetry": lambda: telemetry_section(n, run),
            "timeline": lambda: _timeline(run), "provenance": lambda: _provenance(run, data)}
    for cls, heading in SECTIONS:
        out.append(f'<section class="{cls}"><h3>{heading}</h3>{body[cls]()}</section>')
    out.append("</article>")
    return "".join(out)


def _table(head: list[str], rows: list[list[Any]], numeric_from: int = 1) -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(
        f'<td{" class=num" if i >= numeric_from else ""}>{escape(_cell(v))}</td>' for i, v in enumerate(r)) + "</tr>"
        for r in rows)
    return f'<div class="wide"><table><tr>{th}</tr>{trs}</table></div>'


#: how the page states the rule of every port utilisation it shows (``dataplane.report.wire``)
UTILISATION_RULE = ("the share of a port's window, from its first frame's arrival at the far end of its link to "
                    "its last's (each frame's end on the wire plus the link's latency), that the line spent sending "
                    "the frames after the first, in wire bytes (frames with the link's Ethernet overhead; pause "
                    "frames left out), so a port sending back to back reads 100 %; — where a port sent fewer than "
                    "two frames.")


def _ports(run: dict[str, Any]) -> str:
    ports = sorted(natural_sorted((run.get("ports") or {}).items()), key=lambda kv: -kv[1]["tx_bytes"])
    if not ports:
        return '<p class="none">No ports.</p>'
    head = ["port", "tx packets", "tx bytes (frames)", "rx packets", "utilisation", "window", "tail drops (packets)",
            "lost on wire (packets)", "max queue (packets)", "pause frames sent"]
    util = run.get("utilisation") or {}
    rows = [[name, m["tx_packets"], m["tx_bytes"], m["rx_packets"], _percent((util.get(name) or [None, None])[1]),
             _window((util.get(name) or [None, None])[0]), m["drops"], m["lost"], m["max_qdepth"], m.get("pause_tx", 0)]
            for name, m in ports]
    out = "<h4>Busiest ports</h4>" + _table(head, rows[:TOP_PORTS])
    if len(rows) > TOP_PORTS:
        out += (f'<details><summary>{len(rows) - TOP_PORTS} more ports, less busy</summary>'
                f'{_table(head, rows[TOP_PORTS:])}</details>')
    return out + f'<p class="note">utilisation: {UTILISATION_RULE}</p>'


def _percent(u: float | None) -> str | None:
    return None if u is None else f"{u * 100:.1f} %"


def _window(w: list[int] | None) -> str | None:
    return None if not w else f"{format_ns(w[0])} – {format_ns(w[1])}"


def _timeseries(n: int, run: dict[str, Any], markers: list) -> str:
    s = run.get("series") or {}
    t = s.get("t_ns") or []
    window = run.get("window_ns")

    def per_port(key: str) -> list:
        return [(name, t, values) for name, values in s.get(key) or []]

    def total(name: str, key: str) -> list:
        values = s.get(key) or []
        return [(name, t, values)] if any(values) else []

    def chart(key: str, title: str, lines: list, y_label: str, **kw: Any) -> str:
        return line_chart(f"r{n}-{key}", title, lines, y_label, markers=markers, x_range=window, **kw)

    drops = [(f"queue full: {name}", t, v) for name, t, v in per_port("drops")]
    drops += total("P4 program drops (all nodes)", "program_drops")
    drops += [(f"lost on the wire: {name}", t, v) for name, t, v in per_port("lost")]
    flows = [(name, [p[0] for p in pts], [p[1] for p in pts]) for name, pts in s.get("flows") or []]
    what = s.get("flows_what")
    charts = [
        chart("queue", "Queue depth per port (the busiest, peak per interval)", per_port("queue"), "packets", step=True),
        chart("queues", "Queue depth per traffic class (the busiest queues, peak per interval)",
              per_port("queue_classes"), "packets", step=True,
              empty_note=" (no port has traffic classes: give a switch or host queues: in the topology)"),
        chart("throughput", "Throughput per port (the busiest, transmitted frame bytes)", per_port("throughput_gbps"),
              "Gb/s"),
        chart("flows", "Throughput per flow (received)", flows, "Gb/s", note=f"Counted: {what}." if what else "",
              empty_note=f" (counted: {what})" if what else ""),
        chart("ecn", "ECN: CE-marked packets received by hosts, per interval", total("CE-marked packets", "ecn"),
              "packets", step=True),
        chart("pfc", "PFC: pause frames sent per interval", per_port("pfc"), "frames", step=True),
        chart("drops", "Drops per interval", drops, "packets", step=True),
    ]
    return _window_note(run) + "".join(charts)


def _window_note(run: dict[str, Any]) -> str:
    """Which stretch of the simulated time the charts show, and why."""
    window, end = run.get("window_ns"), run.get("sim_time_ns", 0)
    if "window_ns" not in run:      # report data from before the report kept the window
        return f'<p class="window">The charts span the whole simulated time ({escape(format_ns(end))}).</p>'
    if not window:
        return (f'<p class="window">The charts span the whole simulated time ({escape(format_ns(end))}): '
                'no frame was sent and nothing failed.</p>')
    return (f'<p class="window">The charts show {escape(format_ns(window[0]))} to {escape(format_ns(window[1]))} of '
            f'the {escape(format_ns(end))} simulated: from the first frame sent to the last frame\'s arrival, '
            'with every failure, recovery and reroute in between (each point ends its interval).</p>')


def _drops(run: dict[str, Any]) -> str:
    drops = run.get("drops") or {}
    if not drops:
        return '<p class="none">No packet was dropped or lost in this run.</p>'
    rows = [[node, reason, n] for node, reasons in drops.items() for reason, n in reasons.items()]
    return _table(["node", "reason", "packets"], rows, numeric_from=2)


def _tables(run: dict[str, Any]) -> str:
    tables = run.get("tables") or {}
    if not tables:
        return '<p class="none">No node in this run runs a P4 program.</p>'
    rows = []
    for node, per in tables.items():
        for name, m in per.items():
            rows.append([node, name, m["entries"], m["hits"], m["misses"], m["default"]])
    out = _table(["node", "table", "entries", "hits", "misses", "default action"], rows, numeric_from=2) if rows else \
        '<p class="none">The programs have no tables.</p>'
    counters = [[node, name, v[0], v[1]] for node, per in (run.get("counters") or {}).items() for name, v in per.items()]
    out += "<h4>Counters</h4>" + (_table(["node", "counter", "packets", "bytes"], counters, numeric_from=2) if counters
                                  else '<p class="none">The programs have no counters.</p>')
    return out


def _flows(n: int, run: dict[str, Any]) -> str:
    hosts = run.get("hosts") or {}
    out = ""
    if hosts:
        frames = any("frames_in" in m for m in hosts.values())
        rows = [[h, m.get("sent"), m.get("delivered"), m.get("lost"), m.get("received")] + ([m.get("frames_in")] if frames else [])
                for h, m in natural_sorted(hosts.items())]
        out += _table(["host", "sent (packets)", "delivered (packets)", "lost (packets)", "received (packets)"]
                      + (["frames in (all, packets)"] if frames else []), rows)
        out += ('<p class="note">sent: what the host\'s apps sent; delivered: those that reached their destination '
                '(a ping: its reply came back); lost: the rest; received: IP packets that arrived at the host. '
                '— where the run does not know.</p>')
    else:
        out += '<p class="none">No hosts.</p>'
    flows = run.get("flows") or {}
    fct = flows.get("fct_ns")
    if fct is None:
        out += '<p class="none">Completion times: not recorded for this kind of run.</p>'
    else:
        out += cdf_chart(f"r{n}-fct", f"Completion times ({len(fct)} flows completed)", fct, flows.get("what", ""))
    return out


def _timeline(run: dict[str, Any]) -> str:
    events = run.get("timeline") or []
    if not events:
        return '<p class="none">No link or node failed or recovered in this run.</p>'
    items = "".join(f'<li><time>{escape(format_ns(t))}</time> {escape(what)}</li>' for t, what in events)
    return f'<ol class="events">{items}</ol>'


def _provenance(run: dict[str, Any], data: dict[str, Any]) -> str:
    prov = data.get("provenance") or {}
    rows = [["command", prov.get("command", "")], ["dataplane", prov.get("dataplane", "")],
            ["python", prov.get("python", "")], ["seed", run.get("seed")]]
    rows += [[k, v] for k, v in sorted((prov.get("options") or {}).items())]
    out = _table(["", ""], rows, numeric_from=9)
    progs = run.get("programs") or []
    if progs:
        out += "<h4>Programs and entries</h4>" + _table(
            ["node", "program", "SHA-256", "entries file", "SHA-256", "entries installed"],
            [[p["node"], p["program"], (p["program_sha256"] or "")[:16], p["entries"] or "—",
              (p["entries_sha256"] or "")[:16] or "—", p["entries_installed"]] for p in progs], numeric_from=5)
    else:
        out += '<p class="none">No programs.</p>'
    return out
