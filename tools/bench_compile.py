"""Compile-time benchmark: how long each front-end pass takes, on the built-in programs or on
generated programs of growing size.

Built-in mode prints, per program in programs/, its line count (prelude excluded) and the
best-of-N time of each pass with the lark parser already built (what a long-running process
pays). Generated mode (``--generated``) compiles programs of N headers from
``tools/gen_big_program.py``, each size in a fresh process so that its peak memory is its
own, and adds the engine's code generation and a whole ``Switch`` construction; it prints
the cost per header of every size so that growth worse than linear shows as a rising figure.

In both, the baseline measured in the same run is lark's own lexer on the same preprocessed
text (``lex``); ``tot/lex`` is the front end's total over it. Passes: ``prepr`` the
preprocessor, ``tokens`` the token pass (postlex), ``parse`` the LALR parser, ``build`` the IR
builder, ``check`` the type checker, ``codegen`` the engine's ``generate``, ``switch`` a
``Switch`` built from the checked program (code generation, Python's compile, tables).

    python tools/bench_compile.py [--repeat N] [--json] [PROGRAM.p4 ...]
    python tools/bench_compile.py --generated [N ...]        # default sizes 100 1000 10000
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_big_program import big_program  # noqa: E402

from dataplane.lang import parser as p4parser  # noqa: E402
from dataplane.lang.frontend import compile_file  # noqa: E402
from dataplane.resources import data_dir  # noqa: E402

PASSES = ("preprocess", "lex", "tokens", "parse", "build", "check")
_COLS = {"preprocess": "prepr", "lex": "lex", "tokens": "tokens", "parse": "parse", "build": "build",
         "check": "check", "total": "total"}
DEFAULT_SIZES = (100, 1000, 10000)


def bench(path: Path, repeat: int) -> dict:
    """Best-of-``repeat`` pass times of one program file, in ms."""
    best: dict[str, float] = {}
    for _ in range(repeat):
        timings = compile_file(path).timings
        for k, v in timings.items():
            best[k] = min(best.get(k, v), v)
    lines = sum(1 for _ in path.open())
    return {"program": path.name, "lines": lines, **{f"{k}_ms": round(v * 1000, 2) for k, v in best.items()},
            "total_over_lex": round(best["total"] / best["lex"], 1)}


def _rss_mb() -> float:
    """Peak resident memory of this process so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_generated(n: int, repeat: int) -> dict:
    """Compile the generated ``n``-header program ``repeat`` times (best time kept), then build a
    Switch from it; run in a process of its own so that the peak memory is this size's."""
    from dataplane.control.switch import Switch
    from dataplane.engine.backend import generate
    from dataplane.gc_pause import paused_gc

    p4parser._lark()
    p4parser._lexer()
    base_mb = _rss_mb()
    text = big_program(n)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"big{n}.p4"
        path.write_text(text)
        best: dict[str, float] = {}
        for _ in range(repeat):
            result = compile_file(path)
            for k, v in result.timings.items():
                best[k] = min(best.get(k, v), v)
    program = result.program
    front_mb = _rss_mb()
    t = time.perf_counter()
    with paused_gc():  # as Switch construction runs it
        generate(program)
    best["codegen"] = time.perf_counter() - t
    t = time.perf_counter()
    Switch(program)
    best["switch"] = time.perf_counter() - t
    return {"headers": n, "bytes": len(text), "lines": text.count("\n"),
            **{f"{k}_ms": round(v * 1000, 2) for k, v in best.items()},
            "total_over_lex": round(best["total"] / best["lex"], 1),
            "base_mb": round(base_mb, 1), "front_mb": round(front_mb, 1), "peak_mb": round(_rss_mb(), 1)}


def _run_generated(sizes: list[int], repeat: int) -> list[dict]:
    rows = []
    for n in sizes:
        reps = repeat if n < 5000 else 1
        out = subprocess.run([sys.executable, __file__, "--child", str(n), "--repeat", str(reps)],
                             check=True, capture_output=True, text=True).stdout
        rows.append(json.loads(out))
    return rows


