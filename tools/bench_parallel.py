"""Parallel simulation: a k=8 fat-tree (80 switches, 128 hosts) on 1 and on N MPI ranks.

Runs the same workload at 1 rank and at ``--ranks`` (default 2) side by side, each under
``mpiexec`` (this script is also the MPI program: ``--worker``), and prints packet-hops/s,
the speedup, the time windows, the packets that crossed the cut, and each rank's busy time
(running events) and wait time (trading packets at window ends, including waiting for the
slowest rank). It checks that both runs gave the same results (hops, events, host counters).

Workloads: ``all-to-all`` (a CBR UDP flow between every ordered pair of hosts, the built-in
pattern of ``dataplane run``) and ``permutation`` (host i sends to the host half the fabric
away at ``--rate``: every packet crosses the core, the shape of a ring allreduce's steps) and
``allreduce`` (``dataplane scenario allreduce --topology fat-tree --k K``'s in-network
aggregation of ``--elements`` per worker; times are of the run, not of building the fabric).

From the measured figures it predicts the speedup at 8-256 ranks, with a simple model stated in
the output: per-window cost grows with log2(ranks) (the collective), work splits evenly
(times the measured imbalance), cut packets grow as the fraction of traffic leaving a part.

    python tools/bench_parallel.py [--k 8] [--workload all-to-all|permutation] [--duration 300us]
                                   [--ranks 2] [--json]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def build_traffic(tr, workload: str, duration_ns: int, rate: str) -> None:
    from dataplane.natural_order import natural_key
    from dataplane.net.core.units import parse_rate

    if workload == "all-to-all":
        tr.pattern("all-to-all", duration_ns)
        return
    hosts = sorted(tr.net.hosts, key=natural_key)
    half = len(hosts) // 2
    for i, h in enumerate(hosts):
        tr.udp(h, hosts[(i + half) % len(hosts)], parse_rate(rate), size=1000, duration_ns=duration_ns)


def print_result(net, part, wall: float, cpu: float, exchange: tuple[float, float], hosts) -> None:
    """Rank 0's JSON line: packet-hops, events, time, the window exchange's cost, the partition
    and per-rank figures (one process counts as one rank that never waits)."""
    hops = sum(p.stats.tx_packets for n in net.nodes() for p in n.ports.values())
    out = {"ranks": part.size if part else 1, "wall_s": wall, "cpu_s": cpu, "hops": hops,
           "events": net.sim.events_run, "hosts": hosts,
           "exchange_min_s": exchange[0], "exchange_median_s": exchange[1]}
    if part:
        out["partition"] = {"nodes_per_rank": part.partition.nodes_per_rank(),
                            "cut_links": len(part.partition.cut_links), "lookahead_ns": part.partition.lookahead_ns,
                            "units": part.partition.units}
        out["per_rank"] = part.rank_stats
    else:
        import resource
        out["per_rank"] = [{"busy_s": wall, "busy_cpu_s": cpu, "pack_cpu_s": 0.0, "sync_s": 0.0, "windows": 0,
                            "cut_messages": 0, "events": net.sim.events_run,
                            "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}]
    print(json.dumps(out))


def allreduce_worker(args: argparse.Namespace) -> None:
    """One rank of the allreduce workload: ``scenario allreduce --topology fat-tree`` in ina mode,
    its run timed (wall and CPU) from inside; rank 0 prints one JSON line."""
    from dataplane.scenarios.allreduce import run_allreduce

    nets, timed = [], []

    def hook(net) -> None:
        nets.append(net)
        run = net.run

        def timed_run(*a, **k):
            part = net.parallel
            if part:
                part.comm.Barrier()
            t0, c0 = time.perf_counter(), time.process_time()
            run(*a, **k)
            timed.append((time.perf_counter() - t0, time.process_time() - c0))
            timed.append(part.sim.exchange_cost() if part else (0.0, 0.0))
        net.run = timed_run

    r = run_allreduce("ina", elements=args.elements, topology="fat-tree", fat_tree_k=args.k, on_network=hook)
    if r is None:
        return
    net, part = nets[0], nets[0].parallel
    (wall, cpu), exchange = timed
    print_result(net, part, wall, cpu, exchange, [r.completion_ns, r.max_abs_error, r.retransmissions])


def worker(args: argparse.Namespace) -> None:
    """One rank of the MPI program: build, run, gather, and (rank 0) print one JSON line."""
    if args.workload == "allreduce":
        allreduce_worker(args)
        return
    from dataplane.net.apps.traffic import Traffic
    from dataplane.net.core.units import parse_time
    from dataplane.net.fabric.network import Network
    from dataplane.net.parallel.session import Session
    from dataplane.net.topology.load import load_topology

    duration = parse_time(args.duration)
    spec = load_topology(Path(args.topology))
    part = Session.start(spec)
    net = Network.from_spec(spec, seed=1, sim=part.simulator(1) if part else None)
    if part:
        part.attach(net)
    tr = Traffic(net)
    build_traffic(tr, args.workload, duration, args.rate)
    if part:
        part.comm.Barrier()
    t0 = time.perf_counter()
    c0 = time.process_time()
    net.run(duration)
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    exchange = part.sim.exchange_cost() if part else (0.0, 0.0)
    if part and not part.gather(net, tr.apps()):
        return
    print_result(net, part, wall, cpu, exchange, tr.host_results())


def launch(args: argparse.Namespace, topology: Path, ranks: int) -> dict:
    from dataplane.net.parallel.launch import _OPENMPI_ENV, mpiexec_path

    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--topology", str(topology),
           "--workload", args.workload, "--duration", args.duration, "--rate", args.rate,
           "--k", str(args.k), "--elements", str(args.elements)]
    if ranks > 1:
        exe = mpiexec_path()
        if exe is None:
            raise SystemExit("needs mpiexec (apt-get install openmpi-bin) and mpi4py (pip install 'dataplane[mpi]')")
        cmd = [exe, "-n", str(ranks), *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**_OPENMPI_ENV, **os.environ})
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def node_imbalance(spec, targets) -> dict[int, float]:
    """Busiest part's nodes over the mean, for the partition at each number of ranks."""
    from dataplane.net.parallel.partition import partition

    out = {}
    for p in targets:
        try:
            counts = partition(spec, p).nodes_per_rank()
        except Exception:
            break
        out[p] = max(counts) / (sum(counts) / len(counts))
    return out


