"""One run of ``dataplane scenario loadbalance``: a workload on a fresh fabric with one scheme, one
receiver and one event under one congestion control, and its row of results (``run_one``); the
tables (``format_table``, ``format_cc_table``)."""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from dataplane.net.loadbalance.metrics import (
    aggregate_goodput,
    payload_efficiency,
    percentile,
    rack_bound,
    utilisation_spread,
)
from dataplane.scenarios.fabric import Fabric, FabricConfig, build_fabric

__all__ = ["LbRun", "run_one", "format_table", "format_cc_table", "FLOW_WORKLOADS", "COLLECTIVE_WORKLOADS", "WORKLOADS", "EVENTS",
           "JSON_KEYS"]

FLOW_WORKLOADS = ("permutation", "all-to-all")
COLLECTIVE_WORKLOADS = ("allreduce", "allgather", "reducescatter", "alltoall")
WORKLOADS = FLOW_WORKLOADS + COLLECTIVE_WORKLOADS
EVENTS = ("none", "down", "slow")
JSON_KEYS = ("workload", "lb", "receiver", "event", "hash_seed", "goodput_gbps", "goodput_fraction", "ideal_fraction",
             "completion_us", "mean_us", "p99_us", "reordered", "retransmitted", "spurious", "timeouts",
             "uplink_max", "uplink_spread", "pause_frames", "drops", "cc", "queue_p50_bytes", "queue_p99_bytes",
             "queue_max_bytes", "fct_slowdown_mean", "fct_slowdown_p99")


@dataclass(frozen=True)
class LbRun:
    """What one run is (module docstring). ``size``: bytes each host sends (its one flow in a
    permutation, split over the others in all-to-all) or the collective's size (nccl-tests')."""

    workload: str
    size: int
    fabric: FabricConfig
    receiver: str = "sack"
    event: str = "none"
    event_link: tuple[str, str] = ("edge1_1", "agg1_1")
    slow_rate: float = 0.5
    mtu: int = 4096
    seed: int = 1
    dcqcn: Any = None                      # DcqcnParams: DCQCN on the hosts (the fabric then marks ECN)
    hpcc: bool = False                     # HPCC on the hosts, hpcc.p4 on the switches (_loadbalance_cc)


def run_one(run: LbRun) -> dict[str, Any] | None:
    """Build, run and measure ``run``; None on MPI ranks but 0."""
    from dataplane.net.loadbalance.schemes import ACK_DSCP
    from dataplane.net.rdma import TransportConfig
    from dataplane.net.rdma.entropy import EntropyParams
    from dataplane.scenarios._loadbalance_cc import hpcc_transport, record_queues
    from dataplane.scenarios.incast_hpcc import set_link_rates

    cfg = run.fabric
    lb = cfg.lb
    if run.hpcc:
        if lb is None or lb.scheme != "ecmp" or lb.hash_seed or lb.field_mask != 31:
            raise ValueError("hpcc runs on programs/hpcc.p4, whose ECMP is ecmp.p4's with hash seed 0 "
                             "and the 5-tuple")
        cfg = replace(cfg, lb=None, program="hpcc")
    if run.event == "down":
        cfg = replace(cfg, down_links=(run.event_link,))
    told = ((*run.event_link, run.slow_rate),) if run.event == "slow" else ()   # the rate given below
    fabric = build_fabric(cfg, route_rates=told)
    if run.hpcc:
        set_link_rates(fabric.net)
    recorders = record_queues(fabric.net)
    if run.event == "slow":
        try:
            link = fabric.net.link(*run.event_link)
        except Exception:
            raise ValueError(f"--event-link {','.join(run.event_link)}: the fabric has no such link") from None
        link.rate_bps = max(1, int(link.rate_bps * run.slow_rate))
    if run.hpcc:
        transport = hpcc_transport(fabric, run.mtu)
    else:
        # reps: the hosts choose every packet's entropy (dataplane.net.rdma.entropy)
        entropy = EntropyParams(seed=run.seed, spray_acks=lb.spray_acks,
                                explore_every=lb.explore_every) if lb is not None and lb.host_entropy else None
        transport = TransportConfig(mtu=run.mtu, receiver=run.receiver, dcqcn=run.dcqcn, entropy=entropy,
                                    window=lb.transport_window if lb is not None else None,
                                    window_counts=lb.window_counts if lb is not None else "span",
                                    ack_dscp=ACK_DSCP if lb is not None and lb.ack_priority else None)
    if run.workload in FLOW_WORKLOADS:
        row = _flows(run, fabric, transport, recorders)
    else:
        row = _collective(run, fabric, transport, recorders)
    if row is None:
        return None
    row.update(_fabric_counters(run, fabric, row.pop("_time_ns")))
    detail = lb.describe() if lb is not None else "ecn.p4"
    head = {"workload": run.workload, "lb": lb.scheme if lb is not None else "ecn", "receiver": transport.receiver,
            "event": run.event, "hash_seed": lb.hash_seed if lb is not None and lb.hashes else None,
            "lb_detail": f"hpcc.p4: {detail}" if run.hpcc else detail, "size": run.size,
            "cc": "hpcc" if run.hpcc else "dcqcn" if run.dcqcn is not None else "none"}
    return {**head, **row}


