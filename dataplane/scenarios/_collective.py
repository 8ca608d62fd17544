"""``dataplane collective OP``: a collective over the fabric, measured as nccl-tests measures it.

For each size (``--sizes MIN:MAX`` with ``--factor``, as nccl-tests' ``-b/-e/-f``) a fresh fabric
is built and every rank starts the collective at t = 0; its time is when the last rank is done
(every message it sent acknowledged, every one it expected arrived). Printed as nccl-tests prints
its out-of-place columns (size, count, type, redop, root, time, algbw, busbw, #wrong), with the
topology's bound for the algorithm beside busbw (``dataplane.net.collectives.bound``) and how
close the run came to it. Up to ``check_bytes`` the buffers hold real data (integers in
float32, so every order of summation gives the same exact sums) and every rank's result is
compared with numpy's; #wrong counts the elements that differ. Above it only sizes are
moved, and bytes are checked conserved: each rank sent and received exactly what its plan says.

``--algo ina`` runs AllReduce in the switches (``programs/allreduce.p4``, the allreduce
scenario's aggregation hierarchy on a fat-tree; its own fabric without PFC, K = 32 elements
per packet) and reports it in the same columns against its own bound.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from dataplane.net.collectives.algorithms import COLLECTIVES, ELEM_BYTES, build_plan
from dataplane.net.collectives.bound import link_bound, message_wire_bytes, plan_flows
from dataplane.net.collectives.plan import Plan, split
from dataplane.net.rdma import TransportConfig
from dataplane.scenarios.fabric import Fabric, FabricConfig, build_fabric

__all__ = ["CollectiveConfig", "run_size", "expected_outputs", "rank_inputs", "format_table", "JSON_KEYS"]

JSON_KEYS = ("size", "count", "type", "redop", "root", "time_us", "algbw", "busbw", "wrong", "bound_busbw",
             "bound_fraction")


@dataclass
class CollectiveConfig:
    """One collective command: what to run, on what, and how."""

    collective: str = "allreduce"
    algorithm: str | None = None                 # None: the collective's first (NCCL's default)
    fabric: FabricConfig = field(default_factory=FabricConfig)
    gpus: list[str] | int | None = None          # host names, a count (the first N), or all
    channels: int = 1
    slice_bytes: int = 512 * 1024
    transport: TransportConfig = field(default_factory=TransportConfig)
    root: int = 0
    check_bytes: int = 1 << 20
    seed: int = 1

    def __post_init__(self) -> None:
        spec = COLLECTIVES.get(self.collective)
        if spec is None:
            raise ValueError(f"unknown collective {self.collective!r} (one of {', '.join(COLLECTIVES)})")
        if self.algorithm is None:
            self.algorithm = spec.algorithms[0]
        if self.algorithm not in spec.algorithms:
            raise ValueError(f"{self.collective} has no algorithm {self.algorithm!r} "
                             f"(one of {', '.join(spec.algorithms)})")


def choose_hosts(fabric: Fabric, gpus: list[str] | int | None) -> list[Any]:
    """The hosts that take part, in rank order."""
    if gpus is None:
        return list(fabric.hosts)
    if isinstance(gpus, int):
        if not 1 <= gpus <= len(fabric.hosts):
            raise ValueError(f"--gpus {gpus}: the fabric has {len(fabric.hosts)} hosts")
        return list(fabric.hosts[:gpus])
    by_name = {h.name: h for h in fabric.hosts}
    missing = [g for g in gpus if g not in by_name]
    if missing:
        raise ValueError(f"--gpus names hosts the fabric does not have: {', '.join(missing)}")
    if len(set(gpus)) != len(gpus):
        raise ValueError("--gpus names a host twice")
    return [by_name[g] for g in gpus]


def rank_inputs(collective: str, ranks: int, count: int, seed: int, rank: int) -> list[np.ndarray]:
    """Rank ``rank``'s buffers before the collective: [input/in-place buffer, output buffer].
    Values are whole numbers in -64..64 (float32 sums of them are exact in any order)."""
    x = np.random.default_rng([seed, rank]).integers(-64, 65, count).astype(np.float32)
    out = np.zeros(count, np.float32)
    if collective == "allgather":
        lo, n = split((0, count), ranks)[rank]
        buf = np.zeros(count, np.float32)
        buf[lo:lo + n] = x[lo:lo + n]
        return [buf, out]
    if collective == "alltoall":
        lo, n = split((0, count), ranks)[rank]
        out[lo:lo + n] = x[lo:lo + n]            # a rank's block for itself is copied in place
    if collective == "sendrecv" and ranks == 1:
        out[:] = x                               # sending to itself: a copy, no network
    return [x, out]


def expected_outputs(collective: str, ranks: int, count: int, seed: int, root: int, rank: int) -> tuple[int, np.ndarray]:
    """(which buffer, its expected contents) for ``rank`` after the collective, from numpy."""
    inputs = [rank_inputs("allreduce", ranks, count, seed, r)[0] for r in range(ranks)]
    blocks = split((0, count), ranks)
    if collective == "allreduce":
        return 0, np.sum(inputs, axis=0, dtype=np.float64).astype(np.float32)
    if collective == "reducescatter":
        lo, n = blocks[rank]
        want = rank_inputs("allreduce", ranks, count, seed, rank)[0].copy()
        want[lo:lo + n] = np.sum([x[lo:lo + n] for x in inputs], axis=0, dtype=np.float64)
        return 0, _only(want, lo, n)
    if collective == "allgather":
        return 0, np.concatenate([inputs[r][lo:lo + n] for r, (lo, n) in enumerate(blocks)]).astype(np.float32)
    if collective == "alltoall":
        lo_r, n_r = blocks[rank]
        return 1, np.concatenate([inputs[p][lo_r:lo_r + n_r] for p in range(ranks)]).astype(np.float32)
    if collective == "broadcast":
        return 0, inputs[root]
    return 1, inputs[(rank - 1) % ranks]           # sendrecv


def _only(values: np.ndarray, lo: int, n: int) -> np.ndarray:
    """NaN outside [lo, lo + n): elements a ReduceScatter leaves undefined are not compared."""
    out = np.full(values.shape, np.nan, np.float32)
    out[lo:lo + n] = values[lo:lo + n]
    return out


def count_wrong(got: np.ndarray, want: np.ndarray) -> int:
    mask = ~np.isnan(want)
    return int(np.count_nonzero(got[mask] != want[mask]))


def run_size(cfg: CollectiveConfig, size: int) -> dict[str, Any] | None:
    """One collective of ``size`` bytes on a fresh fabric: the result row (None on MPI ranks but 0)."""
    assert cfg.algorithm is not None
    if cfg.algorithm == "ina":
        from dataplane.scenarios._collective_ina import run_ina

        return run_ina(cfg, size)
    from dataplane.net.collectives.comm import Communicator
    from dataplane.net.parallel.session import gather_results

    spec = COLLECTIVES[cfg.collective]
    fabric = build_fabric(cfg.fabric)
    hosts = choose_hosts(fabric, cfg.gpus)
    n = len(hosts)
    count = spec.count(size, n)
    plan = build_plan(cfg.collective, cfg.algorithm, n, count, channels=cfg.channels, slice_bytes=cfg.slice_bytes,
                      root=cfg.root, groups=fabric.racks(hosts))
    check = count * ELEM_BYTES <= cfg.check_bytes
    comm = Communicator(hosts, transport=cfg.transport, keep_data=check)
    buffers = [rank_inputs(cfg.collective, n, count, cfg.seed, r) if check else None for r in range(n)]
    comm.submit(plan, buffers=buffers, label=cfg.collective)
    fabric.net.run()
    for r, crank in enumerate(comm.ranks):
        crank.wrong = None
        if check and crank.log:
            which, want = expected_outputs(cfg.collective, n, count, cfg.seed, cfg.root, r)
            crank.wrong = count_wrong(buffers[r][which], want)
    if not gather_results(fabric.net, comm.ranks):
        return None
    return _row(cfg, fabric, hosts, plan, comm, size, count)


def _row(cfg: CollectiveConfig, fabric: Fabric, hosts: list[Any], plan: Plan, comm: Any, size: int,
         count: int) -> dict[str, Any]:
    spec = COLLECTIVES[cfg.collective]
    n = len(hosts)
    unfinished = [h.name for h, cr in zip(hosts, comm.ranks) if not cr.log]
    if unfinished:
        raise RuntimeError(f"{cfg.collective}: ranks on {', '.join(unfinished[:5])} never finished "
                           f"(a link down for good, or a lossy fabric without --pfc?)")
    time_ns = max(cr.log[0].end_ns for cr in comm.ranks)
    nbytes = count * ELEM_BYTES
    algbw = nbytes / time_ns if time_ns else 0.0          # bytes per ns = GB/s
    busbw = spec.busbw(algbw, n)
    conserved = all(cr.log[0].bytes_sent == plan.bytes_sent(r) and cr.log[0].bytes_received == plan.bytes_received(r)
                    for r, cr in enumerate(comm.ranks))
    flows = plan_flows(plan.traffic(), [h.name for h in hosts], cfg.transport.mtu)
    bound = link_bound(fabric.spec, flows)
    bound_busbw = spec.busbw(nbytes / bound.time_ns, n) if bound.time_ns else None
    wrong = [cr.wrong for cr in comm.ranks]
    stats = [s for cr in comm.ranks for s in cr.qp_stats.values()]
    return {
        "size": nbytes, "count": count, "type": "float", "redop": spec.redop,
        "root": cfg.root if cfg.collective == "broadcast" else -1,
        "time_us": round(time_ns / 1000, 3), "algbw": round(algbw, 3), "busbw": round(busbw, 3),
        "wrong": None if any(w is None for w in wrong) else sum(wrong),
        "bound_busbw": round(bound_busbw, 3) if bound_busbw is not None else None,
        "bound_fraction": round(busbw / bound_busbw, 4) if bound_busbw else None,
        "bound_link": "->".join(bound.link) if bound.time_ns else None,
        "bytes_conserved": conserved, "ranks": n, "algorithm": cfg.algorithm, "collective": cfg.collective,
        "retransmitted": sum(s.retransmitted for s in stats), "timeouts": sum(s.timeouts for s in stats),
        "pause_frames": sum(p.stats.pause_tx for node in fabric.net.switches.values() for p in node.ports.values()),
        "drops": sum(p.stats.drops for node in fabric.net.switches.values() for p in node.ports.values()),
    }


def wire_efficiency(mtu: int) -> float:
    """Message bytes per line byte of full packets (what caps goodput)."""
    return mtu / message_wire_bytes(mtu, mtu)


def format_table(cfg: CollectiveConfig, rows: list[dict[str, Any]], ranks: int) -> str:
    """nccl-tests' out-of-place table, with the bound's columns."""
    head = [f"# dataplane collective {cfg.collective}: algorithm {cfg.algorithm}, {ranks} ranks, "
            f"{cfg.channels} channel(s), slices of {cfg.slice_bytes} B",
            f"# fabric: {cfg.fabric.describe()}; path MTU {cfg.transport.mtu} B; "
            f"{'PFC' if cfg.fabric.pfc else 'no PFC'}; {'DCQCN' if cfg.transport.dcqcn else 'no congestion control'}",
            "#",
            f"# {'size':>10} {'count':>12} {'type':>6} {'redop':>6} {'root':>6} {'time':>10} {'algbw':>7} "
            f"{'busbw':>7} {'#wrong':>6} {'bound':>7} {'%bound':>6}",
            f"# {'(B)':>10} {'(elements)':>12} {'':>6} {'':>6} {'':>6} {'(us)':>10} {'(GB/s)':>7} "
            f"{'(GB/s)':>7} {'':>6} {'(GB/s)':>7} {'':>6}"]
    lines = []
    for r in rows:
        wrong = "N/A" if r["wrong"] is None else str(r["wrong"])
        bound = f"{r['bound_busbw']:7.2f}" if r["bound_busbw"] is not None else f"{'-':>7}"
        frac = f"{r['bound_fraction'] * 100:6.1f}" if r["bound_fraction"] is not None else f"{'-':>6}"
        lines.append(f"  {r['size']:>10} {r['count']:>12} {r['type']:>6} {r['redop']:>6} {r['root']:>6} "
                     f"{r['time_us']:>10.2f} {r['algbw']:>7.2f} {r['busbw']:>7.2f} {wrong:>6} {bound} {frac}")
    avg = sum(r["busbw"] for r in rows) / len(rows) if rows else 0.0
    tail = [f"# Out of bounds values : {sum(1 for r in rows if r['wrong'])} {'FAILED' if any(r['wrong'] for r in rows) else 'OK'}",
            f"# Avg bus bandwidth    : {avg:.3f} GB/s",
            f"# bytes conserved      : {'yes' if all(r.get('bytes_conserved', True) for r in rows) else 'NO'}"]
    return "\n".join(head + lines + ["#"] + tail)


def result_json(cfg: CollectiveConfig, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"collective": cfg.collective, "algorithm": cfg.algorithm, "channels": cfg.channels,
            "slice_bytes": cfg.slice_bytes, "fabric": asdict(cfg.fabric), "rows": rows}


# ---- the command ------------------------------------------------------------------------------------
_BINARY = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "kib": 1024, "mib": 1024**2, "gib": 1024**3,
           "kb": 1000, "mb": 1000**2, "gb": 1000**3}


def parse_size(text: str) -> int:
    """Bytes from ``8``, ``64K``, ``16M``, ``1G`` (1024-based, as nccl-tests' -b/-e), ``4KiB``, or
    ``1MB`` (1000-based, as sizes elsewhere in dataplane)."""
    import re

    m = re.fullmatch(r"\s*([0-9]+)\s*([A-Za-z]*)\s*", text)
    if m is None or m.group(2).lower() not in _BINARY:
        raise ValueError(f"cannot read {text!r} as a size (e.g. 8, 64K, 16M, 1G, 4KiB, 1MB)")
    return int(m.group(1)) * _BINARY[m.group(2).lower()]


def size_list(spec: str, factor: float) -> list[int]:
    """nccl-tests' sizes: MIN, MIN x factor, ... up to MAX (``MIN:MAX``; one size alone is one row)."""
    lo_text, _, hi_text = spec.partition(":")
    lo = parse_size(lo_text)
    hi = parse_size(hi_text) if hi_text else lo
    if lo < 1 or hi < lo:
        raise ValueError(f"--sizes {spec}: need 1 <= MIN <= MAX")
    if factor <= 1 and hi > lo:
        raise ValueError("--factor must be more than 1")
    sizes = [lo]
    while sizes[-1] * factor <= hi and len(sizes) < 64:
        sizes.append(int(sizes[-1] * factor))
    return sizes
