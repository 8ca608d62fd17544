"""dataplane.report.collect: the report's data from a finished run, and the report.json --out keeps."""
from __future__ import annotations

import json
import re

import pytest

from dataplane.report.collect import FORMAT, ReportError, read_data


def test_the_data_holds_what_the_run_measured(failover_run):
    out, _, data = failover_run
    assert data["format"] == FORMAT and data["kind"] == "run" and len(data["runs"]) == 1
    run = data["runs"][0]
    summary = json.loads((out / "summary.json").read_text())
    for key in ("hosts", "ports", "switches", "sim_time_ns", "events"):
        assert run[key] == summary[key]           # the same numbers as --json and summary.json
    kinds = {n["name"]: n["kind"] for n in run["topology"]["nodes"]}
    assert kinds == {"s1": "switch", "s2": "switch", "h1": "host", "h2": "host"}
    failed = [l for l in run["topology"]["links"] if l["failed"]]
    assert [(l["a_port"], l["b_port"], l["up"]) for l in failed] == [("s1:p2", "s2:p1", False)]
    assert all(l["rate_bps"] in (1_000_000_000, 10_000_000_000) and l["latency_ns"] == 1000
               for l in run["topology"]["links"])
    assert run["timeline"][0] == [300_000, "link s1:p2<->s2:p1 down"]
    assert any("detects port 2 down" in what for _, what in run["timeline"])


def test_series_tables_drops_and_flows(failover_run):
    run = failover_run[2]["runs"][0]
    s = run["series"]
    assert 2 <= len(s["t_ns"]) <= 101 and s["t_ns"] == sorted(s["t_ns"])
    h1 = dict(s["throughput_gbps"])["h1:eth0"]
    assert len(h1) == len(s["t_ns"]) and 1.0 < max(h1) <= 10.0       # a 2 Gb/s flow's bursts on a 10 Gb/s link
    assert s["flows"] and s["flows"][0][0] == "h1->h2"
    tables = run["tables"]["s1"]
    assert sum(t["hits"] + t["misses"] for t in tables.values()) >= run["switches"]["s1"]["packets_in"]
    assert all(t["entries"] >= 0 for t in tables.values())
    lost = run["drops"]["s1"]["lost on the wire"]
    assert lost == run["ports"]["s1:p2"]["lost"] > 0
    fct = run["flows"]["fct_ns"]
    # h2 only pings: each answered ping is one completion; the UDP flow lost packets, so it never completed
    assert run["hosts"]["h1"]["lost"] > 0
    assert len(fct) == run["hosts"]["h2"]["delivered"] > 0 and all(t > 0 for t in fct)
    assert "pings" in run["flows"]["what"]


def test_provenance_names_the_command_programs_and_entries(failover_run):
    data = failover_run[2]
    prov = data["provenance"]
    assert isinstance(prov["command"], str) and prov["dataplane"] and prov["python"]
    assert prov["options"]["seed"] == 0 and prov["options"]["duration_ns"] == 1_000_000
    progs = {p["node"]: p for p in data["runs"][0]["programs"]}
    assert set(progs) == {"s1", "s2"}
    assert progs["s1"]["program"].endswith("failover.p4") and len(progs["s1"]["program_sha256"]) == 64
    assert progs["s1"]["entries"].endswith("s1.txt") and progs["s1"]["entries_installed"] > 0


def test_ecn_marks_and_pause_frames_over_time_add_up_to_the_scenarios_counts(incast_report):
    data, result = incast_report
    series = data["runs"][0]["series"]
    assert sum(series["ecn"]) == result["ce_marked"] > 0
    assert sum(sum(v) for _, v in series["pfc"]) == result["pause_frames"] > 0
    depth = dict(series["queue"])
    assert max(max(v) for v in depth.values()) > 0


def test_queue_depth_per_traffic_class_over_time_peaks_at_each_queues_maximum(scenario_runs):
    data = json.loads((scenario_runs["pfc-deadlock"]["out"] / "report.json").read_text())
    run = data["runs"][0]
    series = dict(run["series"]["queue_classes"])
    assert series and all(len(v) == len(run["series"]["t_ns"]) for v in series.values())
    # Every queue that held a packet is drawn (up to the chart's limit), peaking at its own maximum.
    held = {f"{port} q{q['qid']}": q["max_qdepth"] for port, m in run["ports"].items()
            for q in m.get("queues", ()) if q["max_qdepth"]}
    assert set(series) == set(held) and all(max(series[k]) == held[k] for k in held)
    assert {k.split()[1] for k in series} == {"q3"} and max(held.values()) > 10    # the lossless class queued


@pytest.mark.parametrize("make,message", [
    (lambda d: d / "missing", "does not exist"),
    (lambda d: (d / "f.txt").write_text("x") and d / "f.txt", "is not a folder"),
    (lambda d: d, "not a finished run folder"),
    (lambda d: (d / "report.json").write_bytes(b"\xff\x00") and d, "not report data"),
    (lambda d: (d / "report.json").write_text('{"runs": []}') and d, "not report data"),
    (lambda d: (d / "report.json").write_text(json.dumps({"format": FORMAT, "version": 99})) and d, "version 99"),
])
def test_a_folder_without_a_finished_run_is_refused(tmp_path, make, message):
    with pytest.raises(ReportError, match=message):
        read_data(make(tmp_path))


def test_the_bottleneck_reads_the_same_utilisation_in_the_ports_table_as_in_the_result_row(scenario_runs):
    """incast's result row and the page's ports table measure a port's utilisation by one rule
    (first to last arrival at the far end): the same window, the same figure, about half used
    (ECN with DCQCN), where the whole simulated second would make it 0.3 %."""
    run = scenario_runs["incast"]
    data = json.loads((run["out"] / "report.json").read_text())
    (row,) = data["results"]
    window, util = data["runs"][0]["utilisation"][row["utilisation_port"]]
    assert window == [row["utilisation_from_ns"], row["utilisation_to_ns"]]
    assert abs(util - row["utilisation"]) <= 1e-4 and 0.3 < util < 0.7
    page = run["page"].read_text()
    shown = re.search(rf"<tr><td>{re.escape(row['utilisation_port'])}</td>(?:<td class=num>[^<]*</td>){{3}}"
                      r"<td class=num>([^<]*)</td>", page).group(1)
    assert shown == f"{row['utilisation'] * 100:.1f} %"
    assert f"{row['utilisation_port']} from " in page          # the results say which port and window