def predict(one: dict, many: dict, targets=(8, 16, 32, 64, 128, 256),
            nodes: dict[int, float] | None = None) -> list[tuple[int, float]]:
    """Speedup over one rank at ``targets`` ranks, from CPU times (a busy machine inflates wall
    times, not the work): T(p) = W/p x imbalance + windows x exchange(2) x log2(p) + cut(p) x c/p,
    W the one-rank CPU time, imbalance the busiest rank's share at the measured N (scaled by the
    partition's node imbalance at p over that at N, when ``nodes`` gives it), exchange(2) the
    fastest measured empty window exchange (the collective when no rank waits for a core), c the extra CPU per packet sent across the cut
    (N ranks' CPU less W, over the cut packets), cut(p) growing as the traffic leaving a part, 1 - 1/p."""
    n = many["ranks"]
    ranks = many["per_rank"]
    work = one["cpu_s"]
    busy = [r["busy_cpu_s"] + r["pack_cpu_s"] for r in ranks]
    imbalance = max(busy) / (sum(busy) / len(busy)) if sum(busy) else 1.0
    windows = max(r["windows"] for r in ranks)
    cut = sum(r["cut_messages"] for r in ranks)
    per_message = max(0.0, sum(busy) - work) / cut if cut else 0.0
    out = []
    for p in targets:
        if p > many["partition"]["units"] or (nodes is not None and p not in nodes):
            break            # more ranks than parts that can be separated (a host stays with its switch)
        scale = nodes[p] / nodes[n] if nodes and n in nodes else 1.0
        cut_p = cut * (1 - 1 / p) / (1 - 1 / n)
        t = work / p * imbalance * scale + windows * many["exchange_min_s"] * math.log2(p) + cut_p * per_message / p
        out.append((p, work / t))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--workload", choices=["all-to-all", "permutation", "allreduce"], default="all-to-all")
    ap.add_argument("--elements", type=int, default=3200, help="per worker, allreduce workload")
    ap.add_argument("--duration", default="300us")
    ap.add_argument("--rate", default="5Gbps", help="per flow, permutation workload")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--topology", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args)
        return 0
    from dataplane.net.topology.generators import fat_tree
    from dataplane.net.topology.load import load_topology

    with tempfile.TemporaryDirectory() as tmp:
        topology = fat_tree(args.k).write(Path(tmp))
        one = launch(args, topology, 1)
        many = launch(args, topology, args.ranks)
        nodes = node_imbalance(load_topology(topology), (args.ranks, 8, 16, 32, 64, 128, 256))
    same = all(one[k] == many[k] for k in ("hops", "events", "hosts"))
    prediction = predict(one, many, nodes=nodes)
    if args.json:
        print(json.dumps({"one": one, "many": many, "identical": same, "predicted_speedup": prediction}))
        return 0 if same else 1
    what = (f"in-network allreduce of {args.elements:,} float32 per worker" if args.workload == "allreduce"
            else f"{args.workload}, {args.duration} simulated")
    print(f"k={args.k} fat-tree, {what}; cores here: {os.cpu_count()}")
    for r in (one, many):
        rss = ", ".join(f"{x.get('max_rss_mb', 0):,.0f}" for x in r["per_rank"])
        print(f"{r['ranks']} rank(s): {r['hops']:,} packet-hops in {r['wall_s']:.2f} s wall "
              f"({r['cpu_s']:.2f} s CPU on rank 0): {r['hops'] / r['wall_s']:,.0f} hops/s; peak RSS per rank {rss} MB")
    print(f"speedup {one['wall_s'] / many['wall_s']:.2f}x on {args.ranks} ranks (wall clock); results identical: {same}")
    busiest = max(r["busy_cpu_s"] + r["pack_cpu_s"] for r in many["per_rank"])
    print(f"CPU-time speedup of the busiest rank: {one['cpu_s'] / busiest:.2f}x (one rank's CPU time over the busiest "
          f"rank's CPU time running events and packing cut frames: the speedup with a free core per rank, "
          f"before the windows' collectives)")
    p = many["partition"]
    print(f"partition: nodes per rank {p['nodes_per_rank']}, {p['cut_links']} cut links, "
          f"lookahead (window) {p['lookahead_ns']} ns")
    for i, r in enumerate(many["per_rank"]):
        print(f"  rank {i}: {r['events']:,} events, busy {r['busy_s']:.2f} s ({r['busy_cpu_s']:.2f} s CPU, "
              f"+{r['pack_cpu_s']:.2f} s packing), "
              f"waiting/trading {r['sync_s']:.2f} s, "
              f"{r['windows']:,} windows, {r['cut_messages']:,} packets sent across the cut")
    print(f"one empty window exchange: fastest {many['exchange_min_s'] * 1e6:.0f} us, median "
          f"{many['exchange_median_s'] * 1e6:.0f} us; predicted speedup from CPU times "
          f"(T(p) = W/p x imbalance(p) + windows x exchange x log2 p + cut packets(p) x CPU per cut packet / p):")
    print("  " + ", ".join(f"{n} ranks {s:.1f}x" for n, s in prediction)
          + f" (at most {p['units']} ranks: a host stays with its switch; a larger fabric for more)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
