"""``dataplane collective allreduce --algo ina``: the allreduce scenario's in-network aggregation
(``programs/allreduce.p4`` on every switch of a fat-tree, summing edge, then aggregation, then
core) in the collective command's columns.

Its fabric is the allreduce scenario's: packet queues and no PFC (a lost packet is sent again
after the worker's timeout). Each packet carries K = 32 int32 behind the 12-byte aggregation
header, so its bound is set by those frames: every host link carries the vector once up and
the sum once down, ceil(count / 32) frames of 182 captured bytes each way. #wrong counts the
ranks whose result is further from numpy's float64 sum than the quantisation bound allows.
"""
from __future__ import annotations

from typing import Any

from dataplane.net.apps.allreduce import frame_bytes
from dataplane.net.collectives.algorithms import COLLECTIVES, ELEM_BYTES
from dataplane.net.core.units import parse_rate, parse_time
from dataplane.net.devices.link import wire_bytes

K = 32


def run_ina(cfg: Any, size: int) -> dict[str, Any] | None:
    """One in-network AllReduce of ``size`` bytes (None on MPI ranks but 0)."""
    from dataplane.scenarios.allreduce import run_allreduce

    fab = cfg.fabric
    if cfg.collective != "allreduce":
        raise ValueError("--algo ina is an AllReduce")
    if fab.topology != "fat-tree":
        raise ValueError("--algo ina runs on --topology fat-tree (the allreduce scenario's aggregation hierarchy)")
    if cfg.gpus is not None:
        raise ValueError("--algo ina takes every host of the fat-tree as a rank (leave out --gpus)")
    n = fab.k ** 3 // 4
    count = COLLECTIVES["allreduce"].count(size, n)
    rate, latency = parse_rate(fab.bandwidth), parse_time(fab.latency)
    window = min(2048, max(128, _bdp_packets(rate, latency, fab.k)))
    result = run_allreduce("ina", elements=max(count, 1), seed=cfg.seed, topology="fat-tree", fat_tree_k=fab.k,
                           bandwidth_bps=rate, latency_ns=latency, window=window)
    if result is None:
        return None
    time_ns = result.completion_ns
    nbytes = count * ELEM_BYTES
    algbw = nbytes / time_ns if time_ns else 0.0
    spec = COLLECTIVES["allreduce"]
    frames = -(-count // K)
    bound_ns = frames * wire_bytes(frame_bytes(K)) * 8e9 / rate
    bound_busbw = spec.busbw(nbytes / bound_ns, n) if bound_ns else None
    busbw = spec.busbw(algbw, n)
    return {
        "size": nbytes, "count": count, "type": "float", "redop": "sum", "root": -1,
        "time_us": round(time_ns / 1000, 3), "algbw": round(algbw, 3), "busbw": round(busbw, 3),
        "wrong": int(result.max_abs_error > result.error_bound) if count else 0,
        "bound_busbw": round(bound_busbw, 3) if bound_busbw else None,
        "bound_fraction": round(busbw / bound_busbw, 4) if bound_busbw else None,
        "bound_link": "host links (K=32 frames)", "bytes_conserved": True, "ranks": n, "algorithm": "ina",
        "collective": "allreduce", "retransmitted": result.retransmissions, "timeouts": None,
        "pause_frames": 0, "drops": None,
    }


def _bdp_packets(rate_bps: int, latency_ns: int, k: int) -> int:
    """Aggregation slots that keep a worker's link busy: two round trips up to the root and back
    (6 links each way on a fat-tree) of K-element frames."""
    frame_ns = wire_bytes(frame_bytes(K)) * 8e9 / rate_bps
    rtt = 2 * 6 * (latency_ns + frame_ns)
    return int(2 * rtt / frame_ns) + 1
