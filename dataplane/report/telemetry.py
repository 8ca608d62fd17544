"""The report's in-band telemetry section: what an INT collector recorded (a run's ``"int"``,
``IntCollector.summary``), per flow a table of its hops and their latency and queue over time."""
from __future__ import annotations

from html import escape
from typing import Any

from dataplane.report.charts import line_chart
from dataplane.report.topology import format_ns

MAX_FLOWS = 8          # flows drawn; the rest listed in their table only


def telemetry_section(n: int, run: dict[str, Any]) -> str:
    """The section's body for run ``n``: a note when the run collected no INT."""
    data = run.get("int")
    if not data:
        return ('<p class="none">No in-band telemetry in this run (INT runs on switches with '
                'programs/int.p4 and a collector: <code>dataplane run --int HOST</code>).</p>')
    flows = data.get("flows") or []
    head = (f'<p class="note">Collector {escape(str(data.get("collector")))} (UDP {data.get("port")}): '
            f'{data.get("reports", 0):,} reports, {data.get("records", 0):,} hop records, '
            f'{data.get("bad_reports", 0):,} unreadable, {data.get("lost_reports", 0):,} missing by sequence number. '
            'Hop latency: from the packet\'s arrival at the switch to its leaving the egress queue; queue: the bytes '
            'waiting in that queue as it left.</p>')
    if not flows:
        return head + '<p class="none">No report reached the collector.</p>'
    rows = []
    for f in flows:
        for h in f["hops"]:
            lat, q = h.get("latency_ns") or {}, h.get("queue_bytes") or {}
            rows.append([f["flow"], h["hop"], h.get("node"), _ports(h), h["records"], _ns(lat.get("mean")),
                         _ns(lat.get("p99")), _ns(lat.get("max")), q.get("mean"), q.get("max")])
    out = [head, _table(["flow", "hop", "node", "ports", "records", "latency mean", "latency p99", "latency max",
                         "queue mean (bytes)", "queue max (bytes)"], rows)]
    for i, f in enumerate(flows[:MAX_FLOWS]):
        lat_lines, q_lines = [], []
        for h in f["hops"]:
            pts = h.get("series") or []
            name = f'{h["hop"]}: {h.get("node")}'
            lat_lines.append((name, [p[0] for p in pts if p[1] >= 0], [p[1] for p in pts if p[1] >= 0]))
            q_lines.append((name, [p[0] for p in pts if p[2] >= 0], [p[2] for p in pts if p[2] >= 0]))
        out.append(line_chart(f"r{n}-int{i}-latency", f"Hop latency, {f['flow']}", lat_lines, "ns",
                              x_label="egress timestamp"))
        out.append(line_chart(f"r{n}-int{i}-queue", f"Queue at each hop, {f['flow']}", q_lines, "bytes",
                              x_label="egress timestamp", step=True))
    if len(flows) > MAX_FLOWS:
        out.append(f'<p class="note">{len(flows) - MAX_FLOWS} more flows in the table only.</p>')
    return "".join(out)


def _ports(h: dict[str, Any]) -> str | None:
    if h.get("ingress_port") is None:
        return None
    return f'{h["ingress_port"]} → {h["egress_port"]}'


def _ns(v: float | None) -> str | None:
    return None if v is None else format_ns(v)


def _table(head: list[str], rows: list[list[Any]]) -> str:
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(f'<td{" class=num" if i >= 1 else ""}>{escape("—" if v is None else str(v))}</td>'
                                   for i, v in enumerate(r)) + "</tr>" for r in rows)
    return f'<div class="wide"><table><tr>{th}</tr>{trs}</table></div>'
