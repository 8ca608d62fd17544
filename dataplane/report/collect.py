"""The report's data: what finished networks measured, as one JSON-able dict, and the
``report.json`` that ``--out`` leaves so ``dataplane report OUT_DIR`` makes the same page later.

The dict is ``{"format", "version", "kind", "title", "provenance", "results", "runs"}``; each
run holds ``metrics.summary``'s keys (hosts, ports, switches, dpus, xdp, sim_time_ns, events,
log) plus ``name``, ``topology``, ``tables``, ``counters``, ``drops``, ``series``, ``flows``,
``timeline``, ``programs``, ``window_ns`` (the window of its activity, ``series.activity``) and
``utilisation`` (per port its window and its utilisation over it, ``[[from_ns, to_ns], u]`` or
``[None, None]``, by the rule of ``dataplane.report.wire``; ``ports`` keeps the summary's own,
over the whole simulated time). The page is made from this dict only, never from a live network.
"""
from __future__ import annotations

import hashlib
import json
import platform
import shlex
import sys
from pathlib import Path
from typing import Any

from dataplane.natural_order import natural_sorted
from dataplane.report.node_tables import installed_entries, node_tables
from dataplane.report.record import Recorder
from dataplane.report.series import activity, series
from dataplane.report.wire import utilisation

FORMAT = "dataplane-report"
VERSION = 1
DATA_FILE = "report.json"


class ReportError(Exception):
    """A folder that holds no finished run, or a report data file that cannot be read."""


# ---- one network ---------------------------------------------------------------------------------

def collect_run(net: Any, recorder: Recorder | None, name: str, hosts: dict[str, dict[str, Any]] | None = None,
                flow_series: dict[str, list[tuple[int, float]]] | None = None,
                fct_ns: list[int] | None = None, fct_what: str = "") -> dict[str, Any]:
    """One finished network as report data. ``hosts`` is the run's per-host table (``Traffic.host_results``;
    the hosts' own counters when None); ``flow_series`` throughput per flow (time ns, Gb/s);
    ``fct_ns`` completion times of the flows that completed."""
    from dataplane.net.capture import metrics

    if recorder is not None:
        recorder.stop()
    data = metrics.summary(net, hosts if hosts is not None else host_counters(net))
    data["name"] = name
    data["seed"] = getattr(net, "seed", None)
    data["utilisation"] = dict(natural_sorted(
        (recorder.ports[j].name, list(utilisation(facts))) for j, facts in recorder.line_facts.items())) \
        if recorder is not None else {}
    data["topology"] = topology(net, data["utilisation"])
    data["tables"], data["counters"] = tables(net, recorder)
    data["drops"] = drops_by_node(net, data)
    data["timeline"] = timeline(net)
    data["window_ns"] = activity(recorder, data["timeline"])
    data["series"] = series(net, recorder, flow_series or {}, data["window_ns"])
    data["flows"] = {"fct_ns": sorted(fct_ns) if fct_ns is not None else None, "what": fct_what}
    data["programs"] = programs(net, recorder)
    return data


def timeline(net: Any) -> list[list]:
    """Failures, recoveries and detections (``net.events_log``), and when each switch's controller
    finished its table writes (its reroute, after a failure), in time order."""
    events = [[t, what] for t, what in net.events_log]
    for name, handle in getattr(net, "controllers", {}).items():
        if getattr(handle, "writes_done", 0):
            events.append([handle.last_write_ns,
                           f"{name}'s controller: its last table write ({handle.writes_done:,} in all)"])
    return sorted(events, key=lambda e: e[0])


def host_counters(net: Any) -> dict[str, dict[str, Any]]:
    """Per-host packets from the hosts' own counters, for runs without a ``Traffic`` (scenarios):
    what the host's stack sent and received, and the frames its ports received (a scenario's app
    may take frames before the stack); delivered and lost are not known there (None)."""
    out = {}
    for name, host in natural_sorted(net.hosts.items()):
        st = host.stats
        out[name] = {"sent": st["sent"], "delivered": None, "lost": None, "received": st["received"],
                     "frames_in": sum(p.stats.rx_packets for p in host.ports.values())}
    return out


