"""Compile-time benchmark: how long each front-end pass takes on every program in programs/.

Prints, per program, its line count (prelude excluded), the best-of-N time of each
pass with the lark parser already built (what a long-running process pays), and, as a
baseline measured in the same run, the time lark alone takes to tokenize the same
preprocessed text. The first line reports the one-off cost of building the parser.

    python tools/bench_compile.py [--repeat N] [--json] [PROGRAM.p4 ...]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from dataplane.lang import parser as p4parser
from dataplane.lang.frontend import compile_file
from dataplane.lang.preprocess import preprocess
from dataplane.resources import data_dir


def bench(path: Path, repeat: int) -> dict:
    best: dict[str, float] = {}
    for _ in range(repeat):
        timings = compile_file(path).timings
        for k, v in timings.items():
            best[k] = min(best.get(k, v), v)
    pre = preprocess(path)
    lex_best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        list(p4parser._lark().lex(pre.text))
        lex_best = min(lex_best, time.perf_counter() - t)
    lines = sum(1 for _ in path.open())
    return {"program": path.name, "lines": lines, **{f"{k}_ms": round(v * 1000, 2) for k, v in best.items()},
            "lex_baseline_ms": round(lex_best * 1000, 2), "total_over_lex": round(best["total"] / lex_best, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = ap.parse_args()
    programs = args.programs or sorted(data_dir("programs").glob("*.p4"))

    t = time.perf_counter()
    p4parser._lark.cache_clear()
    p4parser._lark()
    build_ms = (time.perf_counter() - t) * 1000

    rows = [bench(p, args.repeat) for p in programs]
    if args.json:
        print(json.dumps({"parser_build_ms": round(build_ms, 1), "programs": rows}))
        return 0
    print(f"parser build (once per process, lark cache warm or cold): {build_ms:.1f} ms")
    print(f"{'program':28} {'lines':>5} {'prepr':>7} {'parse':>7} {'check':>7} {'total':>7} {'lex':>7} {'tot/lex':>7}")
    for r in rows:
        print(f"{r['program']:28} {r['lines']:>5} {r['preprocess_ms']:>7.1f} {r['parse_ms']:>7.1f} "
              f"{r['check_ms']:>7.1f} {r['total_ms']:>7.1f} {r['lex_baseline_ms']:>7.1f} {r['total_over_lex']:>7.1f}")
    print("times in ms, best of", args.repeat, "; lex = lark tokenizing the preprocessed text alone (baseline)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
