"""The shape of `dataplane scenario incast` at a small size: drop-tail drops; ECN marking with
DCQCN senders (the default profile) loses nothing and holds the utilisation and queue in the
band docs/ecn.md documents; PFC alone is lossless but pauses upstream links."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.apps.dcqcn import data_frame_len
from dataplane.net.apps.dcqcn_profiles import PROFILES
from dataplane.net.devices.pfc import headroom_bytes
from dataplane.scenarios.incast import JSON_KEYS, MODES, IncastConfig, jain, run_incast

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

# 4 senders x 16 MB in 4 KB RoCE packets (16k packets): long enough for DCQCN to get past the
# incast's first burst; an 8.2 MB buffer (PFC's headroom rule needs 8.08 MB at leaf1), which 4
# line-rate senders overflow in ~27 us.
SMALL = dict(senders=4, transfer_bytes=16_000_000, buffer_bytes=8_200_000)


@pytest.fixture(scope="module")
def runs():
    return {mode: run_incast(IncastConfig(mode=mode, **SMALL)).result for mode in ("droptail", "ecn", "pfc")}


def test_droptail_overflows_and_drops(runs):
    r = runs["droptail"]
    assert r["drops"] > 0 and r["bottleneck_drops"] == r["drops"]
    assert r["delivered_fraction"] < 0.5
    assert r["completion_ns"] is None                   # UDP does not resend what was dropped
    assert r["cnps"] == 0 and r["pause_frames"] == 0
    assert r["qdepth_p99_bytes"] >= 0.95 * SMALL["buffer_bytes"]
    # The bottleneck is busy, with the wrong packets: back to back from the first arrival to the
    # last, so fully used (its frames' exact line time; whole ns per frame would read 99.93 %).
    assert r["utilisation"] == 1.0 and r["utilisation_port"] == "leaf1:p1"


def test_ecn_with_the_default_profile_stays_in_its_documented_band_without_loss(runs):
    """The default DCQCN profile (htsim's) at this size, within the band docs/ecn.md gives for
    seeds 1-3 (utilisation 75.6-80.3%, 78.7-83.8% after 2 ms, queue in Kmin..Kmax 42-48% of
    that time), bounded from above as well as below."""
    r, cfg = runs["ecn"], IncastConfig(**SMALL)
    assert r["profile"] == "htsim" and (cfg.kmin_bytes, cfg.kmax_bytes, cfg.pmax) == (4_000, 400_000, 1.0)
    assert r["drops"] == 0 and r["pause_frames"] == 0
    assert r["delivered_fraction"] == 1.0 and r["completion_ns"] is not None
    assert r["cnps"] > 0 and r["ce_marked"] >= r["cnps"]
    assert 0.72 <= r["utilisation"] <= 0.85
    # over the window from the receiver's first data arrival to its last (the completion)
    assert 0 < r["utilisation_from_ns"] < r["utilisation_to_ns"] == r["completion_ns"]
    assert 0.75 <= r["utilisation_steady"] <= 0.88
    assert 0.35 <= r["queue_in_band_fraction"] <= 0.60
    assert r["qdepth_p99_bytes"] <= 3 * cfg.kmax_bytes
    assert r["qdepth_p99_bytes"] < runs["droptail"]["qdepth_p99_bytes"] / 2
    assert r["jain"] >= 0.9
    # Everything moved in at most 1/0.72 of the time the line rate allows (on the wire: each
    # 4 KB payload in a frame with RoCE headers and Ethernet overhead), plus the RTT.
    ideal_ns = 4 * 16_000_000 / cfg.payload_bytes * (data_frame_len(cfg.payload_bytes) + 24) * 8 / 100
    assert r["completion_ns"] <= ideal_ns / 0.72 + 50_000


def test_pfc_alone_is_lossless_but_pauses_upstream_links(runs):
    r, cfg = runs["pfc"], IncastConfig(mode="pfc", **SMALL)
    assert r["drops"] == 0 and r["lossless_buffer"] is True
    assert r["delivered_fraction"] == 1.0 and r["completion_ns"] is not None
    assert r["cnps"] == 0 and r["ce_marked"] == 0         # no ECN: PFC alone holds the senders back
    assert r["pause_frames"] > 0
    # Pauses went upstream hop by hop: leaf1 -> spines -> leaf2 -> every sender's NIC.
    assert r["hosts_paused"] == SMALL["senders"]
    assert r["paused_ports"] > SMALL["senders"]
    assert r["host_paused_fraction"] > 0.5                # 4 line-rate senders share one link
    assert r["utilisation"] >= 0.99                       # the bottleneck never starves
    # The bottleneck queue is bounded by XOFF + headroom per ingress port (the 4 spine uplinks),
    # far below drop-tail's full buffer.
    bound = 4 * (cfg.pfc_xoff_bytes + cfg.mtu + 14 + headroom_bytes(400_000_000_000, 1000, cfg.mtu + 14))
    assert cfg.pfc_xoff_bytes <= r["qdepth_max_bytes"] <= bound
    assert r["qdepth_max_bytes"] < runs["droptail"]["qdepth_p99_bytes"] / 1.5
    ideal_ns = 4 * 16_000_000 / cfg.payload_bytes * (data_frame_len(cfg.payload_bytes) + 24) * 8 / 100
    assert r["completion_ns"] <= ideal_ns * 1.03
    # Fair over the run, but on/off: in 50 us bins the paused senders take turns.
    assert r["jain"] >= 0.95
    assert r["jain_short_term"] < 0.7 < runs["ecn"]["jain_short_term"]


def test_jain():
    assert jain([1, 1, 1, 1]) == 1.0
    assert jain([1, 0, 0, 0]) == 0.25
    assert jain([]) == 1.0


def test_command_json_and_plots(tmp_path, plots_drawn):
    res = CliRunner().invoke(main, ["scenario", "incast", "--senders", "2", "--mode", "all", "--transfer", "400KB",
                                    "--buffer", "300KB", "--json", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["results"]
    assert [r["mode"] for r in rows] == list(MODES) == ["droptail", "ecn", "pfc", "ecn+pfc"]
    for r in rows:
        assert set(JSON_KEYS) <= set(r) and r["senders"] == 2
    assert rows[0]["drops"] > 0 and rows[0]["pause_frames"] == rows[1]["pause_frames"] == 0
    for name in ("queue_depth.png", "flow_rates.png", "results.json"):
        assert (tmp_path / name).stat().st_size > 0
    res = CliRunner().invoke(main, ["scenario", "incast", "--senders", "2", "--mode", "pfc", "--transfer", "400KB",
                                    "--buffer", "300KB", "--xoff", "50KB", "--xon", "25KB", "--json"])
    assert res.exit_code == 0, res.output
    (r,) = json.loads(res.output)["results"]
    assert r["mode"] == "pfc" and r["drops"] == 0 and r["pause_frames"] > 0 and r["pfc_xoff_bytes"] == 50_000
    res = CliRunner().invoke(main, ["scenario", "incast", "--mode", "pfc", "--xoff", "1MB", "--xon", "2MB"])
    assert res.exit_code != 0 and "xon" in res.output
    res = CliRunner().invoke(main, ["scenario", "incast", "--mode", "hpcc"])
    assert res.exit_code != 0
    res = CliRunner().invoke(main, ["scenario", "incast", "--senders", "2", "--mode", "ecn", "--transfer", "400KB",
                                    "--profile", "hpcc-dcqcn", "--json"])
    assert res.exit_code == 0, res.output
    (r,) = json.loads(res.output)["results"]
    assert (r["profile"], r["kmin_bytes"], r["kmax_bytes"]) == ("hpcc-dcqcn", 400_000, 1_600_000)
    res = CliRunner().invoke(main, ["scenario", "incast", "--profile", "timely"])
    assert res.exit_code != 0 and all(name in res.output for name in PROFILES)
