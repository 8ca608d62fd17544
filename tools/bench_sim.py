"""Simulation speed: packet-hops per second for UDP traffic across a leaf-spine.

The built-in leaf-spine (2 spines, 2 leaves, 4 hosts, programs/ecmp_router.p4) carries
CBR UDP flows between hosts on different leaves for a fixed simulated time. A packet-hop
is one packet crossing one link. The run is then repeated with the P4 pipeline timed
(wrapping the switch's work function) to split wall time into pipeline, and the rest:
event core, links, queues and host stacks. The event core alone is measured as the
cost of an empty event in the same run.

``--interpreter PYTHON`` (repeatable) runs the same workload, from this source tree, under
another interpreter too (PyPy, say) and prints each one's figure with its ratio to this
one's, measured in the same run. PyPy's JIT needs a few seconds to warm up: compare at
50ms and longer.

    python tools/bench_sim.py [--duration 20ms] [--json] [--interpreter pypy3 ...]
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

from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.core.sim import Simulator
from dataplane.net.core.units import parse_time
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir


def build(duration_ns: int) -> Network:
    net = Network.from_spec(load_topology(data_dir("topologies") / "leaf-spine.yaml"), seed=1)
    pairs = [("h1", "h3"), ("h2", "h4"), ("h3", "h1"), ("h4", "h2")]
    for i, (a, b) in enumerate(pairs):
        UdpSink(net.host(b), 7000 + i)
        for j in range(4):
            UdpFlow(net.host(a), net.host(b).ip, 1_000_000_000, size_bytes=1000, start_ns=j * 100,
                    duration_ns=duration_ns, dst_port=7000 + i, src_port=30000 + 16 * i + j)
    return net


def hops(net: Network) -> int:
    return sum(p.stats.tx_packets for n in list(net.switches.values()) + list(net.hosts.values())
               for p in n.ports.values())


def event_core_cost(n: int = 200_000) -> float:
    """Seconds per event of the bare core (schedule + pop + call of a no-op)."""
    def noop() -> None:
        pass

    best = float("inf")
    for _ in range(2):   # the second pass is the one a JIT has compiled
        sim = Simulator()
        for i in range(n):
            sim.schedule(i, noop)
        t = time.perf_counter()
        sim.run()
        best = min(best, (time.perf_counter() - t) / n)
    return best


def run(duration_ns: int) -> dict:
    net = build(duration_ns)
    t = time.perf_counter()
    net.run(duration_ns)
    wall = time.perf_counter() - t
    n_hops = hops(net)
    events = net.sim.events_run

    # Second run, identical (same seed), with the pipeline timed.
    net2 = build(duration_ns)
    spent = [0.0]
    for node in net2.switches.values():
        dp = node.dp
        inner = dp.run_work

        def timed(item, result, trace=None, _inner=inner):
            s = time.perf_counter()
            try:
                return _inner(item, result, trace)
            finally:
                spent[0] += time.perf_counter() - s
        dp.run_work = timed
    t = time.perf_counter()
    net2.run(duration_ns)
    wall2 = time.perf_counter() - t
    core_s = event_core_cost() * events
    return {
        "interpreter": interpreter_name(), "sim_time_ns": duration_ns, "packet_hops": n_hops, "events": events, "wall_s": round(wall, 3),
        "hops_per_s": round(n_hops / wall), "events_per_s": round(events / wall),
        "pipeline_share": round(spent[0] / wall2, 3), "event_core_share": round(core_s / wall, 3),
    }


def interpreter_name() -> str:
    return f"{platform.python_implementation()} {platform.python_version()}"


def run_under(python: str, duration: str) -> dict:
    """This benchmark's JSON result from another interpreter, importing this source tree."""
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([python, __file__, "--duration", duration, "--json"], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{python} failed:\n{out.stderr.strip()}")
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", default="20ms")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--interpreter", action="append", default=[], metavar="PYTHON",
                    help="also run under this interpreter (repeatable)")
    args = ap.parse_args()
    r = run(parse_time(args.duration))
    others = [run_under(python, args.duration) for python in args.interpreter]
    if args.json:
        print(json.dumps([r, *others] if others else r))
        return 0
    print(f"{r['interpreter']}: {r['packet_hops']:,} packet-hops, {r['events']:,} events "
          f"in {r['wall_s']} s wall clock")
    print(f"packet-hops/s   {r['hops_per_s']:>10,}   (goal >= 200,000)")
    print(f"events/s        {r['events_per_s']:>10,}")
    print(f"time in P4 pipeline  {r['pipeline_share'] * 100:5.1f} %")
    print(f"time in event core   {r['event_core_share'] * 100:5.1f} %  (bare schedule+pop+call cost x events)")
    print("the rest: links, queues, host stacks and apps")
    if others:
        print(f"\n{'interpreter':<22}{'hops/s':>10}  ratio  (same workload, {args.duration} simulated)")
        for o in [r, *others]:
            print(f"{o['interpreter']:<22}{o['hops_per_s']:>10,}  {o['hops_per_s'] / r['hops_per_s']:4.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
