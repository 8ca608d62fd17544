"""Would the simulator gain from handing its switches batches? Two measurements, same run:

1. **Groups**: a ``dataplane run`` (the built-in leaf-spine unless a topology is given) with
   ``SwitchNode._ingress`` wrapped to count, per switch and simulated instant, the packets
   whose ingress runs then. Packets in groups of two or more are those a batch could take.
2. **Cost**: the first switch's program, on the batch engine and on the per-packet engine,
   for groups of 1, 2, 4, ... packets (CPU time per group, best of ``--repeat``), and the
   smallest group size at which the batch engine is the faster.

    python tools/sim_batches.py [--traffic incast] [--duration 50ms] [TOPOLOGY] [--json]
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time

SIZES = (1, 2, 4, 8, 16, 64, 256, 1024)


def count_groups(argv: list[str]) -> tuple[collections.Counter, dict, dict]:
    """Run ``dataplane run ARGV``: (packets per group size, the switches' Switch APIs by name,
    up to 1,024 of the (port, packet)s each switch took in, by name)."""
    from dataplane.cli import main
    from dataplane.net.devices import switch_node

    groups: collections.Counter = collections.Counter()
    apis: dict = {}
    samples: dict = collections.defaultdict(list)
    ingress = switch_node.SwitchNode._ingress

    def counted(self, port_number, data):
        groups[(self.name, self.sim.now)] += 1
        apis.setdefault(self.name, self.api)
        if len(samples[self.name]) < max(SIZES):
            samples[self.name].append((port_number, data))
        return ingress(self, port_number, data)

    switch_node.SwitchNode._ingress = counted
    try:
        main(["run", *argv], standalone_mode=False)
    finally:
        switch_node.SwitchNode._ingress = ingress
    sizes: collections.Counter = collections.Counter()
    for n in groups.values():
        sizes[n] += n
    return sizes, apis, samples


def group_costs(api, samples: list[tuple[int, bytes]], repeat: int) -> list[dict]:
    """CPU time per group of n of the switch's own packets on each engine (its tables as the
    run left them; counters go on counting, which changes neither engine's speed)."""
    from dataplane.engine.batch.layout import PacketBatch
    from dataplane.engine.batch.select import choose

    pipeline, why = choose(api.dp, "auto")
    if pipeline is None:
        return [{"refused": why}]
    import numpy as np

    out = []
    for n in SIZES:
        group = [samples[i % len(samples)] for i in range(n)]
        batch = PacketBatch.from_packets([d for _, d in group], np.array([p for p, _ in group], dtype=np.int64))
        rounds = max(1, 2048 // n)
        best_b = best_p = float("inf")
        for _ in range(repeat):
            t = time.process_time()
            for _ in range(rounds):
                pipeline.run(batch)
            best_b = min(best_b, (time.process_time() - t) / rounds)
            t = time.process_time()
            for _ in range(rounds):
                for port, data in group:
                    api.dp.process(port, data)
            best_p = min(best_p, (time.process_time() - t) / rounds)
        out.append({"group": n, "batch_us": round(best_b * 1e6, 1), "packet_us": round(best_p * 1e6, 1),
                    "batch_over_packet": round(best_b / best_p, 2)})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("topology", nargs="?")
    ap.add_argument("--traffic", default="incast")
    ap.add_argument("--duration", default="50ms")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    argv = ([args.topology] if args.topology else []) + ["--traffic", args.traffic, "--duration", args.duration]
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        sizes, apis, samples = count_groups(argv)
    total = sum(sizes.values())
    grouped = total - sizes.get(1, 0)
    first = next(iter(apis), None)
    costs = group_costs(apis[first], samples[first], args.repeat) if first else []
    even = next((c["group"] for c in costs if c.get("batch_over_packet", 9) < 1), None)
    r = {"traffic": args.traffic, "duration": args.duration, "packets": total,
         "grouped_share": round(grouped / total, 4) if total else 0.0,
         "largest_group": max(sizes) if sizes else 0,
         "packets_by_group_size": {str(k): v for k, v in sorted(sizes.items())},
         "costs": costs, "break_even_group": even}
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"{total:,} packets into switch ingress ({args.traffic}, {args.duration}); "
          f"{r['grouped_share']:.1%} in same-instant groups, the largest of {r['largest_group']}")
    for c in costs:
        if "refused" in c:
            print(f"batch engine: {c['refused']}")
            break
        print(f"group {c['group']:>5}: batch {c['batch_us']:>9,.1f} us  per-packet {c['packet_us']:>9,.1f} us  "
              f"x{c['batch_over_packet']}")
    print(f"batch engine faster from groups of {even}" if even else "batch engine never faster here")
    return 0


if __name__ == "__main__":
    sys.exit(main())
