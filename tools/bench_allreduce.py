"""Full-size in-network allreduce against ring allreduce (the figures quoted in README), and the
simulator's cost of the in-network allreduce on a fat-tree, against another commit side by side.

8 workers, 10^6 float32 each, 10 Gbps links: ina and ring on lossless links, then ina
with 1% loss on every link. Prints the scenario's table, the speedup against the
2(N-1)/N bound and the wall-clock time of each run.

    python tools/bench_allreduce.py [--workers 8] [--elements 1000000]

``--tree K``: one ina run on the k-ary fat-tree (``--topology fat-tree``, k^3/4 workers) of
``--elements`` (32,768 by default); prints the run's CPU seconds (building the fabric and the
reference sum left out), its events and packet-hops, and the process's peak RSS. With ``--vs
COMMIT`` the same run of that commit's tree (``git archive``, as ``tools/bench_vs.py``) and of this
one, alternating, each in a process of its own, for ``--rounds`` rounds, under each
``--interpreter``: the best round of each and the ratios (the runs' results and event counts must
be equal). PyPy runs with ``PYPY_GC_NURSERY=32MB`` unless it is set, as the ``dataplane`` command
sets it for itself.

    python tools/bench_allreduce.py --tree 8 --elements 32768 --vs HEAD~1 --rounds 3 \\
        --interpreter python --interpreter /path/to/pypy3
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tree_run(k: int, elements: int) -> dict:
    """One ina run on the k-ary fat-tree: CPU seconds of the run, events, hops, peak RSS."""
    from dataplane.scenarios.allreduce import run_allreduce

    seen: dict = {}

    def on_network(net) -> None:
        seen["net"] = net
        seen["cpu0"] = time.process_time()

    r = run_allreduce("ina", elements=elements, topology="fat-tree", fat_tree_k=k, on_network=on_network)
    cpu = time.process_time() - seen["cpu0"]
    net = seen["net"]
    hops = sum(p.stats.tx_packets for n in list(net.switches.values()) + list(net.hosts.values())
               for p in n.ports.values())
    import dataplane
    return {"interpreter": f"{platform.python_implementation()} {platform.python_version()}",
            "code": str(Path(dataplane.__file__).parent.parent), "k": k, "elements": elements,
            "cpu_s": round(cpu, 3), "events": net.sim.events_run, "packet_hops": hops,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "result": [r.completion_ns, r.max_abs_error, r.retransmissions]}


def _run_in(python: str, root: Path, k: int, elements: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    env.setdefault("PYPY_GC_NURSERY", "32MB")      # read by PyPy only
    out = subprocess.run([python, str(Path(__file__).resolve()), "--tree", str(k), "--elements", str(elements),
                          "--json"], env=env, capture_output=True, text=True, cwd=root)
    if out.returncode != 0:
        raise SystemExit(f"{python} in {root} failed:\n{out.stderr.strip()}")
    r = json.loads(out.stdout)
    if Path(r["code"]).resolve() != root.resolve():
        raise SystemExit(f"{python} imported dataplane from {r['code']}, not {root}")
    return r


def versus(commit: str, k: int, elements: int, rounds: int, pythons: list[str]) -> int:
    """Side by side with ``commit`` (module docstring)."""
    sys.path.insert(0, str(ROOT / "tools"))
    from bench_vs import export

    best: dict[tuple[str, str], dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench_allreduce_") as tmp:
        full = export(commit, Path(tmp))
        for rnd in range(rounds):
            for python in pythons:
                for label, root in (("base", Path(tmp)), ("this", ROOT)):
                    r = _run_in(python, root, k, elements)
                    print(f"round {rnd + 1} {label:<5}{r['interpreter']:<16}{r['cpu_s']:>9.2f} CPU s"
                          f"{r['peak_rss_mb']:>9.0f} MB{r['events']:>11,} events", flush=True)
                    key = (python, label)
                    if key not in best or r["cpu_s"] < best[key]["cpu_s"]:
                        best[key] = r
    print(f"\nk={k}, {elements:,} elements, ina; best of {rounds} rounds; base = {full[:10]}")
    print(f"{'interpreter':<16}{'base CPU s':>11}{'this CPU s':>11}{'ratio':>7}{'base MB':>9}{'this MB':>9}")
    for python in pythons:
        b, t = best[(python, "base")], best[(python, "this")]
        if (b["result"], b["events"], b["packet_hops"]) != (t["result"], t["events"], t["packet_hops"]):
            print(f"warning: the runs differ under {python}: {b['result']} {b['events']} {b['packet_hops']} at "
                  f"{full[:10]}, {t['result']} {t['events']} {t['packet_hops']} here", file=sys.stderr)
        print(f"{t['interpreter']:<16}{b['cpu_s']:>11.2f}{t['cpu_s']:>11.2f}{b['cpu_s'] / t['cpu_s']:>6.2f}x"
              f"{b['peak_rss_mb']:>9.0f}{t['peak_rss_mb']:>9.0f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--elements", type=int, default=None, help="1,000,000 (star) or 32,768 (--tree)")
    ap.add_argument("--tree", type=int, default=None, metavar="K", help="the ina run on a k-ary fat-tree, timed")
    ap.add_argument("--vs", default=None, metavar="COMMIT", help="with --tree: against COMMIT, side by side")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--interpreter", action="append", default=None, metavar="PYTHON")
    ap.add_argument("--json", action="store_true", help="with --tree: one JSON line")
    args = ap.parse_args()
    if args.tree is not None:
        elements = args.elements or 32_768
        if args.vs is not None:
            return versus(args.vs, args.tree, elements, args.rounds, args.interpreter or [sys.executable])
        r = tree_run(args.tree, elements)
        print(json.dumps(r) if args.json else
              f"k={r['k']} {r['elements']:,} elements: {r['cpu_s']:.2f} CPU s, {r['events']:,} events, "
              f"{r['packet_hops']:,} packet-hops, peak RSS {r['peak_rss_mb']:.0f} MB")
        return 0
    from dataplane.scenarios.allreduce import _table, make_data, run_allreduce

    elements = args.elements or 1_000_000
    data = make_data(args.workers, elements, seed=1)
    runs = [run_allreduce("ina", args.workers, elements, data=data),
            run_allreduce("ring", args.workers, elements, data=data)]
    print(_table(runs))
    lossy = run_allreduce("ina", args.workers, elements, loss=0.01, data=data)
    print(_table([lossy]))
    for r in runs + [lossy]:
        print(f"{r.mode} loss {r.loss}: {r.wall_s:.1f} s wall clock")
    return 0


if __name__ == "__main__":
    sys.exit(main())
