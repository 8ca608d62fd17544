"""The scenarios' text tables say their units and what their counts count (as ``dataplane run``'s
summary does): no bare ``lost``, ``drops``, ``leaks`` or ``loss`` a reader could take for
something else."""
from __future__ import annotations

from dataplane.scenarios import allreduce, incast, pic, vxlan


def _incast_result(mode: str) -> dict:
    return {"mode": mode, "senders": 16, "utilisation": 0.999, "drops": 25455, "pause_frames": 12, "cnps": 0,
            "qdepth_p50_bytes": 11_268_000, "qdepth_p99_bytes": 15_997_000, "qdepth_max_bytes": 15_997_000,
            "jain": 1.0, "jain_short_term": 0.997, "completion_ns": None, "delivered_fraction": 0.186, "wall_s": 4.96}


def test_incast_row_names_its_units_and_lines_up_the_modes():
    rows = [incast.format_row(_incast_result(m)) for m in incast.MODES]
    assert "drops   25455 pkts" in rows[0] and "pause frames    12" in rows[0]
    assert "delivered 18.6 % of bytes" in rows[0]
    assert all(r.startswith(m + " ") for r, m in zip(rows, incast.MODES))      # left-aligned, like every table here
    assert len({r.index("senders") for r in rows}) == 1


def test_pic_table_headers_say_predicted_and_packets():
    r = pic.PicResult("flat", 10_000, 10_000, 344_969_000, 5_552, 0.05, 0.035, detection_ns=1_000_000,
                      write_latency_ns=34_483)
    head, _, row = pic.format_table([r]).splitlines()
    assert head.split()[:5] == ["mode", "prefixes", "writes", "convergence", "predicted"]
    assert "lost pkts" in head and " model " not in head
    assert row.split()[-4] == "5,552"


def test_allreduce_table_loss_is_the_link_probability_and_retx_are_packets():
    r = allreduce.AllreduceResult("ina", 8, 1000, 0.01, 4_552_000, 5e-7, 7, algbw_gbps=7.03, error_bound=1.7e-6)
    head, row = allreduce._table([r]).splitlines()
    assert "link loss" in head and "retx pkts" in head
    assert "1.0%" in row and row.split()[-1] == "7"


def test_vxlan_table_counts_packets():
    mode = {"delivered": 47992, "sent": 47992, "cross_tenant_leaks": 0, "dropped_unknown_vni": 8,
            "injected_unknown_vni": 8, "spine_share": {"spine1": 0.5, "spine2": 0.5}, "host_cores": 0.0,
            "host_cores_per_host": 0.0, "dpu_utilisation_mean": 0.508, "dpu_utilisation_max": 0.508, "wall_s": 18.2}
    row = {"tenants": 2, "rate_bps": 100e9, "hosts": 8, "leaves": 2, "duration_ns": 500_000,
           "spine_share": mode["spine_share"], "host_ns_per_packet": 1000,
           "modes": {"offload": mode, "software": dict(mode, dpu_utilisation_mean=None)}}
    head = vxlan.format_rows([row]).splitlines()[1]
    for column in ("delivered/sent pkts", "leaked pkts", "unknown-VNI dropped/injected pkts", "cores/server"):
        assert column in head
