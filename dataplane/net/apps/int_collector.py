"""The INT collector: a host app that receives the telemetry reports of ``programs/int.p4``'s sinks
and keeps every hop of every report as a record.

A record is one hop of one reported packet: when the report arrived, the flow (inner source and
destination address and ports, the destination port the one the source saw, from the shim), the
hop's place on the path (0: the INT source, the first switch), and what the hop wrote (node id,
ingress and egress port, hop latency, queue id and bytes, ingress and egress timestamps, egress
tx bytes; -1 where the instructions did not ask for it). Records are kept in columns (``columns``)
up to ``max_records``; past it they are counted in ``stats["dropped_records"]``.

``summary()`` is what ``dataplane run --json`` prints under ``"int"``: per flow, per hop
(grouped by position, node and ports), the latency and queue statistics and a time series of
at most ``SERIES_POINTS`` points ``[egress timestamp ns, mean hop latency ns, max queue bytes]``
(binned in equal time slices when there are more records).
"""
from __future__ import annotations

from array import array
from typing import Any, Optional

from dataplane.net.hosts.packets import ip_str
from dataplane.net.telemetry.int_wire import REPORT_UDP_PORT, IntFormatError, parse_report

__all__ = ["IntCollector", "COLUMNS", "SERIES_POINTS", "format_summary"]

COLUMNS = ("time_ns", "flow", "hop", "node_id", "ingress_port", "egress_port", "hop_latency_ns", "queue_id",
           "queue_bytes", "ingress_ts_ns", "egress_ts_ns", "egress_tx_bytes")
SERIES_POINTS = 200
MAX_RECORDS = 2_000_000


class IntCollector:
    """Telemetry reports to ``port`` on ``host``, as per-hop records (module docstring).
    ``node_names`` names node ids (``IntDeployment.node_names``)."""

    def __init__(self, host: Any, port: int = REPORT_UDP_PORT, node_names: Optional[dict[int, str]] = None,
                 max_records: int = MAX_RECORDS):
        self.host, self.port = host, port
        self.node_names = dict(node_names or {})
        self.max_records = max_records
        self.columns: dict[str, array] = {name: array("q") for name in COLUMNS}
        self.flows: dict[tuple[int, int, int, int], int] = {}     # (src, sport, dst, dport) -> flow index
        self.flow_reports: list[int] = []
        self.stats: dict[str, Any] = {"reports": 0, "records": 0, "bad_reports": 0, "truncated_reports": 0, "dropped_records": 0,
                      "hop_count_exceeded": 0, "mtu_exceeded": 0, "last_error": None}
        self.last_seq: dict[int, int] = {}
        self.lost_reports = 0           # gaps in a switch's sequence numbers
        host.bind_udp(port, self._on_report)

    def _on_report(self, src_ip: int, src_port: int, payload: bytes, tos: int, time_ns: int) -> None:
        st = self.stats
        try:
            rep = parse_report(payload)
        except IntFormatError as err:
            st["bad_reports"] += 1
            st["last_error"] = str(err)
            return
        st["reports"] += 1
        prev = self.last_seq.get(rep.node_id)
        if prev is not None:
            self.lost_reports += (rep.seq - prev - 1) & 0x3FFFFF
        self.last_seq[rep.node_id] = rep.seq
        pkt = rep.int_packet
        st["truncated_reports"] += rep.truncated
        st["hop_count_exceeded"] += pkt.header.hop_count_exceeded
        st["mtu_exceeded"] += pkt.header.mtu_exceeded
        key = (rep.src_ip, rep.src_port, rep.dst_ip, rep.dst_port)
        flow = self.flows.get(key)
        if flow is None:
            flow = self.flows[key] = len(self.flows)
            self.flow_reports.append(0)
        self.flow_reports[flow] += 1
        hops = pkt.hops[::-1]         # the stack is newest first; records go in path order
        room = self.max_records - st["records"]
        if room < len(hops):
            st["dropped_records"] += len(hops) - max(room, 0)
            hops = hops[:max(room, 0)]
        cols = self.columns
        for i, h in enumerate(hops):
            for name, value in (("time_ns", time_ns), ("flow", flow), ("hop", i), ("node_id", h.node_id),
                                ("ingress_port", h.ingress_port), ("egress_port", h.egress_port),
                                ("hop_latency_ns", h.hop_latency_ns), ("queue_id", h.queue_id),
                                ("queue_bytes", h.queue_bytes), ("ingress_ts_ns", h.ingress_ts_ns),
                                ("egress_ts_ns", h.egress_ts_ns), ("egress_tx_bytes", h.egress_tx_bytes)):
                cols[name].append(-1 if value is None else value)
        st["records"] += len(hops)

    # ---- reading the records --------------------------------------------------------------------
    def records(self, flow: Optional[int] = None) -> list[dict[str, int]]:
        """Every record (of one flow), as dicts of ``COLUMNS``, in arrival order."""
        cols = self.columns
        n = len(cols["time_ns"])
        rows = range(n) if flow is None else [i for i in range(n) if cols["flow"][i] == flow]
        return [{name: cols[name][i] for name in COLUMNS} for i in rows]

    def flow_name(self, flow: int) -> str:
        for (src, sport, dst, dport), i in self.flows.items():
            if i == flow:
                return f"{ip_str(src)}:{sport} -> {ip_str(dst)}:{dport}"
        raise KeyError(flow)

    def node_name(self, node_id: int) -> str:
        return self.node_names.get(node_id, f"node {node_id}")

    def summary(self) -> dict[str, Any]:
        """``--json``'s ``"int"``: the counts, and per flow its hops (module docstring)."""
        cols = self.columns
        groups: dict[int, dict[tuple[int, int, int, int], list[int]]] = {}
        for i in range(len(cols["time_ns"])):
            key = (cols["hop"][i], cols["node_id"][i], cols["ingress_port"][i], cols["egress_port"][i])
            groups.setdefault(cols["flow"][i], {}).setdefault(key, []).append(i)
        flows = []
        for (src, sport, dst, dport), f in self.flows.items():
            hops = [self._hop_summary(key, rows) for key, rows in sorted(groups.get(f, {}).items())]
            flows.append({"flow": f"{ip_str(src)}:{sport} -> {ip_str(dst)}:{dport}", "src": ip_str(src),
                          "src_port": sport, "dst": ip_str(dst), "dst_port": dport, "reports": self.flow_reports[f],
                          "hops": hops})
        st = dict(self.stats)
        return {"collector": self.host.name, "port": self.port, **st, "lost_reports": self.lost_reports,
                "flows": flows}

    def _hop_summary(self, key: tuple[int, int, int, int], rows: list[int]) -> dict[str, Any]:
        cols = self.columns
        hop, node_id, inp, outp = key
        lat = [cols["hop_latency_ns"][i] for i in rows if cols["hop_latency_ns"][i] >= 0]
        q = [cols["queue_bytes"][i] for i in rows if cols["queue_bytes"][i] >= 0]
        t = [cols["egress_ts_ns"][i] if cols["egress_ts_ns"][i] >= 0 else cols["time_ns"][i] for i in rows]
        return {"hop": hop, "node": self.node_name(node_id) if node_id >= 0 else None,
                "node_id": node_id if node_id >= 0 else None, "ingress_port": inp if inp >= 0 else None,
                "egress_port": outp if outp >= 0 else None, "records": len(rows),
                "latency_ns": _stats(lat), "queue_bytes": _stats(q),
                "series": _series(t, [cols["hop_latency_ns"][i] for i in rows], [cols["queue_bytes"][i] for i in rows])}