def _print_generated(rows: list[dict]) -> None:
    head = (f"{'headers':>7} {'MB':>5} " + " ".join(f"{_COLS[k]:>7}" for k in (*PASSES, "total"))
            + f" {'codegen':>7} {'switch':>7} {'tot/lex':>7} {'frontMB':>7} {'peakMB':>7}")
    print(head)
    for r in rows:
        print(f"{r['headers']:>7} {r['bytes'] / 1e6:>5.2f} "
              + " ".join(f"{r[k + '_ms'] / 1000:>7.2f}" for k in (*PASSES, "total"))
              + f" {r['codegen_ms'] / 1000:>7.2f} {r['switch_ms'] / 1000:>7.2f} {r['total_over_lex']:>7.1f}"
              f" {r['front_mb']:>7.0f} {r['peak_mb']:>7.0f}")
    print("times in s (best of --repeat below 5,000 headers, else one run); frontMB, peakMB = peak RSS of the"
          f" process after the front end and after the Switch (imports and parser: {rows[0]['base_mb']:.0f} MB)")
    print()
    print("per header (ms); x = this size's cost per header over the smallest size's")
    print(f"{'headers':>7} " + " ".join(f"{_COLS[k]:>7}" for k in (*PASSES, "total"))
          + f" {'codegen':>7} {'switch':>7} {'x total':>7} {'x switch':>8} {'KB/hdr':>7} {'fe KB/hdr':>9}")
    first = rows[0]

    def per(r: dict, k: str) -> float:
        return r[k + "_ms"] / r["headers"]

    for r in rows:
        mem = (r["peak_mb"] - r["base_mb"]) * 1024 / r["headers"]
        front = (r["front_mb"] - r["base_mb"]) * 1024 / r["headers"]
        print(f"{r['headers']:>7} " + " ".join(f"{per(r, k):>7.3f}" for k in (*PASSES, "total"))
              + f" {per(r, 'codegen'):>7.3f} {per(r, 'switch'):>7.3f}"
              f" {per(r, 'total') / per(first, 'total'):>7.2f} {per(r, 'switch') / per(first, 'switch'):>8.2f}"
              f" {mem:>7.1f} {front:>9.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--generated", type=int, nargs="*", metavar="N",
                    help=f"benchmark generated programs of N headers (default {' '.join(map(str, DEFAULT_SIZES))})")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(bench_generated(args.child, args.repeat)))
        return 0
    if args.generated is not None:
        rows = _run_generated(sorted(args.generated or DEFAULT_SIZES), args.repeat)
        if args.json:
            print(json.dumps({"interpreter": sys.implementation.name, "generated": rows}))
        else:
            _print_generated(rows)
        return 0
    programs = args.programs or sorted(data_dir("programs").glob("*.p4"))

    t = time.perf_counter()
    p4parser._lark.cache_clear()
    p4parser._lexer.cache_clear()
    p4parser._lark()
    build_ms = (time.perf_counter() - t) * 1000

    rows = [bench(p, args.repeat) for p in programs]
    if args.json:
        print(json.dumps({"parser_build_ms": round(build_ms, 1), "programs": rows}))
        return 0
    print(f"parser build (once per process, lark cache warm or cold): {build_ms:.1f} ms")
    cols = (*PASSES, "total")
    print(f"{'program':24} {'lines':>5} " + " ".join(f"{_COLS[k]:>6}" for k in cols) + f" {'tot/lex':>7}")
    for r in rows:
        print(f"{r['program']:24} {r['lines']:>5} " + " ".join(f"{r[k + '_ms']:>6.1f}" for k in cols)
              + f" {r['total_over_lex']:>7.1f}")
    print("times in ms, best of", args.repeat, "; lex = lark's lexer alone on the preprocessed text (baseline)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
