"""The shape of `dataplane scenario incast` at a small size: drop-tail drops; ECN marking with
DCQCN senders keeps the bottleneck queue near the marking band, loses nothing and keeps the
bottleneck at least 90% busy."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.scenarios.incast import JSON_KEYS, IncastConfig, jain, run_incast

# 4 senders x 16 MB in 4 KB RoCE packets (16k packets): long enough for DCQCN to get past the
# incast's first burst; an 8 MB buffer, which 4 line-rate senders overflow in ~27 us.
SMALL = dict(senders=4, transfer_bytes=16_000_000, buffer_bytes=8_000_000)


@pytest.fixture(scope="module")
def runs():
    return {mode: run_incast(IncastConfig(mode=mode, **SMALL)).result for mode in ("droptail", "ecn")}


def test_droptail_overflows_and_drops(runs):
    r = runs["droptail"]
    assert r["drops"] > 0 and r["bottleneck_drops"] == r["drops"]
    assert r["delivered_fraction"] < 0.5
    assert r["completion_ns"] is None                   # UDP does not resend what was dropped
    assert r["cnps"] == 0 and r["pause_frames"] == 0
    assert r["qdepth_p99_bytes"] >= 0.95 * SMALL["buffer_bytes"]
    assert r["utilisation"] >= 0.99                     # the bottleneck is busy, with the wrong packets


def test_ecn_keeps_the_queue_near_the_band_without_loss(runs):
    r, cfg = runs["ecn"], IncastConfig(**SMALL)
    assert r["drops"] == 0 and r["pause_frames"] == 0
    assert r["delivered_fraction"] == 1.0 and r["completion_ns"] is not None
    assert r["cnps"] > 0 and r["ce_marked"] >= r["cnps"]
    assert r["utilisation"] >= 0.90
    assert cfg.kmin_bytes / 2 <= r["qdepth_p50_bytes"] <= cfg.kmax_bytes
    assert r["qdepth_p99_bytes"] <= 2 * cfg.kmax_bytes
    assert r["qdepth_p99_bytes"] < runs["droptail"]["qdepth_p99_bytes"] / 2
    assert r["jain"] >= 0.9
    # Everything moved in about the time the line rate allows (<= 1/0.9 of it, plus the RTT).
    ideal_ns = 4 * 16_000_000 * 8 / 100
    assert r["completion_ns"] <= ideal_ns / 0.9 + 50_000


def test_jain():
    assert jain([1, 1, 1, 1]) == 1.0
    assert jain([1, 0, 0, 0]) == 0.25
    assert jain([]) == 1.0


def test_command_json_and_plots(tmp_path):
    res = CliRunner().invoke(main, ["scenario", "incast", "--senders", "2", "--mode", "all", "--transfer", "400KB",
                                    "--buffer", "300KB", "--json", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["results"]
    assert [r["mode"] for r in rows] == ["droptail", "ecn"]
    for r in rows:
        assert set(JSON_KEYS) <= set(r) and r["senders"] == 2 and r["pause_frames"] == 0
    assert rows[0]["drops"] > 0
    for name in ("queue_depth.png", "flow_rates.png", "results.json"):
        assert (tmp_path / name).stat().st_size > 0
    res = CliRunner().invoke(main, ["scenario", "incast", "--mode", "pfc"])
    assert res.exit_code != 0
