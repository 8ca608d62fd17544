"""``dataplane scenario allreduce``: in-network aggregation (SwitchML-style) against ring allreduce.

The fabric (built in code): one ToR switch ``s1`` and N worker hosts ``h1..hN`` on ports 1..N
(10.0.0.i/24; the aggregator answers at 10.0.0.254), every link ``--bandwidth`` (10 Gbps) and
``--latency`` (1 us).

Modes: ``ina``: s1 runs ``programs/allreduce.p4``; each worker (``InaWorker``) quantises its
float32 vector to int32, streams K-element chunks through a window of pool slots, retransmits
after a timeout and dequantises the multicast result. ``ring``: the same switch just routes
(ipv4_lpm of the same program) and the workers run a pipelined ring allreduce
(``RingWorker``: reduce-scatter then all-gather, float32) with the same K elements per packet,
so frames are equal in size. ``--loss`` applies to every link in ina mode; the ring app has no
loss recovery, so ring always runs lossless.

``--topology fat-tree --k K``: the k^3/4 hosts of a k-ary fat-tree are the workers, and ina
aggregates as a hierarchy (edge, then aggregation, then core; ``allreduce_tree``). Both
fabrics run on several MPI ranks (``--ranks N``) with the same results; the star has one switch,
so only the fat-tree can be split.

Reported per mode: simulated completion time (all workers done), algorithm bandwidth
(vector bytes / time), speedup ina over ring (ring time / ina time, same N and size), max
absolute error against the float64 numpy sum of the float32 inputs, retransmissions. The
bandwidth-bound speedup is 2(N-1)/N (1.75 at 8 workers): ring sends 2(N-1)/N x S per worker,
ina S.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence

import click
import numpy as np

from dataplane import progress
from dataplane.cli.options import SEED, FiniteFloat, OutputDir
from dataplane.net.apps.allreduce import (
    InaWorker,
    RingWorker,
    make_scale,
    quantisation_bound,
)
from dataplane.net.apps.allreduce_vectors import ArrayVectors, SeededVectors, Vectors, reference
from dataplane.net.capture.plots import pyplot
from dataplane.net.core.units import MAX_TIME_NS
from dataplane.net.fabric.network import Network
from dataplane.net.parallel.session import build_network as build_network_on_ranks
from dataplane.net.parallel.session import gather_results
from dataplane.net.topology.spec import HostSpec, LinkSpec, SwitchSpec, TopologySpec
from dataplane.resources import builtin_program
from dataplane.scenarios._ranks import on_root, ranks_option, relaunch

__all__ = ["AllreduceResult", "run_allreduce", "build_network", "command", "MODES", "JSON_KEYS", "PROGRAM"]

MODES = ("ina", "ring")
JSON_KEYS = ("mode", "topology", "workers", "elements", "loss", "completion_ns", "max_abs_error", "retransmissions")
TOPOLOGIES = ("star", "fat-tree")
PROGRAM = builtin_program("allreduce")
SWITCH_MAC = 0x0200000000FE
SWITCH_IP = 0x0A0000FE
JOB, MC_GROUP = 1, 1


@dataclass
class AllreduceResult:
    mode: str
    workers: int
    elements: int
    loss: float
    completion_ns: int
    max_abs_error: float
    retransmissions: int
    algbw_gbps: float = 0.0
    error_bound: float = 0.0
    wall_s: float = 0.0
    topology: str = "star"


def host_mac(i: int) -> int:
    return 0x020000000000 + i


def host_ip(i: int) -> int:
    return 0x0A000000 + i


def build_network(workers: int, bandwidth_bps: int = 10_000_000_000, latency_ns: int = 1_000,
                  loss: float = 0.0, seed: int = 1, queue_packets: int = 1024) -> Network:
    spec = TopologySpec(name="allreduce")
    spec.switches["s1"] = SwitchSpec(name="s1", program=PROGRAM)
    for i in range(1, workers + 1):
        arp = {host_ip(j): SWITCH_MAC for j in range(1, workers + 1) if j != i}
        arp[SWITCH_IP] = SWITCH_MAC
        spec.hosts[f"h{i}"] = HostSpec(name=f"h{i}", mac=host_mac(i), ip=host_ip(i), prefix_len=24,
                                       static_arp=arp)
        spec.links.append(LinkSpec(a=(f"h{i}", 0), b=("s1", i), bandwidth_bps=bandwidth_bps,
                                   latency_ns=latency_ns, loss=loss, queue=(queue_packets, "packets")))
    net = build_network_on_ranks(spec, seed=seed)
    api = net.switch("s1").api
    for i in range(1, workers + 1):
        api.table_add("ipv4_lpm", "ipv4_forward", [f"10.0.0.{i}/32"], {"dstAddr": host_mac(i), "port": i})
        api.table_add("worker_addr", "set_worker", [i], {"mac": host_mac(i), "ip": host_ip(i)})
    api.table_add("job_cfg", "set_job", [JOB], {"n_workers": workers, "grp": MC_GROUP})
    api.mc_group_create(MC_GROUP, [(i, 0) for i in range(1, workers + 1)])
    for node in list(net.switches.values()) + list(net.hosts.values()):
        for p in node.ports.values():
            p.record_depth = False
    return net


def make_data(workers: int, elements: int, seed: int = 0) -> list[np.ndarray]:
    """The workers' vectors whole (``SeededVectors``: the same values the scenario makes block by block)."""
    vectors = SeededVectors(workers, elements, seed)
    return [vectors.vector(w) for w in range(workers)]


