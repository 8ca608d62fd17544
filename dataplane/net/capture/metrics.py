"""What a run measured: per-port counters and queue depths, per-link utilisation, per-host traffic,
per-DPU pipeline load."""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any


def percentile(values: list[int], q: float) -> int:
    if not values:
        return 0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, int(round(q / 100 * (len(ordered) - 1)))))
    return ordered[k]


def time_weighted_depths(samples: list[tuple[int, int]], end_ns: int) -> list[int]:
    """Queue depth per microsecond bucket (the depth held longest in it), for percentiles over time."""
    if not samples:
        return []
    out = []
    depth = 0
    i = 0
    for t in range(0, max(end_ns, 1), 1000):
        top = depth
        while i < len(samples) and samples[i][0] < t + 1000:
            depth = samples[i][1]
            top = max(top, depth)
            i += 1
        out.append(top)
    return out


def line_utilisation(stats: Any, rate_bps: int, end_ns: int) -> float:
    """The share of the run, 0 to ``end_ns``, a port's line spent sending (``PortStats``: its wire
    bytes), to 4 places. A frame is counted when it starts; the part of the last one still on the
    wire at ``end_ns`` lies outside the run and is left out, so a line busy to the end reads 1.0,
    never more (the frame times are whole ns, rounded down, so what is left can exceed the run
    by less than 1 ns: that is cut too)."""
    if not rate_bps or end_ns <= 0:
        return 0.0
    busy_ns = stats.tx_wire_bytes * 8 * 1e9 / rate_bps - max(0, stats.tx_end_ns - end_ns)
    return round(min(busy_ns, end_ns) / end_ns, 4)


def port_metrics(net: Any) -> dict[str, dict[str, Any]]:
    end = max(net.sim.now, 1)
    out = {}
    for node in [*net.switches.values(), *getattr(net, "dpus", {}).values(), *net.hosts.values()]:
        for port in node.ports.values():
            st = port.stats
            rate = port.link.rate_bps if port.link is not None else 0
            depths = st.qdepth_flat[1::2]
            out[port.name] = {
                "tx_packets": st.tx_packets, "tx_bytes": st.tx_bytes, "rx_packets": st.rx_packets,
                "rx_bytes": st.rx_bytes,
                "drops": st.drops, "lost": st.lost, "max_qdepth": st.max_qdepth,
                "p99_qdepth": percentile(depths, 99),
                "pause_tx": st.pause_tx, "pause_rx": st.pause_rx, "paused_ns": port.paused_time_ns,
                # The share of the run the line was busy: wire bytes (frames plus the link's
                # Ethernet overhead), so a port sending back to back reads 1.0 at any frame size.
                "tx_wire_bytes": st.tx_wire_bytes,
                "utilisation": line_utilisation(st, rate, end),
            }
            if hasattr(port, "queue_metrics"):      # traffic classes: per-queue counters
                out[port.name]["queues"] = port.queue_metrics()
    return out


def summary(net: Any, hosts: dict[str, dict[str, int]]) -> dict[str, Any]:
    """The ``--json`` summary object of ``dataplane run``."""
    switches = {name: {"packets_in": n.packets_in, "drops": dict(sorted(n.drops.items()))}
                for name, n in net.switches.items()}
    for name, n in net.switches.items():
        if getattr(n, "pfc_watchdog", None) is not None:     # storms, restorations, drops, its log
            switches[name]["pfc_watchdog"] = n.pfc_watchdog.stats()
    # processed, drops by reason, utilisation (busy / elapsed), busy_ns, max_queue, ...: DpuNode.summary
    # (on several ranks, as each node's own rank made it: Session.gather)
    gathered = getattr(net, "pipeline_summaries", None) or {}
    dpus = {name: gathered.get(name) or d.summary(net.sim.now) for name, d in getattr(net, "dpus", {}).items()}
    # what each host's eBPF/XDP program did (hosts with one only): XdpHost.summary
    xdp = {name: gathered.get(name) or h.summary(net.sim.now) for name, h in net.hosts.items()
           if hasattr(h, "xdp_stats")}
    return {"hosts": hosts, "ports": port_metrics(net), "switches": switches, "dpus": dpus, "xdp": xdp,
            "sim_time_ns": net.sim.now, "events": net.sim.events_run,
            "log": [f"{t} ns: {what}" for t, what in net.events_log]}


