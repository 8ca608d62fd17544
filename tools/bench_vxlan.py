"""Full-size VXLAN overlay runs, software VTEP against DPU offload (the figures in README and docs/vxlan.md).

1. Full size: 32 servers (one VM each), 4 tenants reusing the same inner addresses, 4 leaves
   x 4 spines, 100 Gbps per VM for 200 us of simulated time.
2. Offered load: 8 servers, 2 tenants, 2 leaves x 2 spines, 25-200 Gbps per VM for 100 us:
   host cores grow with the rate in software; the DPUs' utilisation grows until their
   pipeline (400 Gb/s shared by both directions) is full.
3. Three spines (8 servers, 500 us): ECMP over a path count that is not a power of two.

For each: delivered/sent, cross-tenant leaks, unknown-VNI drops against injected, spine
share, host cores (total and per server) in both modes, DPU utilisation, wall-clock time.

    python tools/bench_vxlan.py [--plot docs/vxlan.png] [--quick] [--json]

``--json`` prints the three parts' result rows (each with its ``modes``) as one JSON object,
``{"full": row, "sweep": [row, ...], "three_spines": row}``, instead of the tables
(tools/readme_figures.py reads it).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from dataplane.scenarios.vxlan import VxlanConfig, format_rows, run_vxlan
from dataplane.scenarios.vxlan_plots import plot_vxlan


def check(row: dict) -> None:
    """What must hold in every run; a broken invariant stops the benchmark."""
    for mode, m in row["modes"].items():
        problems = []
        if m["delivered"] != m["sent"] or not m["every_pair_complete"]:
            problems.append(f"delivered {m['delivered']} of {m['sent']}")
        if m["cross_tenant_leaks"] or m["misdelivered"]:
            problems.append(f"{m['cross_tenant_leaks']} leaks, {m['misdelivered']} misdelivered")
        if m["dropped_unknown_vni"] != m["injected_unknown_vni"]:
            problems.append(f"unknown VNI {m['dropped_unknown_vni']} dropped of {m['injected_unknown_vni']}")
        if problems:
            print(f"  ! {mode}: {'; '.join(problems)}", file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plot", type=Path, help="write the figure (rate sweep + full-size spine spread) here")
    ap.add_argument("--quick", action="store_true", help="a tenth of the simulated time (smoke run)")
    ap.add_argument("--json", action="store_true", help="print the result rows as JSON instead of tables")
    args = ap.parse_args()
    show = (lambda *a, **k: None) if args.json else print
    scale = 10 if args.quick else 1
    t0 = time.perf_counter()

    full = run_vxlan(VxlanConfig(hosts=32, tenants=4, leaves=4, spines=4, duration_ns=200_000 // scale))
    show(format_rows([full]))
    check(full)
    show()
    sweep = []
    for gbps in (25, 50, 100, 150, 200):
        sweep.append(run_vxlan(VxlanConfig(rate_bps=gbps * 10**9, duration_ns=100_000 // scale)))
        check(sweep[-1])
    show(format_rows(sweep))
    for r in sweep:
        show(f"  {r['rate_bps'] / 1e9:5g} Gbps/VM: software {r['host_cores_software'] / r['hosts']:6.2f} cores "
             f"per server, DPU utilisation {r['dpu_utilisation_mean'] * 100:5.1f}% (load "
             f"{r['dpu_load_mean'] * 100:5.1f}%), DPU pipeline drops {r['dpu_drops']}, mean one-way delay "
             f"offload {r['modes']['offload']['mean_delay_ns'] / 1000:.2f} us / software "
             f"{r['modes']['software']['mean_delay_ns'] / 1000:.2f} us")
    show()
    three = run_vxlan(VxlanConfig(spines=3, duration_ns=500_000 // scale))
    show(format_rows([three]))
    check(three)
    if args.plot is not None:
        plot_vxlan(sweep, args.plot, spread=full)
        show(f"wrote {args.plot}")
    if args.json:
        print(json.dumps({"full": full, "sweep": sweep, "three_spines": three}))
    show(f"total {time.perf_counter() - t0:.1f} s wall clock")
    return 0


if __name__ == "__main__":
    sys.exit(main())