def topology(net: Any, util: dict[str, list]) -> dict[str, Any]:
    """Nodes by kind and links with rate, latency, state and utilisation (the busier direction's,
    over its window: ``util``, as ``collect_run`` keeps it; 0 when neither direction has one)."""
    failed = {what.split(" ")[1] for _, what in net.events_log if what.startswith("link ") and what.endswith(" down")}
    nodes = [{"name": n, "kind": "switch"} for n in net.switches]
    nodes += [{"name": n, "kind": "dpu"} for n in getattr(net, "dpus", {})]
    nodes += [{"name": n, "kind": "host"} for n in net.hosts]
    links = []
    for link in net.links:
        busy = max((util.get(p.name) or [None, None])[1] or 0.0 for p in (link.a, link.b))
        links.append({"a": link.a.node.name, "a_port": link.a.name, "b": link.b.node.name, "b_port": link.b.name,
                      "rate_bps": link.rate_bps, "latency_ns": link.latency_ns, "up": bool(link.up),
                      "failed": link.name in failed or not link.up, "utilisation": busy})
    return {"name": net.spec.name, "nodes": nodes, "links": links}


def tables(net: Any, recorder: Recorder | None) -> tuple[dict, dict]:
    """Per node with a pipeline: per table entries installed, hits, misses (None when not
    recorded); and its counters' totals (indexed counters and direct counters) as [packets, bytes].
    On several ranks, each node's as its own rank found them (``Recorder.node_facts``)."""
    out: dict[str, Any] = {}
    counters: dict[str, Any] = {}
    facts = recorder.node_facts if recorder is not None else None
    for node in net.nodes():
        if getattr(node, "api", None) is None:
            continue
        if facts is not None:
            out[node.name], counters[node.name], _ = facts[node.name]
        else:
            out[node.name], counters[node.name], _ = node_tables(node, recorder)
    return out, counters


