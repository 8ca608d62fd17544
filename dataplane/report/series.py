"""The report's time series: what the recorder sampled, over the window where something happened
(``activity``), at most ``CHART_INTERVALS`` intervals of it; and each flow's throughput.

Charts drawn over the whole simulated time show a run that stopped long before its end (a
scenario that runs to a 1 s bound while its traffic ends after a few ms) as a spike at the left
edge; over the activity window they show what happened.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

from dataplane.natural_order import natural_sorted
from dataplane.report.record import PORT_FIELDS, Recorder

#: how many ports (or flows) a time-series chart draws; the rest are summed in the tables
TOP_SERIES = 8
#: how many intervals a time series has at most
CHART_INTERVALS = 100
#: what the per-flow throughput counts, by where it came from
FLOWS_FROM_TRAFFIC = "payload received by the run's UDP flows"
FLOWS_FROM_WIRE = "frames arriving at hosts, per IPv4 flow (source, destination, protocol, ports)"


def activity(rec: Recorder | None, timeline: list[list]) -> list[int] | None:
    """The window of the run's activity (ns): from the first frame any port started sending (or
    the first failure, recovery or reroute of ``timeline``) to the last frame's arrival at the
    far end of its link (or the last event), pause frames included; None when neither happened."""
    facts = [f for f in (rec.line_facts.values() if rec is not None else ()) if f[5] is not None]
    times = [t for t, _ in timeline]
    if not facts and not times:
        return None
    return [min([f[5] for f in facts] + times), max([f[6] for f in facts] + times)]


def series(net: Any, rec: Recorder | None, flow_series: dict[str, list[tuple[int, float]]],
           window: list[int] | None) -> dict[str, Any]:
    """Time series for the charts, on the recorder's sample times (ns, the end of each interval)
    from the last sample at or before the window's start to the first at or after its end:
    queue depth (packets, the interval's peak) per port and, on ports with traffic classes, per
    queue (``queue_classes``, named ``PORT qQID``), throughput (Gb/s), tail drops, wire losses,
    program drops, ECN CE marks received and PFC pause frames sent, per interval; and per flow,
    ``flow_series`` (time ns, Gb/s) when it has any, else the frames that arrived at hosts
    (``flows_what`` says which)."""
    from dataplane.net.capture.plots import throughput_lines

    if not any(flow_series.values()) and rec is not None:
        flow_series = rec.arrivals.series({h.ip: name for name, h in net.hosts.items()})
        what = FLOWS_FROM_WIRE
    else:
        what = FLOWS_FROM_TRAFFIC
    flows = [[name, [[t, round(g, 4)] for t, g in pts]] for name, pts in throughput_lines(flow_series, TOP_SERIES)]
    if rec is None or len(rec.times) < 2:
        return {"t_ns": [], "queue": [], "queue_classes": [], "throughput_gbps": [], "drops": [], "pfc": [],
                "ecn": [], "program_drops": [], "lost": [], "flows": flows, "flows_what": what}
    first, last = 0, len(rec.times) - 1
    if window is not None:
        first = max(0, bisect_right(rec.times, window[0]) - 1)
        last = max(first + 1, min(last, bisect_left(rec.times, window[1])))
    # At most CHART_INTERVALS intervals: finer ones show single packets as spikes, not rates.
    k = -(-(last - first) // CHART_INTERVALS)
    keep = list(range(first, last + 1, k))
    if keep[-1] != last:
        keep.append(last)
    times = [rec.times[i] for i in keep]
    samples = [rec.port_samples[i] for i in keep]
    depths = [[max(d[j] for d in rec.depth_samples[a + 1:b + 1]) for j in range(len(rec.ports))]
              for a, b in zip(keep, keep[1:])]
    ce = [rec.ce_samples[i] for i in keep]
    program_drops = [rec.program_drop_samples[i] for i in keep]
    names = [p.name for p in rec.ports]
    col = {f: i for i, f in enumerate(PORT_FIELDS)}

    def delta(field: str, k: int) -> list[int]:
        i = col[field]
        return [samples[s][k][i] - samples[s - 1][k][i] for s in range(1, len(times))]

    def top(values: dict[str, list], key) -> list[list]:
        chosen = sorted((kv for kv in values.items() if key(kv[1]) > 0), key=lambda kv: (-key(kv[1]), kv[0]))
        return [[n, v] for n, v in natural_sorted(chosen[:TOP_SERIES])]

    tput = {}
    for k, name in enumerate(names):
        # max(0, ...): a pause frame on the wire at a sample is taken off as if it were data
        tput[name] = [round(max(0, b) * 8 / (times[s + 1] - times[s]), 4) for s, b in enumerate(delta("tx_bytes", k))]
    queue = {name: _peak_depths(rec.ports[k].stats.qdepth_flat, times, [d[k] for d in depths])
             for k, name in enumerate(names)}
    # Traffic classes: each queue's depth from its own recorded changes (none kept: not drawn).
    classes = {f"{p.name} q{qid}": _peak_depths(qst.qdepth_flat, times, [])
               for p in rec.ports if hasattr(p, "queue_metrics") for qid, qst in enumerate(p.queue.stats)
               if qst.qdepth_flat}
    per_port = {f: {name: delta(f, k) for k, name in enumerate(names)} for f in ("drops", "lost", "pause_tx")}

    def total(values: list[int]) -> list[int]:
        return [b - a for a, b in zip(values, values[1:])]

    return {"t_ns": times[1:], "queue": top(queue, max), "queue_classes": top(classes, max),
            "throughput_gbps": top(tput, sum),
            "drops": top(per_port["drops"], sum), "lost": top(per_port["lost"], sum),
            "pfc": top(per_port["pause_tx"], sum), "ecn": total(ce),
            "program_drops": total(program_drops), "flows": flows, "flows_what": what}


def _peak_depths(flat: list[int], times: list[int], sampled: list[int]) -> list[int]:
    """A queue's peak depth in each interval between sample times: from its recorded depth
    changes (``flat``: time, depth, ...; kept while the port's ``record_depth`` is on), else
    the peak the sampler saw (``sampled``)."""
    if not flat:
        return sampled
    out = []
    i, depth = 0, 0
    n = len(flat)
    while i < n and flat[i] <= times[0]:      # the depth the first interval starts at
        depth = flat[i + 1]
        i += 2
    for s in range(1, len(times)):
        top = depth
        while i < n and flat[i] <= times[s]:
            depth = flat[i + 1]
            top = max(top, depth)
            i += 2
        out.append(top)
    return out
