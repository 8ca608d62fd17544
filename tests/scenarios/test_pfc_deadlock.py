"""`dataplane scenario pfc-deadlock` at a small size: the ring deadlocks under PFC without the
watchdog; the watchdog breaks it (drop: the held packets are discarded; forward: delivered)
and the fabric carries traffic again."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.scenarios.pfc_deadlock import JSON_KEYS, DeadlockConfig, build, measure, run_mode

SMALL = dict(bytes_per_host=150_000, duration_ns=600_000, detection_ns=40_000, restoration_ns=60_000)


@pytest.fixture(scope="module")
def rows():
    return {mode: run_mode(DeadlockConfig(**SMALL), mode)[0] for mode in ("off", "watchdog")}


def test_without_the_watchdog_the_ring_deadlocks(rows):
    r = rows["off"]
    assert r["deadlocked_ports"] == ["s1:p2", "s2:p2", "s3:p2"]
    assert 0 < r["delivered_bytes"] < r["sent_bytes"] // 2
    assert r["probe_delivered_bytes"] == 0 and r["probe_bytes"] > 0     # nothing gets through any more
    assert r["tail_drops"] == 0 and r["storms"] == 0                      # lossless: stuck, not dropped


def test_the_watchdog_breaks_the_deadlock(rows):
    r = rows["watchdog"]
    assert r["deadlocked_ports"] == [] and r["storms"] >= 3 and r["restorations"] == r["storms"]
    assert r["probe_delivered_bytes"] == r["probe_bytes"]
    # SONiC's default action drops what the stormed queues hold and what arrives while stormed:
    # every byte is either delivered or counted as a watchdog drop.
    assert r["delivered_bytes"] + r["storm_drops"] * 1000 == r["sent_bytes"] and r["storm_drops"] > 0
    assert r["tail_drops"] == 0                 # the watchdog's drops are not tail drops


def test_tail_drops_are_the_switch_ports_drops_only():
    """tail_drops sums the drops of the switches' ports; a drop counted at a host's port (its
    NIC's queue) is the host's, apart from them."""
    cfg = DeadlockConfig(**SMALL)
    net = build(cfg, watchdog=False)
    net.run(10_000)
    net.host("h1").ports[0].stats.drops = 7
    net.switch("s2").ports[2].stats.drops = 3
    net.switch("s3").ports[1].stats.drops = 1
    assert measure(cfg, "off", net, [], 0)["tail_drops"] == 4


def test_the_forward_action_delivers_everything():
    r = run_mode(DeadlockConfig(action="forward", **SMALL), "watchdog")[0]
    assert r["delivered_bytes"] == r["sent_bytes"] and r["storm_drops"] == 0 and r["storms"] >= 3


def test_cli_json_and_out(tmp_path):
    res = CliRunner().invoke(main, ["scenario", "pfc-deadlock", "--mode", "off", "--bytes", "60KB",
                                    "--duration", "200us", "--json", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [r["mode"] for r in rows] == ["off"] and set(JSON_KEYS) <= set(rows[0])
    assert json.loads((tmp_path / "results.json").read_text()) == rows
    assert (tmp_path / "summary-off.json").exists()


def test_bad_options_are_usage_errors():
    res = CliRunner().invoke(main, ["scenario", "pfc-deadlock", "--switches", "2"])
    assert res.exit_code == 2 and "switches must be 3..16" in res.output
