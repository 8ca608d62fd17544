"""Collective speed: how fast the simulator runs a ring AllReduce on a fat-tree.

For each k (``--k 4 8``) one AllReduce of ``--size`` bytes over every host of a k-ary fat-tree
of 100G hosts (``dataplane collective allreduce``'s fabric: programs/ecn.p4 on every switch,
PFC, the RDMA-style transport), timed: wall time, CPU time, the packet-hops the run made (a
packet crossing one link, data and acknowledgements) and hops per CPU second, next to the
simulated time and busbw (identical on every interpreter: the run is deterministic). As a
baseline measured in the same run, tools/bench_sim.py's UDP workload's hops per CPU second:
the ratio says what the RDMA transport and the collective cost beside plain UDP.

``--interpreter PYTHON`` (repeatable) runs the same from this source tree under another
interpreter (PyPy, say) and prints its figures with the ratio to this one's.

    python tools/bench_collective.py [--size 16M] [--k 4 8] [--json] [--interpreter pypy3 ...]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dataplane.scenarios._collective import CollectiveConfig, parse_size, run_size  # noqa: E402
from dataplane.scenarios.fabric import FabricConfig  # noqa: E402


def _hops(net) -> int:
    return sum(p.stats.tx_packets for n in list(net.switches.values()) + list(net.hosts.values())
               for p in n.ports.values())


def measure(k: int, size: int) -> dict:
    """One ring AllReduce of ``size`` bytes on a k-ary fat-tree."""
    from dataplane.net.fabric import network

    built: list = []
    network.observers.append(built.append)
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        row = run_size(CollectiveConfig("allreduce", "ring", FabricConfig(k=k), check_bytes=0), size)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        network.observers.remove(built.append)
    assert row is not None
    hops = _hops(built[-1])
    return {"k": k, "ranks": row["ranks"], "size": row["size"], "sim_us": row["time_us"], "busbw": row["busbw"],
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "hops": hops, "hops_per_cpu_s": round(hops / cpu)}


def udp_baseline() -> float:
    """tools/bench_sim.py's workload for 5 ms: its hops per CPU second."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_sim

    net = bench_sim.build(5_000_000)
    cpu = time.process_time()
    net.run(until_ns=5_000_000)
    cpu = time.process_time() - cpu
    return bench_sim.hops(net) / cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="16M", help="AllReduce size (nccl-tests' units: K, M, G are 1024-based)")
    ap.add_argument("--k", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--interpreter", action="append", default=[], help="also run under this Python")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    size = parse_size(args.size)
    runs = [measure(k, size) for k in args.k]
    baseline = udp_baseline()
    me = {"python": f"{platform.python_implementation()} {platform.python_version()}", "runs": runs,
          "udp_hops_per_cpu_s": round(baseline)}
    if args.child:
        print(json.dumps(me))
        return
    others = []
    for exe in args.interpreter:
        cmd = [exe, __file__, "--size", args.size, "--k", *map(str, args.k), "--child"]
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
        if proc.returncode != 0:
            sys.exit(f"{exe} failed:\n{proc.stderr}")
        others.append(json.loads(proc.stdout))
    if args.json:
        print(json.dumps({"results": [me, *others]}))
        return
    for res in [me, *others]:
        print(f"{res['python']}: UDP baseline (bench_sim's workload) {res['udp_hops_per_cpu_s']:,} hops/CPU s")
        for r in res["runs"]:
            print(f"  k={r['k']} ({r['ranks']} ranks), AllReduce {r['size']:,} B: simulated {r['sim_us']:.1f} us, "
                  f"busbw {r['busbw']:.2f} GB/s; wall {r['wall_s']:.1f} s, CPU {r['cpu_s']:.1f} s, "
                  f"{r['hops']:,} hops, {r['hops_per_cpu_s']:,} hops/CPU s "
                  f"({r['hops_per_cpu_s'] / res['udp_hops_per_cpu_s']:.2f}x the UDP baseline)")
    for res in others:
        for mine, theirs in zip(me["runs"], res["runs"]):
            print(f"{res['python']} / {me['python']}, k={mine['k']}: "
                  f"{theirs['hops_per_cpu_s'] / mine['hops_per_cpu_s']:.2f}x the hops per CPU second")


if __name__ == "__main__":
    main()