def write_metrics(directory: Path, data: dict[str, Any]) -> None:
    """summary.json plus ports.csv and hosts.csv in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "summary.json").write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    with open(directory / "ports.csv", "w", newline="") as f:
        cols = ["port", "tx_packets", "tx_bytes", "tx_wire_bytes", "rx_packets", "drops", "lost", "max_qdepth",
                "p99_qdepth", "utilisation", "pause_tx", "pause_rx", "paused_ns"]
        w = csv.writer(f)
        w.writerow(cols)
        for name, m in data["ports"].items():
            w.writerow([name] + [m[c] for c in cols[1:]])
    queue_rows = [(name, q) for name, m in data["ports"].items() for q in m.get("queues", ())]
    if queue_rows:
        with open(directory / "queues.csv", "w", newline="") as f:
            qcols = ["qid", "tx_packets", "tx_bytes", "drops", "max_qdepth", "max_bytes", "ce_marked"]
            w = csv.writer(f)
            w.writerow(["port"] + qcols)
            for name, q in queue_rows:
                w.writerow([name] + [q[c] for c in qcols])
    with open(directory / "hosts.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["host", "sent", "delivered", "lost", "received"])
        for name, m in data["hosts"].items():
            w.writerow([name, m["sent"], m["delivered"], m["lost"], m["received"]])


def format_table(data: dict[str, Any], top_ports: int = 12) -> str:
    """The human summary: hosts, the busiest ports (and how many more), switch drops by reason."""
    from dataplane.natural_order import natural_sorted

    lines = [f"simulated {data['sim_time_ns'] / 1e6:.3f} ms, {data['events']:,} events"]
    lines.append(f"{'host':<10} {'sent pkts':>10} {'delivered':>10} {'lost':>6} {'received pkts':>14}")
    for name, m in natural_sorted(data["hosts"].items()):
        lines.append(f"{name:<10} {m['sent']:>10} {m['delivered']:>10} {m['lost']:>6} {m['received']:>14}")
    ports = sorted(natural_sorted(data["ports"].items()), key=lambda kv: -kv[1]["tx_bytes"])
    shown = ports if top_ports <= 0 else ports[:top_ports]
    lines.append(f"{'port':<12} {'tx pkts':>8} {'tx bytes':>10} {'rx pkts':>8} {'util':>6} {'drops':>6} {'lost':>5} "
                 f"{'max q pkts':>10} {'p99 q pkts':>10}")
    for name, m in shown:
        lines.append(f"{name:<12} {m['tx_packets']:>8} {m['tx_bytes']:>10} {m['rx_packets']:>8} "
                     f"{m['utilisation'] * 100:>5.1f}% {m['drops']:>6} {m['lost']:>5} {m['max_qdepth']:>10} "
                     f"{m['p99_qdepth']:>10}")
        # A port with traffic classes: its queues on the line below it.
        if m.get("queues") and m["tx_packets"]:
            lines.append(f"{'':<12} queues: " + "; ".join(
                f"q{q['qid']} {q['tx_packets']} pkts, {q['drops']} drops, max {q['max_qdepth']}, CE {q['ce_marked']}"
                for q in m["queues"] if q["tx_packets"] or q["drops"]))
    if len(shown) < len(ports):
        idle = sum(1 for _, m in ports[len(shown):] if not m["tx_packets"] and not m["rx_packets"])
        lines.append(f"... {len(ports) - len(shown)} more ports not shown ({idle} of them idle); "
                     "all ports are in --json and --out's ports.csv")
    drops = [(name, m["drops"]) for name, m in natural_sorted((data.get("switches") or {}).items()) if m["drops"]]
    if drops:
        for name, by_reason in drops:
            lines.append(f"switch {name} dropped: " + ", ".join(f"{reason}: {n}" for reason, n in by_reason.items()))
    elif data.get("switches"):
        lines.append("switches dropped no packets")
    sent = sum(m.get("pause_tx", 0) for m in data["ports"].values())
    paused = sorted(((name, m) for name, m in data["ports"].items() if m.get("pause_rx")),
                    key=lambda kv: (-kv[1]["paused_ns"], kv[0]))
    if sent or paused:
        more = f" and {len(paused) - top_ports} more" if len(paused) > top_ports else ""
        lines.append(f"PFC: {sent} pause frames sent; paused: "
                     + ", ".join(f"{name} {m['paused_ns'] / 1000:.1f} us" for name, m in paused[:top_ports]) + more)
    dpus = data.get("dpus") or {}
    if dpus:
        lines.append(f"{'dpu':<10} {'processed':>10} {'util':>6} {'max q':>6}  drops")
        for name, m in dpus.items():
            drops = ", ".join(f"{reason}: {n}" for reason, n in m["drops"].items()) or "0"
            lines.append(f"{name:<10} {m['processed']:>10} {m['utilisation'] * 100:>5.1f}% "
                         f"{m['max_queue']:>6}  {drops}")
            if m.get("counters"):
                lines.append(f"{'':<10} counters: " + ", ".join(f"{c} {n}" for c, n in m["counters"].items()))
    xdp = data.get("xdp") or {}
    if xdp:
        lines.append(f"{'xdp host':<10} {'processed':>10} {'passed':>7} {'tx':>6} {'redir':>6} {'util':>6}  drops")
        for name, m in xdp.items():
            drops = ", ".join(f"{reason}: {n}" for reason, n in m["drops"].items()) or "0"
            lines.append(f"{name:<10} {m['processed']:>10} {m['passed']:>7} {m['tx']:>6} {m['redirected']:>6} "
                         f"{m['utilisation'] * 100:>5.1f}%  {drops}")
    for t in data.get("log", [])[:20]:
        lines.append(f"event: {t}")
    return "\n".join(lines)
