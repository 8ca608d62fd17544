"""Simulation speed: data packet-hops per CPU second on three workloads.

A packet-hop is one data packet crossing one link (pause frames are not counted). Each
workload is built, then run for a fixed simulated time; the figure is the hops over the CPU
time of the run (``time.process_time``: building the fabric is left out; on a shared machine
CPU time is steadier than wall time).

* ``udp``: the built-in leaf-spine (2 spines, 2 leaves, 4 hosts, ``programs/ecmp_router.p4``),
  16 CBR UDP flows of 1 Gb/s between hosts on different leaves (the workload of the first
  version of this benchmark).
* ``rdma-perm``: a k=4 fat-tree (16 hosts, 20 switches, ``ecmp_router.p4`` in every switch),
  every host sending one RoCE-style flow of 16 MB (``DcqcnSender`` without congestion control:
  line rate, 4 KB payloads) to another in a fixed permutation, run until every flow is done; 100 Gb/s, 1 us links, PFC on every
  switch (XOFF 1 MB / XON 500 KB per ingress port), 16 MB egress buffers, 9000-byte MTU.
* ``incast``: 16 such senders (8 MB each) to one receiver across a leaf-spine (5 leaves of 4 hosts, 4
  spines, every link 100 Gb/s, 1 us), the same PFC and buffers: the receiver's link is the
  bottleneck and pauses spread back to the senders.

The last two are the physics of htsim's RoCE examples (100G, 1 us, 4 KB, PFC, line-rate
senders, ECMP), so their figures compare with htsim's data packet-hops per CPU second.

Two more, not run unless named (``--workload hosts,hosts-qp``), measure the hosts' side
alone: two hosts on one 100 Gb/s link, no switch. ``hosts``: one such sender (1 GB) to its
receiver, every hop a data packet; ``hosts-qp``: an RDMA queue pair (``dataplane.net.rdma``,
go-back-N, 4 KB MTU) sending 1 MB messages (512 MB), whose ACKs count as hops too.

The ``GC`` column is the share of that CPU time the interpreter's garbage collector took (on
PyPy, most of it on the RDMA workloads: every 4 KB frame a host or a switch builds is a large
object its collector allocates, promotes while it waits in a queue and sweeps). Run as a
script under PyPy it starts itself again with the young generation the ``dataplane`` command
runs with (``dataplane.cli.pypy_gc``), so that its figures are the command's.

For ``udp`` the run is repeated with the P4 pipeline timed (wrapping the switch's work
function) to split the time into the pipeline and the rest; the bare event core is measured
as the cost of an empty event.

``--interpreter PYTHON`` (repeatable) runs the same workloads, from this source tree, under
another interpreter too (PyPy, say) and prints each one's figures. PyPy's JIT needs a few
seconds to warm up: compare on runs of several seconds. ``tools/bench_vs.py`` runs this file
against another commit's code, side by side.

    python tools/bench_sim.py [--workload udp,rdma-perm,incast] [--scale 1.0] [--json]
                              [--interpreter pypy3 ...]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

# Run as a script: this tree's package after any PYTHONPATH (``run_under`` names another tree's
# there) and before an installed one, which would otherwise be the one measured.
_GIVEN = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
sys.path.insert(min(1 + len(_GIVEN), len(sys.path)), str(Path(__file__).resolve().parent.parent))

WORKLOADS = ("udp", "rdma-perm", "incast")
#: the size of each workload at --scale 1: udp's simulated time, the bytes of each RDMA flow
SIZE = {"udp": 20_000_000, "rdma-perm": 16_000_000, "incast": 8_000_000, "hosts": 1_000_000_000, "hosts-qp": 512_000_000}
PAYLOAD = 4096
RATE = "100Gbps"
PFC = {"xoff": 1_000_000, "xon": 500_000}
BUFFER_BYTES = 16_000_000
MTU = 9000


# ---- the workloads -------------------------------------------------------------------------------------
def build_udp(duration_ns: int) -> Any:
    from dataplane.net.apps.basic import UdpFlow, UdpSink
    from dataplane.net.fabric.network import Network
    from dataplane.net.topology.load import load_topology
    from dataplane.resources import data_dir

    net = Network.from_spec(load_topology(data_dir("topologies") / "leaf-spine.yaml"), seed=1)
    pairs = [("h1", "h3"), ("h2", "h4"), ("h3", "h1"), ("h4", "h2")]
    for i, (a, b) in enumerate(pairs):
        UdpSink(net.host(b), 7000 + i)
        for j in range(4):
            UdpFlow(net.host(a), net.host(b).ip, 1_000_000_000, size_bytes=1000, start_ns=j * 100,
                    duration_ns=duration_ns, dst_port=7000 + i, src_port=30000 + 16 * i + j)
    return net


def _roce_fabric(gen: Any) -> Any:
    """A Network of ``gen`` (a generated fabric) with ecmp_router, PFC, byte buffers, jumbo MTU."""
    from dataplane.control.loader import apply_runtime_config
    from dataplane.control.runtime_json import parse_runtime_json
    from dataplane.net.core.units import parse_rate, parse_time
    from dataplane.net.fabric.network import Network
    from dataplane.net.topology.generators import runtime_json_text
    from dataplane.net.topology.spec import HostSpec, LinkSpec, SwitchSpec, TopologySpec
    from dataplane.resources import builtin_program

    program = builtin_program("ecmp_router")
    spec = TopologySpec(gen.name)
    for name in gen.switches:
        spec.switches[name] = SwitchSpec(name, program, params={"pfc": dict(PFC)})
    for name, gh in gen.hosts.items():
        spec.hosts[name] = HostSpec(name, gh.mac, gh.ip, gh.prefix_len, gh.gateway, dict(gh.static_arp))
    rate, latency = parse_rate(RATE), parse_time("1us")
    for a, b in gen.links:
        spec.links.append(LinkSpec(a, b, rate, latency, (BUFFER_BYTES, "bytes"), MTU))
    net = Network.from_spec(spec, seed=1)
    for name, node in net.switches.items():
        apply_runtime_config(node.api, parse_runtime_json(runtime_json_text(gen.entries[name]), f"<{name}>"))
    for host in net.hosts.values():
        host.port.capacity = 1 << 40      # an RDMA NIC leaves the message in host memory: no drops there
    return net


def _flows(net: Any, pairs: list[tuple[str, str]], total_bytes: int) -> None:
    from dataplane.net.apps.dcqcn import DcqcnReceiver, DcqcnSender

    receivers: dict[str, Any] = {}
    for src, dst in pairs:
        if dst not in receivers:
            receivers[dst] = DcqcnReceiver(net.host(dst), qpn=1, notify=False)
        DcqcnSender(net.host(src), net.host(dst).ip, total_bytes, payload_bytes=PAYLOAD, dst_qp=1, cc=False, ect=False)


def permutation(n: int, seed: int = 1) -> list[int]:
    """A permutation of range(n) that moves every element (seeded, so every run sends the same flows)."""
    rng = random.Random(seed)
    while True:
        p = list(range(n))
        rng.shuffle(p)
        if all(i != v for i, v in enumerate(p)):
            return p


def build_rdma_perm(total_bytes: int) -> Any:
    from dataplane.net.topology.generators import fat_tree

    net = _roce_fabric(fat_tree(4))
    names = sorted(net.hosts, key=lambda s: int(s[1:]))
    _flows(net, [(names[i], names[j]) for i, j in enumerate(permutation(len(names)))], total_bytes)
    return net


def build_incast(total_bytes: int) -> Any:
    from dataplane.net.topology.generators import leaf_spine

    net = _roce_fabric(leaf_spine(5, 4, 4, name="incast"))
    _flows(net, [(f"h{i}", "h1") for i in range(5, 21)], total_bytes)
    return net


def _host_pair() -> Any:
    """Two hosts on one 100 Gb/s, 1 us link and nothing else: what the hosts' side costs alone."""
    from dataplane.net.core.units import parse_rate, parse_time
    from dataplane.net.fabric.network import Network
    from dataplane.net.topology.spec import HostSpec, LinkSpec, TopologySpec

    spec = TopologySpec("host-pair")
    for i, peer in ((1, 2), (2, 1)):
        spec.hosts[f"h{i}"] = HostSpec(f"h{i}", 0x0A00_0000_0000 + i, 0x0A00_0000 + i, 24, None,
                                       {0x0A00_0000 + peer: 0x0A00_0000_0000 + peer})
    spec.links.append(LinkSpec(("h1", 0), ("h2", 0), parse_rate(RATE), parse_time("1us"), (BUFFER_BYTES, "bytes"), MTU))
    net = Network.from_spec(spec, seed=1)
    for host in net.hosts.values():
        host.port.capacity = 1 << 40
    return net


