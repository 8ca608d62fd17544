"""What ``dataplane scenario incast`` measures of a run: the bottleneck's utilisation, drops,
pauses and CNPs, queue percentiles (time-weighted, and after the opening burst), Jain's
fairness over the run and per bin, and the steady state after ``settle_ns``; the rules are in
``dataplane.scenarios.incast``'s docstring. ``cfg`` is that module's ``IncastConfig`` (not
imported: it imports this module)."""
from __future__ import annotations

from bisect import bisect_right
from typing import Any

from dataplane.net.apps.dcqcn import DcqcnReceiver
from dataplane.net.devices.pfc import lossless_problems
from dataplane.net.devices.queue_bytes import QueueSampler, percentile
from dataplane.scenarios.incast_hpcc import fct_slowdowns

__all__ = ["jain", "measure"]


def jain(values: list[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1.0 for no or all-zero values."""
    sq = sum(x * x for x in values)
    return (sum(values) ** 2) / (len(values) * sq) if values and sq > 0 else 1.0


def measure(cfg: Any, net, receiver: DcqcnReceiver, senders: list, sampler: QueueSampler,
            bottleneck) -> dict[str, Any]:
    flows = [receiver.flows.get(s.key) for s in senders]
    got = [f for f in flows if f is not None]
    first = min((f.first_ns for f in got), default=0)
    last = max((f.last_ns for f in got), default=0)
    # Utilisation of the bottleneck while the transfer crossed it: the fraction of the time
    # from the first to the last arrival that the port spent serializing the data packets that
    # arrived after the first (n arrivals bound n-1 gaps), in line time (each frame with the
    # link's wire overhead, so utilisation counts wire bytes). The rule of the report's ports
    # table (dataplane.report.wire), so the two agree on the bottleneck.
    link = bottleneck.link
    busy = sum(_line_ns(link, cfg.frame_len(n)) for f in got for n in f.sizes)
    first_frame = next((_line_ns(link, cfg.frame_len(f.sizes[0])) for f in got if f.first_ns == first), 0)
    util = (busy - first_frame) / (last - first) if last > first else 0.0
    # Fairness while every flow still receives.
    t1 = min((f.last_ns for f in got), default=0) if len(got) == len(flows) else first
    if t1 > first:
        thr = [f.bytes_between(first, t1) * 8e9 / (t1 - first) if f is not None else 0.0 for f in flows]
    else:
        thr = [(f.bytes * 8e9 / (f.last_ns - f.first_ns) if f is not None and f.last_ns > f.first_ns else 0.0)
               for f in flows]
    complete = all(f is not None and f.packets == s.n_packets for f, s in zip(flows, senders))
    switch_ports = [p for n in net.switches.values() for p in n.ports.values()]
    drops = sum(p.stats.drops for p in switch_ports)
    qs = sampler.window(0, last) or list(sampler.bytes)
    after = _after_burst(sampler, last, cfg.frame_len(cfg.payload_bytes))
    steady = _steady_state(cfg, link, got, sampler, last)
    sent_bytes = sum(s.stats["bytes"] for s in senders)
    all_ports = switch_ports + [h.port for h in net.hosts.values()]
    span = max(last, 1)
    host_ports = [s.host.port for s in senders]
    return {
        "mode": cfg.mode,
        "cc": (cfg.cc if cfg.ecn else None),
        "senders": cfg.senders,
        "utilisation": round(util, 4),
        # the port and window utilisation is over: the receiver's first to last data arrival
        "utilisation_port": bottleneck.name,
        "utilisation_from_ns": first,
        "utilisation_to_ns": last,
        "drops": drops,
        "pause_frames": sum(p.stats.pause_tx for p in switch_ports),
        "cnps": receiver.stats["cnps_sent"],
        "qdepth_p50_bytes": percentile(qs, 50),
        "qdepth_p99_bytes": percentile(qs, 99),
        "qdepth_max_bytes": max(qs, default=0),
        "jain": round(jain(thr), 4),
        "jain_short_term": _short_term_jain(flows, first, t1, cfg.bin_ns),
        "completion_ns": (last if complete else None),
        **fct_slowdowns(cfg, flows, cfg.frame_len),
        "hpcc_profile": cfg.hpcc_profile if cfg.hpcc else None,
        # the steady state (after settle_ns, to the last arrival): see _steady_state
        "profile": cfg.profile,
        **steady,
        # extras
        "qdepth_p99_after_burst_bytes": percentile(after, 99) if after else None,
        "bottleneck_drops": bottleneck.stats.drops,
        "ce_marked": receiver.stats["ce_marked"],
        "delivered_fraction": round(receiver.stats["bytes"] / sent_bytes, 4) if sent_bytes else 0.0,
        "hosts_paused": sum(1 for p in host_ports if p.stats.pause_rx),
        "paused_ports": sum(1 for p in all_ports if p.stats.pause_rx),
        "host_paused_fraction": round(sum(p.paused_time_ns for p in host_ports) / len(host_ports) / span, 4),
        "lossless_buffer": (not lossless_problems(net)) if cfg.pfc else None,
        "transfer_bytes": cfg.transfer_bytes,
        "buffer_bytes": cfg.buffer_bytes,
        "kmin_bytes": cfg.kmin_bytes if cfg.ecn else None,
        "kmax_bytes": cfg.kmax_bytes if cfg.ecn else None,
        "pfc_xoff_bytes": cfg.pfc_xoff_bytes if cfg.pfc else None,
        "pfc_xon_bytes": cfg.pfc_xon_bytes if cfg.pfc else None,
        "sim_ns": sampler.times[-1] if len(sampler.times) else 0,
    }


def _steady_state(cfg: Any, link, got: list, sampler: QueueSampler, last: int) -> dict[str, Any]:
    """The incast once its opening burst is over, from ``settle_ns`` to the last arrival:
    ``utilisation_steady`` (the bottleneck's line time spent on the packets that arrived then,
    over that span) and ``queue_in_band_fraction`` (the share of the queue samples then with
    Kmin <= queue <= Kmax). None when the transfer ended before ``settle_ns``."""
    t0 = cfg.settle_ns
    if last <= t0:
        return {"utilisation_steady": None, "queue_in_band_fraction": None}
    busy = sum(_line_ns(link, cfg.frame_len(n)) for f in got for n in f.sizes[bisect_right(f.arrivals, t0):])
    qs = sampler.window(t0, last)
    band = sum(1 for q in qs if cfg.kmin_bytes <= q <= cfg.kmax_bytes)
    return {"utilisation_steady": round(busy / (last - t0), 4),
            "queue_in_band_fraction": round(band / len(qs), 4) if qs else None}


def _line_ns(link, frame: int) -> float:
    """The line time (ns) of a data frame of ``frame`` captured bytes, exact: a port sending back
    to back carries each frame's fraction of a ns to the next (``Port._wire``), so whole ns per
    frame would read a saturated bottleneck as less than fully used."""
    return link.wire_bytes(frame) * 8e9 / link.rate_bps


def _short_term_jain(flows: list, t0: int, t1: int, bin_ns: int) -> float | None:
    """Mean Jain's index over the receiver's ``bin_ns`` throughput bins that lie wholly in
    [t0, t1] (every flow receiving): fairness as a flow sees it, not averaged over the run."""
    per = [f.bins if f is not None else {} for f in flows]
    window = range(t0 // bin_ns + 1, t1 // bin_ns)
    if not len(window):
        return None
    return round(sum(jain([b.get(i, 0) for b in per]) for i in window) / len(window), 4)


def _after_burst(sampler: QueueSampler, last: int, frame: int) -> list[int]:
    """Queue samples up to ``last`` taken after the queue first drained (to at most one frame)
    following its maximum: the queue once the incast's opening burst is over. Empty when
    that leaves less than a quarter of the run (drop-tail drains only at the very end)."""
    times, depths = sampler.times, sampler.bytes
    if not len(depths):
        return []
    peak = max(range(len(depths)), key=depths.__getitem__)
    for i in range(peak, len(depths)):
        if depths[i] <= frame:
            if last - times[i] < last // 4:
                return []
            return [d for t, d in zip(times[i:], depths[i:]) if t <= last]
    return []
