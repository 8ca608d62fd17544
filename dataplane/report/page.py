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
from dataplane.report.topology import format_ns, topology_svg

#: the sections of every run, in page order: (class, heading)
SECTIONS = (("topology", "Topology"), ("timeseries", "Over time"), ("drops", "Drops by reason"),
            ("tables", "Tables and counters"), ("flows", "Hosts and flows"), ("timeline", "Failures and reroutes"),
            ("provenance", "Provenance"))
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
    if not runs:
        parts.append('<p class="none">This report holds no runs.</p>')
    for i, run in enumerate(runs):
        parts.append(_run(i + 1, run, data))
    parts.append(f'<div id="tip" hidden></div><script>{SCRIPT}</script></body></html>')
    return "".join(parts)


def _results(rows: list[dict[str, Any]] | None) -> str:
    body = '<section class="results" id="results"><h2>Scenario results</h2>'
    if not rows:
        return body + '<p class="none">The scenario recorded no result rows (they are kept with --out).</p></section>'
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys and not isinstance(row[k], (dict, list))]
    head = "".join(f"<th>{escape(k)}</th>" for k in keys)
    lines = "".join("<tr>" + "".join(f"<td>{escape(_cell(row.get(k)))}</td>" for k in keys) + "</tr>" for row in rows)
    return body + f'<div class="wide"><table><tr>{head}</tr>{lines}</table></div></section>'


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


def _ports(run: dict[str, Any]) -> str:
    ports = sorted(natural_sorted((run.get("ports") or {}).items()), key=lambda kv: -kv[1]["tx_bytes"])
    if not ports:
        return '<p class="none">No ports.</p>'
    rows = [[name, m["tx_packets"], m["tx_bytes"], m["rx_packets"], f'{m["utilisation"] * 100:.1f} %', m["drops"],
             m["lost"], m["max_qdepth"], m.get("pause_tx", 0)] for name, m in ports[:TOP_PORTS]]
    more = len(ports) - TOP_PORTS
    note = f'<p class="note">{more} more ports, less busy, are in summary.json and ports.csv.</p>' if more > 0 else ""
    # tx bytes are frames as captured; utilisation is line time, so it counts wire bytes (the
    # link's Ethernet overhead too): a port sending back to back reads 100 % at any frame size.
    return ("<h4>Busiest ports</h4>" + _table(["port", "tx packets", "tx bytes (frames)", "rx packets",
                                                  "utilisation (wire)",
                                                  "tail drops (packets)", "lost on wire (packets)",
                                                  "max queue (packets)", "pause frames sent"], rows) + note)


def _timeseries(n: int, run: dict[str, Any], markers: list) -> str:
    s = run.get("series") or {}
    t = s.get("t_ns") or []

    def per_port(key: str) -> list:
        return [(name, t, values) for name, values in s.get(key) or []]

    def total(name: str, key: str) -> list:
        values = s.get(key) or []
        return [(name, t, values)] if any(values) else []

    drops = [(f"queue full: {name}", t, v) for name, t, v in per_port("drops")]
    drops += total("P4 program drops (all nodes)", "program_drops")
    drops += [(f"lost on the wire: {name}", t, v) for name, t, v in per_port("lost")]
    flows = [(name, [p[0] for p in pts], [p[1] for p in pts]) for name, pts in s.get("flows") or []]
    charts = [
        line_chart(f"r{n}-queue", "Queue depth per port (the busiest, peak per interval)", per_port("queue"),
                   "packets", step=True, markers=markers),
        line_chart(f"r{n}-queues", "Queue depth per traffic class (the busiest queues, peak per interval)",
                   per_port("queue_classes"), "packets", step=True, markers=markers,
                   empty_note=" (no port has traffic classes: give a switch or host queues: in the topology)"),
        line_chart(f"r{n}-throughput", "Throughput per port (the busiest, transmitted frame bytes)", per_port("throughput_gbps"),
                   "Gb/s", markers=markers),
        line_chart(f"r{n}-flows", "Throughput per flow (received)", flows, "Gb/s", markers=markers,
                   empty_note=" (followed per flow: the UDP flows of dataplane run's traffic)"),
        line_chart(f"r{n}-ecn", "ECN: CE-marked packets received by hosts, per interval",
                   total("CE-marked packets", "ecn"), "packets", step=True, markers=markers),
        line_chart(f"r{n}-pfc", "PFC: pause frames sent per interval", per_port("pfc"), "frames", step=True,
                   markers=markers),
        line_chart(f"r{n}-drops", "Drops per interval", drops, "packets", step=True, markers=markers),
    ]
    return "".join(charts)


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