def _stats(values: list[int]) -> Optional[dict[str, Any]]:
    if not values:
        return None
    s = sorted(values)

    def rank(p: int) -> int:        # nearest rank: the smallest value with p% at or below it
        return s[max(0, min(len(s) - 1, -(-len(s) * p // 100) - 1))]

    return {"min": s[0], "mean": round(sum(s) / len(s), 1), "p50": rank(50), "p99": rank(99), "max": s[-1]}


def _series(t: list[int], lat: list[int], q: list[int]) -> list[list[Any]]:
    """``[time, mean latency, max queue]`` points: every record when there are at most
    ``SERIES_POINTS``, else equal time bins (a bin's first time); -1 where not recorded."""
    order = sorted(range(len(t)), key=t.__getitem__)
    if len(order) <= SERIES_POINTS:
        return [[t[i], lat[i], q[i]] for i in order]
    lo, hi = t[order[0]], t[order[-1]]
    width = max(1, -(-(hi - lo + 1) // SERIES_POINTS))
    bins: dict[int, list[int]] = {}
    for i in order:
        bins.setdefault((t[i] - lo) // width, []).append(i)
    out = []
    for b in sorted(bins):
        rows = bins[b]
        lats = [lat[i] for i in rows if lat[i] >= 0]
        out.append([lo + b * width, round(sum(lats) / len(lats), 1) if lats else -1, max(q[i] for i in rows)])
    return out


def format_summary(data: dict[str, Any], max_flows: int = 8) -> str:
    """The human lines for a ``summary()``: per flow its hops, latency and queue."""
    lines = [f"INT: {data['reports']:,} reports at {data['collector']} (UDP {data['port']}), "
             f"{data['records']:,} hop records, {data['bad_reports']:,} unreadable, "
             f"{data['lost_reports']:,} missing by sequence number"]
    for f in data["flows"][:max_flows]:
        lines.append(f"  {f['flow']}: {f['reports']:,} reports")
        for h in f["hops"]:
            lat, q = h["latency_ns"] or {}, h["queue_bytes"] or {}
            ports = f" port {h['ingress_port']} -> {h['egress_port']}" if h["ingress_port"] is not None else ""
            lines.append(f"    hop {h['hop']} {h['node'] or '?'}{ports}: latency mean {_ns(lat.get('mean'))} "
                         f"p99 {_ns(lat.get('p99'))} max {_ns(lat.get('max'))}; queue mean {q.get('mean', '-')} "
                         f"max {q.get('max', '-')} bytes")
    if len(data["flows"]) > max_flows:
        lines.append(f"  ... {len(data['flows']) - max_flows} more flows in --json")
    return "\n".join(lines)


def _ns(v: Optional[float]) -> str:
    if v is None:
        return "-"
    return f"{v / 1000:.3g} us" if v >= 1000 else f"{v:.4g} ns"
