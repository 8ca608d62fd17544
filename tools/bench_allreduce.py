"""Full-size in-network allreduce against ring allreduce (the figures quoted in README).

8 workers, 10^6 float32 each, 10 Gbps links: ina and ring on lossless links, then ina
with 1% loss on every link. Prints the scenario's table, the speedup against the
2(N-1)/N bound and the wall-clock time of each run.

    python tools/bench_allreduce.py [--workers 8] [--elements 1000000]
"""
from __future__ import annotations

import argparse
import sys

from dataplane.scenarios.allreduce import _table, make_data, run_allreduce


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--elements", type=int, default=1_000_000)
    args = ap.parse_args()
    data = make_data(args.workers, args.elements, seed=1)
    runs = [run_allreduce("ina", args.workers, args.elements, data=data),
            run_allreduce("ring", args.workers, args.elements, data=data)]
    print(_table(runs))
    lossy = run_allreduce("ina", args.workers, args.elements, loss=0.01, data=data)
    print(_table([lossy]))
    for r in runs + [lossy]:
        print(f"{r.mode} loss {r.loss}: {r.wall_s:.1f} s wall clock")
    return 0


if __name__ == "__main__":
    sys.exit(main())