def drops_by_node(net: Any, data: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Per node, every reason a packet died there: queue full, lost on its links' wire, the P4
    program (by reason), the host stack (by reason), an XDP program (by reason)."""
    out: dict[str, dict[str, int]] = {}
    for node in net.nodes():
        reasons: dict[str, int] = {}
        for port in node.ports.values():
            if port.stats.drops:
                reasons["queue full (tail drop)"] = reasons.get("queue full (tail drop)", 0) + port.stats.drops
            if port.stats.lost:
                reasons["lost on the wire"] = reasons.get("lost on the wire", 0) + port.stats.lost
        program_drops = getattr(node, "drops", None)      # switches and DPUs: by the program's reason
        for reason, n in sorted(program_drops.items() if isinstance(program_drops, dict) else []):
            if n:
                reasons[f"P4 program: {reason}"] = n
        for reason, n in sorted(((data.get("xdp") or {}).get(node.name) or {}).get("drops", {}).items()):
            if n:
                reasons[f"XDP program: {reason}"] = n
        stats = getattr(node, "stats", None)
        if node.name in net.hosts and hasattr(stats, "as_dict"):
            for key, n in stats.as_dict().items():
                if key.startswith("dropped_") and n:
                    reasons[f"host: {key[len('dropped_'):].replace('_', ' ')}"] = n
        if reasons:
            out[node.name] = reasons
    return dict(natural_sorted(out.items()))


def programs(net: Any, recorder: Recorder | None = None) -> list[dict[str, Any]]:
    """Each node's program and entries files with their SHA-256, and how many entries it holds
    (on several ranks, as the node's own rank counted them: ``Recorder.node_facts``)."""
    facts = recorder.node_facts if recorder is not None else None
    out = []
    specs = [*net.spec.switches.values(), *net.spec.dpus.values()]
    specs += [h.xdp for h in net.spec.hosts.values() if getattr(h, "xdp", None) is not None]
    names = [*net.spec.switches, *net.spec.dpus, *[n for n, h in net.spec.hosts.items() if getattr(h, "xdp", None)]]
    for name, spec in zip(names, specs):
        node = net.switches.get(name) or net.dpus.get(name) or net.hosts.get(name)
        api = getattr(node, "api", None)
        installed = 0
        if api is not None:
            installed = facts[name][2] if facts is not None else sum(installed_entries(api, t) for t in api.table_names())
        out.append({"node": name, "program": str(spec.program), "program_sha256": _sha256(spec.program),
                    "entries": str(spec.entries) if spec.entries is not None else None,
                    "entries_sha256": _sha256(spec.entries) if spec.entries is not None else None,
                    "entries_installed": installed})
    return out


def _sha256(path: Any) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


# ---- the whole report -------------------------------------------------------------------------------

def provenance(argv: list[str] | None = None, **options: Any) -> dict[str, Any]:
    """The command line, the dataplane and Python versions and the options that shaped the run."""
    import dataplane

    args = list(sys.argv if argv is None else argv)
    if args:
        # ``python -m dataplane`` and ``python -c ...`` (``resources.self_command``: how ``--ranks N``
        # starts the ranks) are the ``dataplane`` command
        args[0] = "dataplane" if args[0] == "-c" or Path(args[0]).name == "__main__.py" else Path(args[0]).name
    return {"command": shlex.join(args), "dataplane": dataplane.__version__,
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "options": {k: v for k, v in options.items() if v is not None}}


def report_data(kind: str, title: str, runs: list[dict[str, Any]], prov: dict[str, Any],
                results: list[dict[str, Any]] | None = None,
                figures: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The report's data: ``kind`` is ``run`` or ``scenario``; ``results`` the scenario's result
    rows, ``figures`` its own charts (``report.figures``)."""
    data = {"format": FORMAT, "version": VERSION, "kind": kind, "title": title, "provenance": prov,
            "results": results, "runs": runs}
    if figures:
        data["figures"] = figures
    # Through JSON and back: the page made now is the page ``dataplane report`` makes from the file.
    return json.loads(json.dumps(data, sort_keys=True, default=_jsonable))


def _jsonable(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} in report data")


def write_data(directory: Path, data: dict[str, Any]) -> Path:
    """``report.json`` in ``directory`` (a ``--out`` folder)."""
    path = Path(directory) / DATA_FILE
    path.write_text(json.dumps(data, sort_keys=True) + "\n")
    return path


def read_data(directory: Path) -> dict[str, Any]:
    """The report data a finished ``run --out`` or ``scenario --out`` left in ``directory``."""
    directory = Path(directory)
    if not directory.is_dir():
        what = "does not exist" if not directory.exists() else "is not a folder"
        raise ReportError(f"{directory}: {what} (give the folder a run or scenario wrote with --out)")
    path = directory / DATA_FILE
    if not path.is_file():
        raise ReportError(f"{directory}: not a finished run folder: no {DATA_FILE} in it "
                          "(made by `dataplane run --out` or `dataplane scenario NAME --out` when they finish)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ReportError(f"{path}: not report data: {err}") from None
    except OSError as err:
        raise ReportError(f"{path}: cannot read it: {err.strerror or err}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReportError(f"{path}: not report data (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise ReportError(f"{path}: report data version {data.get('version')!r}; this dataplane reads version {VERSION}")
    if not isinstance(data.get("runs"), list):
        raise ReportError(f"{path}: report data without runs")
    return data


def traffic_completions(traffic: Any) -> tuple[list[int], str]:
    """Completion times (ns) of a ``Traffic``'s apps that completed: a UDP flow's from its start to
    its last packet's arrival when every packet arrived, a bulk transfer's ``fct_ns``, a ping's
    round trip; and what they are, for the chart's legend."""
    out: list[int] = []
    kinds = []
    for _, flow, sink, _ in traffic.flows:
        rec = sink.flows.get(flow.key)
        if rec is not None and flow.stats["sent"] and rec.packets >= flow.stats["sent"]:
            out.append(rec.last_ns - flow.start_ns)
    if traffic.flows:
        kinds.append("UDP flows")
    bulks = [b for _, b in traffic.bulks] + [f for _, inc in traffic.incasts for f in inc.flows]
    for b in bulks:
        if b.stats.get("fct_ns") is not None:
            out.append(b.stats["fct_ns"])
        elif "fct_ns" not in b.stats:   # an incast's UDP flow: start to its last packet's arrival
            rec = next((inc.sink.flows.get(b.key) for _, inc in traffic.incasts if b in inc.flows), None)
            if rec is not None and b.stats["sent"] and rec.packets >= b.stats["sent"]:
                out.append(rec.last_ns - b.start_ns)
    if bulks:
        kinds.append("bulk and incast transfers")
    for _, ping in traffic.pings:
        out.extend(ping.rtts)
    if traffic.pings:
        kinds.append("pings (round trip)")
    return out, ", ".join(kinds)
