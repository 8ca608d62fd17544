"""This tree's simulation speed against another commit's, side by side in one run.

Exports ``COMMIT`` (``git archive``, nothing in the repository changes) into a temporary
directory and runs this tree's ``tools/bench_sim.py`` (its workloads, built from each tree's
own code) against both trees, alternating: for each round, interpreter and workload, the
other commit first, then this tree, each in a process of its own. The figure is data packet-hops per CPU second; the table gives
each tree's best round and the ratio. Alternating rounds on the same machine keep the
comparison fair when other work shares the cores.

    python tools/bench_vs.py COMMIT [--rounds 3] [--workload udp,rdma-perm,incast] [--scale 1]
                             [--interpreter python3 --interpreter pypy3] [--json]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from bench_sim import WORKLOADS, run_under  # noqa: E402


def export(commit: str, into: Path) -> str:
    """Write ``commit``'s tree under ``into``; return its full hash."""
    full = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{commit}^{{commit}}"],
                          capture_output=True, text=True)
    if full.returncode != 0:
        raise SystemExit(f"bench_vs: no commit {commit!r} in {ROOT}")
    archive = subprocess.Popen(["git", "-C", str(ROOT), "archive", full.stdout.strip()], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise SystemExit(f"bench_vs: git archive {commit} failed")
    return full.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("commit", help="the commit to compare with (e.g. the start of a piece of work)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workload", default=",".join(WORKLOADS))
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--interpreter", action="append", default=None, metavar="PYTHON",
                    help="interpreters to compare under (repeatable; default: this one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    pythons = args.interpreter or [sys.executable]
    workloads = [w.strip() for w in args.workload.split(",") if w.strip()]
    best: dict[tuple[str, str, str], dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench_vs_") as tmp:
        old = Path(tmp)
        full = export(args.commit, old)
        trees = (("base", old), ("this", ROOT))
        for rnd in range(args.rounds):
            for python in pythons:
                for w, (label, root) in ((w, t) for w in workloads for t in trees):
                    # a process per workload and tree: a JIT's warm-up counts in every figure alike
                    for r in run_under(python, ["--workload", w, "--scale", str(args.scale)], root):
                        if Path(r["code"]).resolve() != root.resolve():
                            raise SystemExit(f"bench_vs: {python} imported dataplane from {r['code']}, not {root}")
                        key = (python, r["workload"], label)
                        if key not in best or r["hops_per_cpu_s"] > best[key]["hops_per_cpu_s"]:
                            best[key] = r
                        if not args.json:
                            print(f"round {rnd + 1} {label:<5}{r['interpreter']:<22}{r['workload']:<11}"
                                  f"{r['hops_per_cpu_s']:>10,} hops/CPU s", flush=True)
    rows = []
    for python in pythons:
        for w in workloads:
            b, t = best[(python, w, "base")], best[(python, w, "this")]
            if b["packet_hops"] != t["packet_hops"]:
                print(f"warning: {w} under {python}: {b['packet_hops']} hops at {full[:10]}, "
                      f"{t['packet_hops']} here (the runs differ)", file=sys.stderr)
            rows.append({"interpreter": t["interpreter"], "workload": w, "base": b["hops_per_cpu_s"],
                         "this": t["hops_per_cpu_s"], "ratio": round(t["hops_per_cpu_s"] / max(b["hops_per_cpu_s"], 1), 2),
                         "hops": t["packet_hops"]})
    if args.json:
        print(json.dumps({"base_commit": full, "rounds": args.rounds, "scale": args.scale, "results": rows}))
        return 0
    print(f"\nbest of {args.rounds} rounds, data packet-hops per CPU second; base = {full[:10]}")
    print(f"{'interpreter':<22}{'workload':<11}{'base':>10}{'this':>10}{'ratio':>7}")
    for r in rows:
        print(f"{r['interpreter']:<22}{r['workload']:<11}{r['base']:>10,}{r['this']:>10,}{r['ratio']:>6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
