"""The HPCC side of ``scenario incast --cc hpcc``: the switches' link-rate entries of
``programs/hpcc.p4``, the base RTT T of the incast's path, the HPCC flows, and the flow
completion time slowdowns both congestion controls report.

T is the simulator's rule (HPCC's ``third.cc``: the largest RTT of an idle path, a data
packet out and its ACK back): per link of the sender-to-receiver path (host link, leaf to
spine, spine to leaf, leaf to host), twice the propagation delay plus the line time of one
data frame and of one ACK. The window starts at line rate x T (the path's bandwidth-delay
product), as the simulator's ``maxBdp``.

A flow's FCT slowdown is its completion time (start to the receiver's last byte of it) over
the time it would take alone on the idle path: its frames back to back at the sender's line
rate, plus one data frame's one-way trip (HPCC paper, section 5: FCT slowdown).
"""
from __future__ import annotations

from typing import Any

from dataplane.net.core.units import parse_rate, parse_time
from dataplane.net.devices.link import wire_bytes
from dataplane.net.rdma import wire
from dataplane.net.rdma.hpcc import INT_HEADER_BYTES, RATE_CODES, get_profile
from dataplane.net.rdma.hpcc_flow import HpccReceiver, HpccSender, hpcc_frame_len

__all__ = ["CCS", "set_link_rates", "path_times", "make_hpcc_flows", "fct_slowdowns"]

CCS = ("dcqcn", "hpcc")
_ACK_FRAME = wire.frame_bytes(wire.AETH.size + INT_HEADER_BYTES)   # BTH, AETH, the echoed INT header, ICRC


def set_link_rates(net: Any) -> None:
    """Tell every switch's ``hpcc_link_rate`` table the line rate of each of its ports."""
    for node in net.switches.values():
        for number, port in node.ports.items():
            if port.link is None:
                continue
            rate = float(port.link.rate_bps)
            if rate not in RATE_CODES:
                raise ValueError(f"{node.name} port {number}: HPCC's INT codes no line rate of {rate / 1e9:g} Gb/s")
            node.api.table_add("MyEgress.hpcc_link_rate", "MyEgress.set_link_rate", [number],
                               [RATE_CODES.index(rate)])


def path_times(cfg: Any, frame_len: int) -> tuple[int, int]:
    """(T, one-way time of one data frame of ``frame_len`` bytes) on the incast's path, ns."""
    host, fabric = parse_rate(cfg.bandwidth), parse_rate(cfg.fabric_bandwidth)
    latency = parse_time(cfg.latency)
    rates = (host, fabric, fabric, host)
    one_way = sum(latency + wire_bytes(frame_len) * 8e9 / r for r in rates)
    rtt = sum(2 * latency + (wire_bytes(frame_len) + wire_bytes(_ACK_FRAME)) * 8e9 / r for r in rates)
    return round(rtt), round(one_way)


def make_hpcc_flows(cfg: Any, receiver_host: Any, sender_hosts: list) -> tuple[HpccReceiver, list[HpccSender]]:
    """The receiver (QP 1) and one HPCC sender per host, all starting at t = 0."""
    params = get_profile(cfg.hpcc_profile)
    base_rtt, _ = path_times(cfg, hpcc_frame_len(cfg.payload_bytes))
    receiver = HpccReceiver(receiver_host, qpn=1, bin_ns=cfg.bin_ns)
    senders = [HpccSender(h, receiver_host.ip, cfg.transfer_bytes, params=params, base_rtt_ns=base_rtt,
                          payload_bytes=cfg.payload_bytes, start_ns=0, dst_qp=1) for h in sender_hosts]
    return receiver, senders


def fct_slowdowns(cfg: Any, flows: list, frame_len: Any) -> dict[str, Any]:
    """p50/p99/max FCT slowdown of the flows that completed (``frame_len(payload)`` the data
    frame's captured bytes), and the ideal FCT they are divided by; None when none did."""
    host = parse_rate(cfg.bandwidth)
    n_full, rest = divmod(cfg.transfer_bytes, cfg.payload_bytes)
    sizes = [cfg.payload_bytes] * n_full + ([rest] if rest else [])
    alone = sum(wire_bytes(frame_len(s)) for s in sizes) * 8e9 / host
    _, one_way = path_times(cfg, frame_len(cfg.payload_bytes))
    ideal = alone + one_way
    n_packets = len(sizes)
    done = sorted(f.last_ns / ideal for f in flows if f is not None and f.packets == n_packets)
    if not done:
        return {"fct_slowdown_p50": None, "fct_slowdown_p99": None, "fct_slowdown_max": None,
                "fct_ideal_ns": round(ideal)}
    return {"fct_slowdown_p50": round(_rank(done, 50), 3), "fct_slowdown_p99": round(_rank(done, 99), 3),
            "fct_slowdown_max": round(done[-1], 3), "fct_ideal_ns": round(ideal)}


def _rank(ordered: list[float], p: float) -> float:
    """Nearest-rank percentile of sorted ``ordered`` (as ``queue_bytes.percentile``, for floats)."""
    k = max(0, min(len(ordered) - 1, -(-len(ordered) * p // 100) - 1))
    return ordered[int(k)]
