"""Prefix-independent failover at full size: `dataplane scenario pic` for 1k..500k prefixes.

Runs the three modes (flat FIB, PIC, data-plane reroute) for each FIB size, prints the
scenario's table, the total wall time and the peak memory of the process
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``), and optionally writes the plot and the
JSON. The 500,000-prefix FIB is loaded through ``dataplane.control.bulk_load``.

    python tools/bench_pic.py [--prefixes 1000,10000,100000,500000] [--modes flat,pic,dataplane]
                              [--detection 1ms] [--write-rate 29000] [--plot docs/pic.png] [--json]
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from dataplane.net.core.units import parse_time
from dataplane.scenarios.pic import MODES, format_table, plot_pic, run_pic_sweep


def peak_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024   # bytes on macOS, KiB elsewhere


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prefixes", default="1000,10000,100000,500000")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--detection", default="1ms")
    ap.add_argument("--write-rate", type=float, default=29_000)
    ap.add_argument("--probe-interval", default="1ms")
    ap.add_argument("--plot", type=Path, default=None, help="write the convergence plot here (PNG)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    counts = [int(p) for p in args.prefixes.split(",") if p.strip()]
    modes = [m for m in args.modes.split(",") if m.strip()]

    def progress(r) -> None:
        print(f"  {r.mode:<10} {r.prefixes:>9,}: {r.run_wall_s + r.load_wall_s:6.2f} s, "
              f"peak RSS so far {peak_rss_mb():.0f} MB", file=sys.stderr, flush=True)

    t = time.perf_counter()
    results = run_pic_sweep(counts, modes, progress=progress, detection_ns=parse_time(args.detection),
                            write_rate=args.write_rate, probe_interval_ns=parse_time(args.probe_interval))
    wall = time.perf_counter() - t
    peak = peak_rss_mb()
    if args.plot is not None:
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        plot_pic(results, args.plot)
    if args.json:
        print(json.dumps({"results": [r.as_json() for r in results], "wall_s": round(wall, 2),
                          "peak_rss_mb": round(peak, 1)}))
        return 0
    print(format_table(results))
    print()
    biggest = max(counts)
    loads = [r.load_wall_s for r in results if r.prefixes == biggest]
    print(f"largest FIB: {biggest:,} prefixes loaded in {min(loads):.2f}-{max(loads):.2f} s")
    flat = {r.prefixes: r for r in results if r.mode == "flat"}
    pic = {r.prefixes: r for r in results if r.mode == "pic"}
    for n in sorted(set(flat) & set(pic)):
        print(f"flat / pic convergence at {n:>9,} prefixes: {flat[n].convergence_ns / max(pic[n].convergence_ns, 1):>9,.0f}x")
    print(f"total wall time {wall:.1f} s; peak RSS {peak:.0f} MB")
    if args.plot is not None:
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