def _flows(run: LbRun, fabric: Fabric, transport: Any, recorders: list) -> dict[str, Any] | None:
    from dataplane.net.loadbalance.workloads import all_to_all, permutation, start_flows
    from dataplane.net.parallel.session import gather_results
    from dataplane.scenarios._loadbalance_cc import fct_slowdowns, queue_stats

    hosts = fabric.hosts
    n = len(hosts)
    if run.workload == "permutation":
        pairs = permutation(fabric.racks(hosts), random.Random(run.seed))
        nbytes = run.size
    else:
        pairs = all_to_all(n)
        nbytes = max(1, run.size // max(1, n - 1))
    senders, receivers = start_flows(hosts, pairs, nbytes, transport)
    fabric.net.run()
    if not gather_results(fabric.net, [*senders, *receivers, *recorders]):
        return None
    unfinished = [r.index for r in receivers if r.done_ns is None]
    if unfinished:
        raise RuntimeError(f"{len(unfinished)} flow(s) never finished (the first: flow {unfinished[0]}, "
                           f"{hosts[pairs[unfinished[0]][0]].name} -> {hosts[pairs[unfinished[0]][1]].name})")
    fcts = [r.fct_ns for r in receivers]
    eff = payload_efficiency(nbytes, transport.mtu)
    clean, ideal = _ideal(run, fabric, pairs)
    goodput = aggregate_goodput((nbytes, t) for t in fcts)
    bisection = clean * eff / 1e9
    return {
        "flows": len(pairs), "goodput_gbps": round(goodput, 2), "bisection_gbps": round(bisection, 2),
        "goodput_fraction": round(goodput / bisection, 4), "ideal_fraction": round(ideal / clean, 4),
        "completion_us": round(max(fcts) / 1000, 2), "mean_us": round(sum(fcts) / len(fcts) / 1000, 2),
        "p99_us": round(percentile(fcts, 99) / 1000, 2),
        "reordered": sum(r.stats.out_of_sequence + r.stats.reordered for r in receivers),
        "retransmitted": sum(s.stats.retransmitted for s in senders),
        "spurious": sum(r.stats.duplicates for r in receivers),
        "timeouts": sum(s.stats.timeouts for s in senders),
        **queue_stats(recorders), **fct_slowdowns(fabric, pairs, fcts, nbytes, transport.mtu, run.hpcc),
        "_time_ns": max(r.done_ns for r in receivers),
    }


def _ideal(run: LbRun, fabric: Fabric, pairs: list[tuple[int, int]]) -> tuple[float, float]:
    """The sums of the flows' rack bounds in bit/s: on the fabric as built, and under the event."""
    hosts = fabric.hosts
    rack_of = [fabric.rack_of[h.name] for h in hosts]
    racks = set(rack_of)
    host_rate = [float(h.port.link.rate_bps) for h in hosts]
    nominal = {(lk.a[0], lk.a[1]): lk.bandwidth_bps for lk in fabric.spec.links}
    nominal.update({(lk.b[0], lk.b[1]): lk.bandwidth_bps for lk in fabric.spec.links})
    clean = {r: 0.0 for r in racks}
    now = {r: 0.0 for r in racks}
    down = set(fabric.config.down_links) | {(b, a) for a, b in fabric.config.down_links}
    for switch, port in fabric.uplinks:
        if switch not in racks:
            continue
        clean[switch] += nominal[(switch, port)]
        p = fabric.net.switch(switch).ports[port]
        if (switch, p.peer.node.name) not in down:
            now[switch] += p.link.rate_bps
    return sum(rack_bound(pairs, host_rate, rack_of, clean)), sum(rack_bound(pairs, host_rate, rack_of, now))


def _collective(run: LbRun, fabric: Fabric, transport: Any, recorders: list) -> dict[str, Any] | None:
    from dataplane.net.collectives.algorithms import COLLECTIVES, ELEM_BYTES, build_plan
    from dataplane.net.collectives.bound import link_bound, plan_flows
    from dataplane.net.collectives.comm import Communicator
    from dataplane.net.parallel.session import gather_results
    from dataplane.scenarios._loadbalance_cc import queue_stats

    spec = COLLECTIVES[run.workload]
    hosts = fabric.hosts
    n = len(hosts)
    count = spec.count(run.size, n)
    plan = build_plan(run.workload, spec.algorithms[0], n, count, groups=fabric.racks(hosts))
    comm = Communicator(hosts, transport=transport)
    comm.submit(plan, label=run.workload)
    fabric.net.run()
    if not gather_results(fabric.net, [*comm.ranks, *recorders]):
        return None
    if any(not cr.log for cr in comm.ranks):
        raise RuntimeError(f"{run.workload}: some ranks never finished")
    times = [cr.log[0].end_ns - cr.log[0].start_ns for cr in comm.ranks]
    end = max(cr.log[0].end_ns for cr in comm.ranks)
    nbytes = count * ELEM_BYTES
    bound = link_bound(fabric.spec, plan_flows(plan.traffic(), [h.name for h in hosts], transport.mtu))
    busbw = spec.busbw(nbytes / end, n)
    stats = [s for cr in comm.ranks for s in cr.qp_stats.values()]
    return {
        "flows": len(plan.traffic()), "goodput_gbps": round(busbw * 8, 2),
        "bisection_gbps": round(spec.busbw(nbytes / bound.time_ns, n) * 8, 2) if bound.time_ns else None,
        "goodput_fraction": round(bound.time_ns / end, 4) if bound.time_ns else None, "ideal_fraction": None,
        "completion_us": round(end / 1000, 2), "mean_us": round(sum(times) / n / 1000, 2),
        "p99_us": round(percentile(times, 99) / 1000, 2),
        "reordered": sum(s.out_of_sequence + s.reordered for s in stats),
        "retransmitted": sum(s.retransmitted for s in stats), "spurious": sum(s.duplicates for s in stats),
        "timeouts": sum(s.timeouts for s in stats), **queue_stats(recorders),
        "fct_slowdown_mean": None, "fct_slowdown_p99": None, "_time_ns": end,
    }


def _fabric_counters(run: LbRun, fabric: Fabric, time_ns: int) -> dict[str, Any]:
    """Uplink utilisation over the run's time, PFC pause frames and drops."""
    net = fabric.net
    down = set(fabric.config.down_links) | {(b, a) for a, b in fabric.config.down_links}
    utils = []
    for switch, port_no in fabric.uplinks:
        port = net.switch(switch).ports[port_no]
        if (switch, port.peer.node.name) in down:
            continue
        utils.append(port.stats.tx_wire_bytes * 8e9 / (port.link.rate_bps * time_ns) if time_ns else 0.0)
    top, spread = utilisation_spread(utils)
    ports = [p for node in net.switches.values() for p in node.ports.values()]
    return {"uplink_max": round(top, 4), "uplink_spread": round(spread, 3),
            "pause_frames": sum(p.stats.pause_tx for p in ports), "drops": sum(p.stats.drops for p in ports)}


def format_table(rows: list[dict[str, Any]]) -> str:
    """One line per run."""
    head = (f"{'workload':<13} {'event':<5} {'lb':<9} {'recv':<4} {'goodput':>8} {'of bis.':>7} {'ideal':>6} "
            f"{'done us':>9} {'mean us':>9} {'p99 us':>9} {'reord':>7} {'retx':>6} {'spur.':>6} {'up max':>6} "
            f"{'spread':>6} {'pauses':>6}")
    lines = [head]
    for r in rows:
        ideal = f"{r['ideal_fraction']:6.1%}" if r.get("ideal_fraction") is not None else f"{'-':>6}"
        frac = f"{r['goodput_fraction']:7.1%}" if r.get("goodput_fraction") is not None else f"{'-':>7}"
        lines.append(f"{r['workload']:<13} {r['event']:<5} {r['lb']:<9} {r['receiver']:<4} {r['goodput_gbps']:>8.1f} "
                     f"{frac} {ideal} {r['completion_us']:>9.1f} {r['mean_us']:>9.1f} {r['p99_us']:>9.1f} "
                     f"{r['reordered']:>7} {r['retransmitted']:>6} {r['spurious']:>6} {r['uplink_max']:>6.1%} "
                     f"{r['uplink_spread']:>6.2f} {r['pause_frames']:>6}")
    return "\n".join(lines)


def format_cc_table(rows: list[dict[str, Any]]) -> str:
    """One line per run: its congestion control, the switches' queues and the FCT slowdowns."""
    head = (f"{'workload':<13} {'event':<5} {'lb':<9} {'recv':<4} {'cc':<5} {'of bis.':>7} {'q p50 B':>9} "
            f"{'q p99 B':>9} {'q max B':>9} {'slowdown':>8} {'p99':>7} {'drops':>6} {'pauses':>6}")
    lines = [head]
    for r in rows:
        frac = f"{r['goodput_fraction']:7.1%}" if r.get("goodput_fraction") is not None else f"{'-':>7}"
        slow = (f"{r['fct_slowdown_mean']:>8.2f} {r['fct_slowdown_p99']:>7.2f}" if r.get("fct_slowdown_mean")
                is not None else f"{'-':>8} {'-':>7}")
        lines.append(f"{r['workload']:<13} {r['event']:<5} {r['lb']:<9} {r['receiver']:<4} {r['cc']:<5} {frac} "
                     f"{r['queue_p50_bytes']:>9} {r['queue_p99_bytes']:>9} {r['queue_max_bytes']:>9} {slow} "
                     f"{r['drops']:>6} {r['pause_frames']:>6}")
    return "\n".join(lines)
