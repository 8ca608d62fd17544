"""tools/bench_allreduce.py ``--tree``: the run it times is the scenario's (same result, every
packet-hop of the hierarchy counted), and ``--vs`` compares two trees' runs of it."""
from __future__ import annotations

import pytest

from dataplane.scenarios.allreduce import run_allreduce

pytestmark = pytest.mark.no_pypy     # a measurement tool's bookkeeping: nothing the interpreter changes


def test_the_timed_run_is_the_scenarios_and_counts_every_hop(load_tool):
    """k=4, 16 workers, 1,024 elements: 32 chunks of 32. Per chunk, lossless: 16 packets host to
    edge, 8 partial sums edge to aggregation, 4 up to core 1, 4 results down to the pods, 8 to
    the edges and 16 to the hosts: 56 hops."""
    bench = load_tool("bench_allreduce")
    r = bench.tree_run(4, 1024)
    assert r["packet_hops"] == 32 * (16 + 8 + 4 + 4 + 8 + 16) == 1792
    s = run_allreduce("ina", elements=1024, topology="fat-tree", fat_tree_k=4)
    assert r["result"] == [s.completion_ns, s.max_abs_error, s.retransmissions]
    assert r["events"] > r["packet_hops"] and r["cpu_s"] > 0 and r["peak_rss_mb"] > 0


def test_versus_a_commit_prints_both_and_the_ratio(load_tool, capsys):
    """Against HEAD (the same code unless the tree has changes): both trees run, the results agree
    (no warning), and the table has the ratio of their CPU times."""
    bench = load_tool("bench_allreduce")
    import sys

    assert bench.versus("HEAD", 4, 1024, 1, [sys.executable]) == 0
    out = capsys.readouterr()
    assert "warning" not in out.err
    rows = [line for line in out.out.splitlines() if line.startswith("CPython")]
    assert len(rows) == 1 and rows[0].split()[-3].endswith("x")
    assert out.out.count("round 1 ") == 2