def build_hosts(total_bytes: int) -> Any:
    net = _host_pair()
    _flows(net, [("h1", "h2")], total_bytes)
    return net


def build_hosts_qp(total_bytes: int) -> Any:
    from dataplane.net.rdma import QueuePair, RdmaNic, TransportConfig

    net = _host_pair()
    config = TransportConfig(mtu=PAYLOAD)
    a, b = RdmaNic.of(net.host("h1")), RdmaNic.of(net.host("h2"))
    qp = a.add(QueuePair(a, 1, net.host("h2").ip, 2, config, src_port=49152))
    b.add(QueuePair(b, 2, net.host("h1").ip, 1, config, src_port=49152))
    message = 1 << 20
    for _ in range(max(1, total_bytes // message)):
        qp.post_send(message)
    return net


BUILDERS: dict[str, Callable[[int], Any]] = {"udp": build_udp, "rdma-perm": build_rdma_perm, "incast": build_incast,
                                             "hosts": build_hosts, "hosts-qp": build_hosts_qp}


# ---- the levers, each of which can be turned off to measure what it gives --------------------------------
def _no_decisions() -> None:
    from dataplane.net.devices.switch_node import SwitchNode

    SwitchNode.decision_cache = False


def _no_calls_out_of_line() -> None:
    import dataplane.net.devices.link  # noqa: F401  (it names its functions when imported)
    from dataplane import pypy_jit

    pypy_jit._not_inlined.clear()      # the first run marks none (PyPy; CPython marks none anyway)


def _no_byte_lookup() -> None:
    from dataplane.engine.decision import byte_find

    byte_find.ENABLED = False      # the big-integer lookup (PyPy; CPython uses it anyway)


LEVERS: dict[str, Callable[[], None]] = {"decisions": _no_decisions, "out-of-line": _no_calls_out_of_line,
                                         "byte-lookup": _no_byte_lookup}


# ---- measuring -----------------------------------------------------------------------------------------
def hops(net: Any) -> int:
    """Data packets sent over every link (pause frames are counted apart, in pause_tx)."""
    return sum(p.stats.tx_packets for n in list(net.switches.values()) + list(net.hosts.values())
               for p in n.ports.values())


def event_core_cost(n: int = 200_000) -> float:
    """CPU seconds per event of the bare core (schedule + pop + call of a no-op)."""
    from dataplane.net.core.sim import Simulator

    def noop() -> None:
        pass

    best = float("inf")
    for _ in range(2):   # the second pass is the one a JIT has compiled
        sim = Simulator()
        for i in range(n):
            sim.schedule(i, noop)
        t = time.process_time()
        sim.run()
        best = min(best, (time.process_time() - t) / n)
    return best


def pipeline_share(workload: str, size: int) -> float:
    """The share of a run's CPU time spent in the switches' P4 pipelines (a second, timed run)."""
    net = BUILDERS[workload](size)
    spent = [0.0]
    clock = time.process_time
    for node in net.switches.values():
        dp = node.dp
        inner = dp.run_work

        def timed(item, result, trace=None, _inner=inner):
            s = clock()
            try:
                return _inner(item, result, trace)
            finally:
                spent[0] += clock() - s
        dp.run_work = timed
    t = clock()
    net.run(size if workload == "udp" else None)
    return spent[0] / max(clock() - t, 1e-9)


class GcClock:
    """CPU seconds the interpreter's garbage collector has taken so far: PyPy counts them itself
    (``gc.get_stats().total_gc_time``, in ms); on CPython, ``gc.callbacks`` time each collection."""

    def __init__(self) -> None:
        self.spent = 0.0
        self._start = 0.0
        self._pypy = hasattr(getattr(gc, "get_stats", None) and gc.get_stats(), "total_gc_time")
        if not self._pypy:
            gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            self.spent += time.process_time() - self._start

    def seconds(self) -> float:
        return gc.get_stats().total_gc_time / 1000 if self._pypy else self.spent  # type: ignore[attr-defined]

    def close(self) -> None:
        if not self._pypy:
            gc.callbacks.remove(self._callback)


def run(workload: str, scale: float = 1.0, split: bool = False) -> dict:
    size = int(SIZE[workload] * scale)
    net = BUILDERS[workload](size)
    clock = GcClock()
    g = clock.seconds()
    w, c = time.perf_counter(), time.process_time()
    net.run(size if workload == "udp" else None)
    cpu = time.process_time() - c
    wall = time.perf_counter() - w
    gc_s = clock.seconds() - g
    clock.close()
    n_hops = hops(net)
    events = net.sim.events_run
    import dataplane

    r = {"workload": workload, "interpreter": interpreter_name(), "code": str(Path(dataplane.__file__).parent.parent), "sim_time_ns": net.sim.now, "packet_hops": n_hops,
         "events": events, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
         "hops_per_cpu_s": round(n_hops / max(cpu, 1e-9)), "events_per_hop": round(events / max(n_hops, 1), 3),
         "pause_frames": sum(p.stats.pause_tx for n in net.switches.values() for p in n.ports.values()),
         "gc_share": round(gc_s / max(cpu, 1e-9), 3)}
    if split:
        r["pipeline_share"] = round(pipeline_share(workload, size), 3)
        r["event_core_share"] = round(event_core_cost() * events / max(cpu, 1e-9), 3)
    return r


def interpreter_name() -> str:
    """``CPython 3.11.7``, with `` mypyc`` when the simulator's modules are compiled (dataplane.compiled;
    an older tree that bench_vs.py runs has no such module)."""
    try:
        from dataplane.compiled import compiled_modules
    except ImportError:
        compiled = ""
    else:
        compiled = " mypyc" if compiled_modules() else ""
    return f"{platform.python_implementation()} {platform.python_version()}{compiled}"


def run_under(python: str, args: list[str], root: Path | None = None) -> list[dict]:
    """This benchmark's JSON results from another interpreter, importing ``root`` (this source tree
    by default)."""
    root = root or Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    # the young generation this tree's command runs with, for every tree measured (an older tree has
    # no dataplane.cli.pypy_gc to start itself again with; CPython ignores the variable)
    from dataplane.cli.pypy_gc import with_nursery
    env = with_nursery(env) or env
    out = subprocess.run([python, __file__, *args, "--json"], env=env, capture_output=True, text=True, cwd=root)
    if out.returncode != 0:
        raise SystemExit(f"{python} failed:\n{out.stderr.strip()}")
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workload", default=",".join(WORKLOADS), help=f"comma-separated, of {', '.join(BUILDERS)}")
    ap.add_argument("--scale", type=float, default=1.0, help="simulated time, times each workload's default")
    ap.add_argument("--split", action="store_true", help="also time the P4 pipeline and the bare event core")
    ap.add_argument("--without", default="", metavar="LEVERS",
                    help=f"comma-separated levers to turn off, of {', '.join(LEVERS)} (to measure each)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--interpreter", action="append", default=[], metavar="PYTHON",
                    help="also run under this interpreter (repeatable)")
    args = ap.parse_args(argv)
    if argv is None:
        # On PyPy, the young generation the ``dataplane`` command runs with (it starts itself
        # again with it; ``DATAPLANE_PYPY_NURSERY=off`` or a set ``PYPY_GC_NURSERY`` keeps this run)
        try:
            from dataplane.cli.pypy_gc import relaunch_with_nursery
        except ImportError:
            pass      # a tree from before it (tools/bench_vs.py): run_under has set the variable
        else:
            relaunch_with_nursery()
    names = [w.strip() for w in args.workload.split(",") if w.strip()]
    bad = [w for w in names if w not in BUILDERS]
    if bad:
        ap.error(f"unknown workload(s) {', '.join(bad)}; known: {', '.join(BUILDERS)}")
    off = [x.strip() for x in args.without.split(",") if x.strip()]
    bad = [x for x in off if x not in LEVERS]
    if bad:
        ap.error(f"unknown lever(s) {', '.join(bad)}; known: {', '.join(LEVERS)}")
    for lever in off:
        LEVERS[lever]()
    results = [run(w, args.scale, args.split) for w in names]
    passed = ["--workload", ",".join(names), "--scale", str(args.scale), "--without", args.without] + \
        (["--split"] if args.split else [])
    for python in args.interpreter:
        results += run_under(python, passed)
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"{'workload':<11}{'interpreter':<22}{'hops':>10}{'CPU s':>8}{'hops/CPU s':>12}{'events/hop':>11}"
          f"{'pauses':>8}{'GC':>6}")
    for r in results:
        print(f"{r['workload']:<11}{r['interpreter']:<22}{r['packet_hops']:>10,}{r['cpu_s']:>8.2f}"
              f"{r['hops_per_cpu_s']:>12,}{r['events_per_hop']:>11.2f}{r['pause_frames']:>8,}"
              f"{r.get('gc_share', 0) * 100:>5.0f}%")
        if "pipeline_share" in r:
            print(f"{'':<27}P4 pipeline {r['pipeline_share'] * 100:.1f}%, bare event core "
                  f"{r['event_core_share'] * 100:.1f}% of the CPU time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
