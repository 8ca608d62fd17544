"""Incast at full size: `dataplane scenario incast` with 16 senders, drop-tail, ECN + DCQCN, PFC, ECN + PFC.

Runs the four modes (or ``--modes``) with the scenario's defaults (100 Gb/s hosts, 400 Gb/s
leaf-spine links, 16 MB egress buffers, 8 MB per sender in 4 KB RoCE packets, DCQCN and RED
marking from ``--profile`` (dataplane.net.apps.dcqcn_profiles, scaled to 100 Gb/s), PFC XOFF
1 MB / XON 500 KB per ingress port), prints the result rows (with how
far pauses reached), the wall time and the peak memory of the process, and optionally writes
the queue-depth plot, the per-flow rate plot and the JSON.

    python tools/bench_incast.py [--senders 16] [--modes droptail,ecn,pfc,ecn+pfc] [--transfer 8MB]
                                 [--buffer 16MB] [--profile NAME] [--kmin B --kmax B --pmax P]
                                 [--xoff 1MB --xon 500KB] [--seed 1]
                                 [--plot docs/ecn_queue.png] [--rates PATH.png] [--json]
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from dataplane.net.apps.dcqcn_profiles import DEFAULT_PROFILE, PROFILES
from dataplane.net.core.units import parse_queue
from dataplane.scenarios.incast import MODES, IncastConfig, format_row, plot_queue, plot_rates, run_incast


def peak_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def size(text: str) -> int:
    amount, kind = parse_queue(text)
    if kind != "bytes":
        raise argparse.ArgumentTypeError(f"{text!r} is not a size in bytes (e.g. 8MB)")
    return amount


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--senders", type=int, default=16)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--transfer", type=size, default=IncastConfig.transfer_bytes)
    ap.add_argument("--buffer", type=size, default=IncastConfig.buffer_bytes)
    ap.add_argument("--profile", choices=list(PROFILES), default=DEFAULT_PROFILE)
    ap.add_argument("--kmin", type=size, default=None, help="default: the profile's")
    ap.add_argument("--kmax", type=size, default=None, help="default: the profile's")
    ap.add_argument("--pmax", type=float, default=None, help="default: the profile's")
    ap.add_argument("--xoff", type=size, default=IncastConfig.pfc_xoff_bytes)
    ap.add_argument("--xon", type=size, default=IncastConfig.pfc_xon_bytes)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plot", type=Path, default=None, help="write the queue-depth plot here (PNG)")
    ap.add_argument("--rates", type=Path, default=None, help="write the per-flow rate plot here (PNG)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    runs = []
    for mode in [m for m in args.modes.split(",") if m.strip()]:
        cfg = IncastConfig(senders=args.senders, mode=mode, transfer_bytes=args.transfer, buffer_bytes=args.buffer,
                           profile=args.profile,
                           kmin_bytes=args.kmin, kmax_bytes=args.kmax, pmax=args.pmax, pfc_xoff_bytes=args.xoff,
                           pfc_xon_bytes=args.xon, seed=args.seed)
        run = run_incast(cfg)
        runs.append(run)
        if not args.json:
            print(format_row(run.result), flush=True)
            r = run.result
            if cfg.pfc:
                print(f"{'':>10}PFC: {r['pause_frames']} pause frames, {r['paused_ports']} ports paused, "
                      f"{r['hosts_paused']}/{r['senders']} senders paused {r['host_paused_fraction'] * 100:.1f}% "
                      f"of the time, buffer meets the headroom rule: {r['lossless_buffer']}", flush=True)
    wall = time.perf_counter() - t
    for path, plot in ((args.plot, plot_queue), (args.rates, plot_rates)):
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            plot(runs, path)
    if args.json:
        print(json.dumps({"results": [r.result for r in runs], "wall_s": round(wall, 2),
                          "peak_rss_mb": round(peak_rss_mb(), 1)}))
        return 0
    print(f"total wall time {wall:.1f} s; peak RSS {peak_rss_mb():.0f} MB")
    for path in (args.plot, args.rates):
        if path is not None:
            print(f"plot: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