def fabric_workers(topology: str = "star", fat_tree_k: int = 4, workers: int = 8) -> int:
    """How many workers a fabric has: ``workers`` on the star, k^3/4 on a k-ary fat-tree."""
    return fat_tree_k ** 3 // 4 if topology == "fat-tree" else workers


def run_allreduce(mode: str, workers: int = 8, elements: int = 1_000_000, loss: float = 0.0,
                  k: int = 32, window: int = 128, timeout_ns: int = 100_000,
                  bandwidth_bps: int = 10_000_000_000, latency_ns: int = 1_000, seed: int = 1,
                  data: Sequence[np.ndarray] | Vectors | None = None, topology: str = "star",
                  fat_tree_k: int = 4, on_network: Callable[[Network], None] | None = None) -> AllreduceResult | None:
    """Run one mode; on several MPI ranks, None except on rank 0 (which has every worker's
    completion time, error and retransmissions gathered). On a fat-tree ``workers`` is k^3/4.
    ``data`` defaults to ``SeededVectors(workers, elements, seed)``, made block by block, so no
    worker holds its vector whole (neither mode). ``on_network(net)`` sees the network once it is built
    (benchmarks, tests)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
    if k != 32:
        raise ValueError("programs/allreduce.p4 is built with K = 32")
    if topology not in TOPOLOGIES:
        raise ValueError(f"unknown topology {topology!r} (choose from {', '.join(TOPOLOGIES)})")
    if topology == "fat-tree" and not (fat_tree_k >= 2 and fat_tree_k % 2 == 0 and fat_tree_k <= 32):
        raise ValueError("--k must be even and between 2 and 32 (the root's 32-bit worker bitmap has a bit per pod)")
    workers = fabric_workers(topology, fat_tree_k, workers)
    vectors = (SeededVectors(workers, elements, seed) if data is None
               else data if isinstance(data, Vectors) else ArrayVectors(data))
    exact, max_abs = reference(vectors)
    link_loss = loss if mode == "ina" else 0.0
    if topology == "fat-tree":
        from dataplane.scenarios.allreduce_tree import build_fat_tree

        net, places = build_fat_tree(fat_tree_k, PROGRAM, bandwidth_bps, latency_ns, link_loss, seed, 1024)
    else:
        net = build_network(workers, bandwidth_bps, latency_ns, link_loss, seed)
        places = [(net.host(f"h{i + 1}"), i, SWITCH_IP) for i in range(workers)]
    if on_network is not None:
        on_network(net)
    wall = time.perf_counter()
    apps: list = []
    bound = 0.0
    if mode == "ina":
        scale = make_scale(workers, max_abs)
        bound = quantisation_bound(workers, scale, float(np.max(np.abs(exact)))) if elements else 0.0
        for i, (host, worker_id, address) in enumerate(places):
            apps.append(InaWorker(host, worker_id, workers, vectors.of(i), scale, address, k=k,
                                  window=window, timeout_ns=timeout_ns, job=JOB, expected=exact))
    else:
        for i, (host, _, _) in enumerate(places):
            nxt = places[(i + 1) % workers][0].ip
            apps.append(RingWorker(host, i, workers, vectors.of(i), nxt, bandwidth_bps, k=k, exact=exact,
                                   keep_result=False))
        bound = workers * float(np.max(np.abs(exact))) * 2.0**-23 if elements else 0.0
    # How far: result chunks back at the workers (ina) or ring packets received, of all of them.
    if mode == "ina":
        progress.stage(f"allreduce {mode}", sum(a.chunks for a in apps), "chunks reduced",
                       lambda _now: sum(a.received for a in apps))
    else:
        progress.stage(f"allreduce {mode}", sum(a.expected for a in apps), "ring packets",
                       lambda _now: sum(a.got for a in apps))
    net.run()
    wall = time.perf_counter() - wall
    net.close()
    if not gather_results(net, apps):
        return None
    if any(a.done_ns is None for a in apps):
        raise RuntimeError(f"{mode}: not every worker finished")
    completion = max(a.done_ns for a in apps)
    err = max(a.max_abs_error for a in apps)
    algbw = (elements * 4 * 8) / completion if completion else 0.0
    name = f"fat-tree-k{fat_tree_k}" if topology == "fat-tree" else "star"
    return AllreduceResult(mode=mode, workers=workers, elements=elements, loss=loss,
                           completion_ns=int(completion), max_abs_error=err,
                           retransmissions=sum(a.retransmissions for a in apps),
                           algbw_gbps=algbw, error_bound=bound, wall_s=wall, topology=name)


def speedup(results: Sequence[AllreduceResult]) -> float | None:
    by = {r.mode: r for r in results}
    if "ina" in by and "ring" in by and by["ina"].completion_ns:
        return by["ring"].completion_ns / by["ina"].completion_ns
    return None


def _table(results: Sequence[AllreduceResult]) -> str:
    # "link loss" is the --loss probability (not packets lost); "retx pkts" the retransmissions.
    lines = [f"{'mode':5} {'workers':>7} {'elements':>9} {'link loss':>9} {'completion':>14} {'algbw':>11} "
             f"{'max_abs_err':>12} {'bound':>10} {'retx pkts':>9}"]
    for r in results:
        lines.append(f"{r.mode:5} {r.workers:7d} {r.elements:9d} {r.loss * 100:8.1f}% {r.completion_ns / 1e6:11.3f} ms "
                     f"{r.algbw_gbps:6.2f} Gbps {r.max_abs_error:12.3e} {r.error_bound:10.3e} {r.retransmissions:9d}")
    s = speedup(results)
    if s is not None:
        n = results[0].workers
        lines.append(f"speedup ina/ring: {s:.3f}x (bandwidth bound 2(N-1)/N = {2 * (n - 1) / n:.3f}x)")
    return "\n".join(lines)


@click.command("allreduce")
@click.option("--workers", default=8, show_default=True, type=click.IntRange(2, 32),
              help="Number of worker hosts under the ToR (the star; a fat-tree's workers are its k^3/4 hosts).")
@click.option("--topology", default="star", show_default=True, type=click.Choice(TOPOLOGIES),
              help="star: one ToR aggregates; fat-tree: a k-ary fat-tree aggregating edge, then aggregation, then core.")
@click.option("--k", "fat_tree_k", default=4, show_default=True, type=click.IntRange(2, 32),
              help="The fat-tree's k (even).")
@click.option("--elements", default=1_000_000, show_default=True, type=click.IntRange(1, None),
              help="Length of each worker's vector (32-bit integers) to sum.")
@click.option("--mode", "modes", default="ina,ring", show_default=True, help="comma list of ina, ring")
@click.option("--loss", default=0.0, show_default=True, type=FiniteFloat(0.0, 0.5),
              help="random loss on every link (ina only; ring runs lossless)")
@click.option("--window", default=128, show_default=True, type=click.IntRange(1, 2048), help="ina pool slots")
@click.option("--timeout", "timeout_us", default=100.0, show_default=True, type=FiniteFloat(0.001, MAX_TIME_NS / 1000),
              help="ina retransmit timeout, us (1 ns or more)")
@click.option("--seed", type=SEED, default=1, show_default=True,
              help="Seed of the workers' data and of the link loss; the same seed gives the same run.")
@click.option("--json", "as_json", is_flag=True, help="print the results as JSON")
@click.option("--out", type=OutputDir(), help="write results.json (and a plot) here")
@ranks_option
def command(workers: int, topology: str, fat_tree_k: int, elements: int, modes: str, loss: float, window: int,
            timeout_us: float, seed: int, as_json: bool, out: Path | None, ranks: int = 1) -> None:
    """In-network allreduce (allreduce.p4 on the ToR, or a fat-tree's switches) versus ring allreduce
    over the same links. --json and results.json leave the wall-clock time out, so the same seed
    gives the same bytes on any number of --ranks."""
    chosen = [m.strip() for m in modes.split(",") if m.strip()]
    for m in chosen:
        if m not in MODES:
            raise click.BadParameter(f"unknown mode {m!r}", param_hint="--mode")
    if topology == "fat-tree" and fat_tree_k % 2:
        raise click.BadParameter(f"k must be even, got {fat_tree_k}", param_hint="--k")
    relaunch(ranks)
    data = SeededVectors(fabric_workers(topology, fat_tree_k, workers), elements, seed)
    results = [run_allreduce(m, workers, elements, loss, window=window, timeout_ns=int(timeout_us * 1000),
                             seed=seed, data=data, topology=topology, fat_tree_k=fat_tree_k) for m in chosen]
    if not on_root():
        return
    payload = {"results": [{key: asdict(r)[key] for key in JSON_KEYS} for r in results]}
    s = speedup(results)
    if as_json:
        click.echo(json.dumps(payload))
    else:
        click.echo(_table(results))
        click.echo(f"wall clock: {', '.join(f'{r.mode} {r.wall_s:.1f} s' for r in results)}")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        full = {"results": [{k: v for k, v in asdict(r).items() if k != "wall_s"} for r in results], "speedup": s}
        (out / "results.json").write_text(json.dumps(full, indent=2) + "\n")
        _plot(results, out / "allreduce.png")


def _plot(results: Sequence[AllreduceResult], path: Path) -> None:
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.bar([r.mode for r in results], [r.completion_ns / 1e6 for r in results], color=["tab:blue", "tab:orange"][:len(results)])
    ax.set_ylabel("completion time (ms)")
    r0 = results[0]
    ax.set_title(f"allreduce, {r0.workers} workers, {r0.elements} float32")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
