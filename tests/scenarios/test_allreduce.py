"""In-network allreduce scenario (programs/allreduce.p4 + dataplane.net.apps.allreduce) at small sizes."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.apps.allreduce import dequantise, make_scale, quantisation_bound, quantise
from dataplane.scenarios.allreduce import JSON_KEYS, make_data, run_allreduce

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)


def test_quantisation_cannot_overflow_and_is_within_bound():
    n = 8
    x = np.array([-3.5, 3.5, 0.0, 1e-3], dtype=np.float32)
    scale = make_scale(n, 3.5)
    q = quantise(x, scale).astype(np.int64)
    assert abs(int(q.max()) * n) <= 2**31 - 1 and abs(int(q.min()) * n) <= 2**31
    back = dequantise(q * n, scale).astype(np.float64)
    assert np.max(np.abs(back - x.astype(np.float64) * n)) <= quantisation_bound(n, scale, 3.5 * n)


@pytest.mark.parametrize("loss", [0.0, 0.01])
def test_ina_equals_numpy_sum_within_quantisation_bound(loss):
    r = run_allreduce("ina", workers=4, elements=3000, loss=loss, seed=3)
    assert r.max_abs_error <= r.error_bound
    if loss:
        assert r.retransmissions > 0      # 1% loss over ~4 x 94 x 2 packets: some were lost and recovered


def test_ring_equals_numpy_sum():
    r = run_allreduce("ring", workers=4, elements=3000, seed=3)
    assert r.max_abs_error <= r.error_bound
    assert r.retransmissions == 0


def test_every_worker_gets_the_same_result_as_numpy():
    from dataplane.net.apps.allreduce import InaWorker
    from dataplane.scenarios.allreduce import SWITCH_IP, build_network
    data = make_data(3, 500, seed=5)
    scale = make_scale(3, max(float(np.abs(d).max()) for d in data))
    net = build_network(3, loss=0.02, seed=7)
    ws = [InaWorker(net.host(f"h{i + 1}"), i, 3, data[i], scale, SWITCH_IP, window=4, timeout_ns=20_000,
                    keep_result=True)
          for i in range(3)]
    net.run()
    exact = np.sum([d.astype(np.float64) for d in data], axis=0)
    bound = quantisation_bound(3, scale, float(np.abs(exact).max()))
    for w in ws:
        assert w.done_ns is not None and not w.saturated
        assert np.max(np.abs(w.result() - exact)) <= bound
    assert np.array_equal(ws[0].result(), ws[1].result()) and np.array_equal(ws[1].result(), ws[2].result())


def test_bandwidth_bound_speedup_approaches_2_n_minus_1_over_n():
    n = 4
    data = make_data(n, 20_000, seed=2)
    ina = run_allreduce("ina", workers=n, elements=20_000, data=data)
    ring = run_allreduce("ring", workers=n, elements=20_000, data=data)
    bound = 2 * (n - 1) / n
    speedup = ring.completion_ns / ina.completion_ns
    assert abs(speedup - bound) / bound < 0.10, speedup


def test_cli_json():
    res = CliRunner().invoke(main, ["scenario", "allreduce", "--workers", "3", "--elements", "1000", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert [r["mode"] for r in out["results"]] == ["ina", "ring"]
    for r in out["results"]:
        assert set(r) == set(JSON_KEYS)
        assert r["workers"] == 3 and r["elements"] == 1000 and r["completion_ns"] > 0


def test_cli_out_dir(tmp_path, plots_drawn):
    res = CliRunner().invoke(main, ["scenario", "allreduce", "--workers", "2", "--elements", "200", "--mode", "ina", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "ina" in res.output
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["results"][0]["mode"] == "ina"
    assert (tmp_path / "allreduce.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_fat_tree_aggregates_edge_then_aggregation_then_core():
    """k=4: 16 workers, lossless. Every worker gets the numpy sum within the bound, and the
    counts show the hierarchy: each edge sends one packet per chunk up to its pod's first
    aggregation switch, each of those one per chunk to core 1, and core 1 one result per
    chunk back to each pod; nothing else crosses the core."""
    built = []
    r = run_allreduce("ina", elements=640, topology="fat-tree", fat_tree_k=4, seed=4, on_network=built.append)
    chunks = 640 // 32
    assert r.workers == 16 and r.topology == "fat-tree-k4" and r.retransmissions == 0
    assert 0 < r.max_abs_error <= r.error_bound
    net = built[0]
    for p in range(1, 5):
        for e in (1, 2):
            assert net.switch(f"edge{p}_{e}").ports[3].stats.tx_packets == chunks       # up to agg{p}_1
            assert net.switch(f"edge{p}_{e}").ports[4].stats.tx_packets == 0            # not to agg{p}_2
        assert net.switch(f"agg{p}_1").ports[3].stats.tx_packets == chunks              # up to core1
        assert net.switch("core1").ports[p].stats.tx_packets == chunks                  # results down
    assert all(p.stats.tx_packets == 0 for c in ("core2", "core3", "core4") for p in net.switch(c).ports.values())


def test_ring_runs_on_the_fat_tree():
    r = run_allreduce("ring", elements=640, topology="fat-tree", fat_tree_k=4, seed=4)
    assert r.workers == 16 and 0 < r.max_abs_error <= r.error_bound
