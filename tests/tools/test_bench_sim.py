"""tools/bench_sim.py: its RDMA workloads move what they say they move, and the decision
cache (``--without decisions``) changes none of what they measure but the time."""
from __future__ import annotations

import math

import pytest

pytestmark = pytest.mark.no_pypy     # a measurement tool's bookkeeping: nothing the interpreter changes


def test_the_permutation_moves_every_host(load_tool):
    bench = load_tool("bench_sim")
    for seed in range(5):
        p = bench.permutation(16, seed)
        assert sorted(p) == list(range(16)) and all(i != v for i, v in enumerate(p))


def test_incast_hops_are_every_data_packet_over_its_four_links(monkeypatch, load_tool):
    """16 senders, each message in 4 KB payloads, each packet host -> leaf -> spine -> leaf -> host."""
    bench = load_tool("bench_sim")
    scale = 0.01
    r = bench.run("incast", scale)
    packets = math.ceil(int(bench.SIZE["incast"] * scale) / bench.PAYLOAD)
    assert r["packet_hops"] == 16 * packets * 4
    from dataplane.net.devices.switch_node import SwitchNode

    monkeypatch.setattr(SwitchNode, "decision_cache", False)
    off = bench.run("incast", scale)
    for k in ("packet_hops", "events", "sim_time_ns", "pause_frames"):
        assert off[k] == r[k], k


def test_the_host_workloads_count_every_packet_on_their_one_link(load_tool):
    """``hosts``: every 4 KB payload of the message crosses the one link once. ``hosts-qp``: so
    does every packet of the 1 MB messages, and one ACK every 16 of them (``ack_every``, the
    message's last packet among them), back the other way."""
    bench = load_tool("bench_sim")
    r = bench.run("hosts", 0.002)
    assert r["packet_hops"] == math.ceil(int(bench.SIZE["hosts"] * 0.002) / bench.PAYLOAD) == 489
    q = bench.run("hosts-qp", 0.004)
    messages = int(bench.SIZE["hosts-qp"] * 0.004) // (1 << 20)
    assert messages == 1
    assert q["packet_hops"] == messages * (256 + 16)


def test_the_gc_clock_counts_a_collection_and_no_more(load_tool):
    """GcClock: a full collection of many cycles adds its time, at most the CPU time it took."""
    import gc
    import time

    bench = load_tool("bench_sim")
    clock = bench.GcClock()
    try:
        junk = []
        for _ in range(200_000):
            a: list = []
            a.append(a)
            junk.append(a)
        del junk, a
        before, cpu = clock.seconds(), time.process_time()
        gc.collect()
        spent, took = clock.seconds() - before, time.process_time() - cpu
        assert 0 < spent <= took
    finally:
        clock.close()
    assert clock._callback not in gc.callbacks


def test_run_as_a_script_it_measures_its_own_tree_not_an_installed_copy(tmp_path):
    """An installed dataplane (here a site directory whose package refuses to load) comes after
    this tree; a tree named in PYTHONPATH (``bench_vs.py``'s other commit) still comes first."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    installed = tmp_path / "site-packages" / "dataplane"
    installed.mkdir(parents=True)
    (installed / "__init__.py").write_text("raise ImportError('the installed copy')\n")
    other = tmp_path / "other"
    (other / "dataplane").mkdir(parents=True)
    (other / "dataplane" / "__init__.py").write_text("raise ImportError('the tree in PYTHONPATH')\n")
    code = "\n".join([
        "import runpy, site, sys",
        "site.addsitedir(sys.argv[1])",
        f"sys.argv = [{str(root / 'tools' / 'bench_sim.py')!r}, '--workload', 'hosts', '--scale', '0.0001']",
        "try:",
        "    runpy.run_path(sys.argv[0], run_name='__main__')",
        "except SystemExit:",
        "    pass",
        "import dataplane",
        "print(dataplane.__file__)"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site-packages")],
                         capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == str(root / "dataplane" / "__init__.py")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site-packages")],
                         capture_output=True, text=True, env={**env, "PYTHONPATH": str(other)}, timeout=120, cwd=tmp_path)
    assert run.returncode != 0 and "the tree in PYTHONPATH" in run.stderr


def test_run_from_its_command_line_it_takes_the_commands_pypy_nursery(monkeypatch, load_tool):
    """``main()`` with the process's own arguments asks ``dataplane.cli.pypy_gc`` to start it
    again with the command's young generation (a no-op on CPython); arguments given in code, as
    here and in ``bench_vs``'s imports, never start anything again."""
    import sys

    import dataplane.cli.pypy_gc as pypy_gc

    bench = load_tool("bench_sim")
    asked: list[bool] = []
    monkeypatch.setattr(pypy_gc, "relaunch_with_nursery", lambda: asked.append(True))
    monkeypatch.setattr(sys, "argv", ["bench_sim.py", "--workload", "hosts", "--scale", "0.0001", "--json"])
    assert bench.main() == 0 and asked == [True]
    assert bench.main(["--workload", "hosts", "--scale", "0.0001", "--json"]) == 0 and asked == [True]


def test_another_tree_runs_with_the_commands_nursery_even_without_the_module(monkeypatch, tmp_path, load_tool):
    """``bench_vs.py`` runs an older commit's tree, which may have no ``dataplane.cli.pypy_gc``: the
    run is given ``PYPY_GC_NURSERY`` as this tree's command sets it, and the script goes on without
    the module (it failed with ModuleNotFoundError under PyPy)."""
    import subprocess
    import sys

    bench = load_tool("bench_sim")
    seen = {}
    real_run = subprocess.run

    def fake_run(cmd, env, **kw):
        seen.update(env)
        return subprocess.CompletedProcess(cmd, 0, "[]", "")
    monkeypatch.delenv("PYPY_GC_NURSERY", raising=False)
    monkeypatch.delenv("DATAPLANE_PYPY_NURSERY", raising=False)
    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    assert bench.run_under("pypy3", ["--workload", "hosts"], tmp_path) == []
    assert seen["PYPY_GC_NURSERY"] == "32MB" and seen["PYTHONPATH"].split(":")[0] == str(tmp_path)
    monkeypatch.setenv("DATAPLANE_PYPY_NURSERY", "off")
    seen.clear()
    bench.run_under("pypy3", ["--workload", "hosts"], tmp_path)
    assert "PYPY_GC_NURSERY" not in seen
    # a tree whose dataplane has no cli.pypy_gc: the script itself still runs
    root = bench.Path(bench.__file__).resolve().parent.parent
    code = ("import sys, builtins\n"
            "real = builtins.__import__\n"
            "def imp(name, *a, **k):\n"
            "    if name == 'dataplane.cli.pypy_gc':\n"
            "        raise ImportError(name)\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = imp\n"
            f"sys.argv = [{str(root / 'tools' / 'bench_sim.py')!r}, '--workload', 'hosts', '--scale', '0.0001']\n"
            "import runpy\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    run = real_run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]


def test_without_out_of_line_the_first_run_marks_no_call(monkeypatch, load_tool):
    """``--without out-of-line`` empties the functions PyPy's first run would mark (the port's two,
    named when its module is imported)."""
    from dataplane import pypy_jit

    monkeypatch.setattr(pypy_jit, "_not_inlined", list(pypy_jit._not_inlined))
    bench = load_tool("bench_sim")
    bench.LEVERS["out-of-line"]()
    import dataplane.net.devices.link  # noqa: F401

    assert pypy_jit._not_inlined == []
