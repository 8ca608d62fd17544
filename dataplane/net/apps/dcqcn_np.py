"""DCQCN's notification point on a host: ``DcqcnReceiver`` counts each flow's packets, bytes and
CE marks (``RoceFlowStats``) and answers marks with CNPs, at most one per flow per CNP interval
(with ``cnp_defer``, marks inside the interval send one CNP when it ends, as htsim's sink and
ns3-rdma's ``CheckandSendQCN`` do)."""
from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any

from dataplane.net.apps.basic import binned_throughput
from dataplane.net.apps.dcqcn_rate import DcqcnParams
from dataplane.net.apps.dcqcn_wire import BTH, CNP_TOS, ICRC, QP_MASK, ROCE_PORT, RoceEndpoint, cnp_payload
from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.host import Host

__all__ = ["RoceFlowStats", "DcqcnReceiver"]

_DATA_OVERHEAD = BTH.size + len(ICRC)    # what a data packet's UDP payload holds besides its payload bytes


@dataclass(eq=False)
class RoceFlowStats:
    """What a receiver saw of one flow (keyed by source IP and QP)."""
    src_ip: int
    qpn: int
    packets: int = 0
    bytes: int = 0
    first_ns: int = 0
    last_ns: int = 0
    max_psn: int = -1
    ce_marked: int = 0
    cnps_sent: int = 0
    arrivals: array = field(default_factory=lambda: array("q"))   # arrival time of every packet, ns
    sizes: array = field(default_factory=lambda: array("l"))      # its payload bytes (after the BTH, no ICRC)
    last_cnp_ns: int | None = None
    cnp_pending: bool = False
    bin_ns: int = 10_000             # the receiver's throughput bins

    @property
    def lost(self) -> int:
        return self.max_psn + 1 - self.packets

    @property
    def bins(self) -> dict[int, int]:
        """Bin index (arrival ns // ``bin_ns``) -> payload bytes, from ``arrivals`` and ``sizes``:
        made when read (a dict update per packet cost every packet its share), and kept until
        more packets arrive."""
        made = self.__dict__.get("_bins")
        if made is None or made[0] != len(self.arrivals):
            bins: dict[int, int] = {}
            width = self.bin_ns
            for t, n in zip(self.arrivals, self.sizes):
                b = t // width
                bins[b] = bins.get(b, 0) + n
            made = self.__dict__["_bins"] = (len(self.arrivals), bins)
        return made[1]

    def bytes_between(self, t0: int, t1: int) -> int:
        """Payload bytes that arrived in [t0, t1]."""
        i, j = bisect_left(self.arrivals, t0), bisect_right(self.arrivals, t1)
        return sum(self.sizes[i:j])


class DcqcnReceiver:
    """Receives RoCE data for QP ``qpn`` on ``host``: per-flow statistics and throughput bins of
    ``bin_ns``; with ``notify`` (the NP) answers CE-marked packets with CNPs, at most one per
    flow per ``params.cnp_interval_ns``."""

    def __init__(self, host: Host, qpn: int = 1, params: DcqcnParams | None = None, notify: bool = True,
                 bin_ns: int = 10_000):
        self.host, self.sim = host, host.sim
        self.qpn = qpn & QP_MASK
        self.params = params or DcqcnParams()
        self.notify, self.bin_ns = notify, bin_ns
        self.endpoint = RoceEndpoint.of(host)
        if self.qpn in self.endpoint.receivers:
            raise ValueError(f"{host.name}: QP {self.qpn} already has a receiver")
        self.endpoint.receivers[self.qpn] = self
        self.flows: dict[tuple[int, int], RoceFlowStats] = {}
        self._records: dict[int, RoceFlowStats] = {}     # the same records by (source IP << 16) | port
        self.stats: dict[str, Any] = {"received": 0, "bytes": 0, "ce_marked": 0, "cnps_sent": 0, "last_ns": None}

    def on_data(self, src_ip: int, src_port: int, psn: int, payload: bytes, tos: int, time_ns: int) -> None:
        # found by an int (a UDP port is 16 bits): cheaper than hashing a tuple once a packet
        rec = self._records.get((src_ip << 16) | src_port)
        if rec is None:
            rec = self.flows[(src_ip, src_port)] = self._records[(src_ip << 16) | src_port] = \
                RoceFlowStats(src_ip, src_port, first_ns=time_ns, bin_ns=self.bin_ns)
        n = len(payload) - _DATA_OVERHEAD
        rec.packets += 1
        rec.bytes += n
        rec.last_ns = time_ns
        rec.arrivals.append(time_ns)
        rec.sizes.append(n)
        if psn > rec.max_psn:
            rec.max_psn = psn
        st = self.stats
        st["received"] += 1
        st["bytes"] += n
        st["last_ns"] = time_ns
        if tos & 3 == pk.ECN_CE:
            rec.ce_marked += 1
            st["ce_marked"] += 1
            if self.notify:
                self._congestion(rec)

    # ---- notification point ----------------------------------------------------------------------
    def _congestion(self, rec: RoceFlowStats) -> None:
        now = self.sim.now
        interval = self.params.cnp_interval_ns
        if rec.last_cnp_ns is None or now - rec.last_cnp_ns >= interval:
            self._send_cnp(rec)
        elif self.params.cnp_defer and not rec.cnp_pending:
            rec.cnp_pending = True     # coalesce: one CNP when the interval ends
            self.sim.at(rec.last_cnp_ns + interval, self._interval_end, rec)

    def _interval_end(self, rec: RoceFlowStats) -> None:
        if rec.cnp_pending:
            self._send_cnp(rec)

    def _send_cnp(self, rec: RoceFlowStats) -> None:
        rec.cnp_pending = False
        rec.last_cnp_ns = self.sim.now
        if self.host.send_udp(rec.src_ip, ROCE_PORT, ROCE_PORT, cnp_payload(rec.qpn), CNP_TOS):
            rec.cnps_sent += 1
            self.stats["cnps_sent"] += 1

    def throughput_series(self, key: tuple[int, int] | None = None) -> list[tuple[int, float]]:
        """(bin start ns, payload bits/s) for one flow or all together, empty bins as 0."""
        recs = [self.flows[key]] if key is not None else list(self.flows.values())
        return binned_throughput(recs, self.bin_ns)
