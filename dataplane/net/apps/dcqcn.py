"""DCQCN in the host stack: RoCEv2-like rate-limited UDP senders (reaction points) and
receivers that send congestion notification packets (notification points).

Roles (DCQCN, SIGCOMM'15; NVIDIA DOCA "DCQCN"): the switch (congestion point, e.g.
``programs/ecn.p4``) marks ECT packets CE; the receiver's notification point (NP) answers CE
with a CNP to the sender, at most one per flow per ``cnp_interval_ns`` (marks in between are
coalesced into one CNP sent when the interval ends, as htsim's DCQCNSink does); the sender's
reaction point (RP) paces its packets at a current rate RC and adjusts it:

* on a CNP: RT <- RC; RC <- RC * (1 - alpha/2) (not below ``min_rate_bps``);
  alpha <- (1 - g) * alpha + g; the timer count T, the byte-counter count BC and the byte
  counter restart, and so do the alpha and rate-increase timers (``clamp_target_rate=False``
  moves RT only after an increase, as NICs ship it; ``alpha_before_cut`` raises alpha first, as
  ns3-rdma does: see ``DcqcnParams``);
* every ``alpha_timer_ns`` without a CNP: alpha <- (1 - g) * alpha;
* rate-increase events, every ``rate_timer_ns`` (T += 1) and every ``byte_counter`` bytes
  sent (BC += 1), with F = ``fast_recovery_steps``:
  fast recovery if max(T, BC) <= F: RC <- (RT + RC) / 2;
  hyper increase if min(T, BC) > F: RT <- RT + (min(T, BC) - F) * R_HAI, RC <- (RT + RC) / 2;
  additive increase otherwise: RT <- RT + R_AI, RC <- (RT + RC) / 2;
  RC and RT are capped at the line rate (no increase happens at line rate).

Defaults are htsim's ``dcqcn.cpp`` (g = 1/256, 55 us timers, B = 10 MB, F = 5,
R_AI = line rate / 20, R_HAI = line rate / 10, CNP interval 50 us, alpha starting at 1); the
minimum rate is 100 Mb/s (later htsim). Override any of them with ``DcqcnParams``. A flow
starts at line rate (``initial_rate_bps``) and its RP timers start with the first CNP (before
any congestion there is nothing to recover from, and alpha stays at its initial value).
:class:`DcqcnRateControl` is the rate arithmetic alone, with no simulator, for unit tests.

Wire format, RoCEv2-shaped so Wireshark decodes it (UDP destination port 4791):
data ``BTH(opcode 0x04 RC SEND-only, pkey 0xFFFF, dest QP, PSN)`` then ``seq:u64
send_time_ns:u64``, zero padding to ``payload_bytes``, and a 4-byte ICRC (zeros, not
computed); CNP ``BTH(opcode 0x81, dest QP = the sender's QP)`` then 16 reserved bytes and
the ICRC, sent Not-ECT with DSCP 48. Data packets are ECT(0). Simplification: a sender's QP
number is also its UDP source port (the flow's ECMP entropy), so the receiver addresses a
CNP to the UDP source port of the marked packet; a receiver's QP number is fixed per receiver
(default 1). One :class:`RoceEndpoint` per host owns UDP port 4791 and dispatches by QP.
"""
from __future__ import annotations

import math
import struct
import weakref
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace
from typing import Callable

from dataplane.net.apps.basic import binned_throughput
from dataplane.net.devices.link import wire_bytes
from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.host import Host, Timer, _ip

__all__ = ["ROCE_PORT", "OP_SEND_ONLY", "OP_CNP", "CNP_TOS", "DcqcnParams", "DcqcnRateControl", "RoceEndpoint",
           "DcqcnSender", "DcqcnReceiver", "RoceFlowStats", "data_frame_len", "cnp_payload", "parse_bth"]

ROCE_PORT = 4791
OP_SEND_ONLY = 0x04          # RC SEND Only
OP_CNP = 0x81                # RoCEv2 congestion notification packet
CNP_TOS = 48 << 2            # DSCP 48, Not-ECT
_BTH = struct.Struct("!BBHII")  # opcode, flags (SE/M/pad/TVer), P_Key, rsvd:8 dest QP:24, A:1 rsvd:7 PSN:24
_APP = struct.Struct("!QQ")     # our payload header: sequence, send time (ns)
_ICRC = bytes(4)
_QP_MASK = 0xFFFFFF
_ROCE_OVERHEAD = pk.ETH_HEADER_LEN + pk.IPV4_HEADER_LEN + pk.UDP_HEADER_LEN + _BTH.size + len(_ICRC)


def data_frame_len(payload_bytes: int) -> int:
    """Bytes on the wire of one data packet carrying ``payload_bytes`` after the BTH."""
    return max(pk.ETH_MIN_FRAME, _ROCE_OVERHEAD + payload_bytes)


def cnp_payload(dest_qp: int) -> bytes:
    """The UDP payload of a CNP to ``dest_qp``: BTH, 16 reserved bytes, ICRC."""
    return _BTH.pack(OP_CNP, 0, 0xFFFF, dest_qp & _QP_MASK, 0) + bytes(16) + _ICRC


def parse_bth(payload: bytes) -> tuple[int, int, int] | None:
    """(opcode, dest QP, PSN) of a RoCEv2 UDP payload, or None if too short."""
    if len(payload) < _BTH.size:
        return None
    op, _, _, qp, psn = _BTH.unpack_from(payload)
    return op, qp & _QP_MASK, psn & _QP_MASK


@dataclass
class DcqcnParams:
    """DCQCN parameters (defaults: htsim dcqcn.cpp; see the module docstring)."""
    g: float = 1 / 256                     # alpha gain
    alpha_init: float = 1.0
    alpha_timer_ns: int = 55_000           # alpha decay period without CNPs
    rate_timer_ns: int = 55_000            # rate-increase timer (T)
    byte_counter: int = 10_000_000         # bytes per byte-counter event (B)
    fast_recovery_steps: int = 5           # F
    rai_bps: float | None = None           # additive increase step; None: line rate / 20
    rhai_bps: float | None = None          # hyper increase step; None: line rate / 10
    min_rate_bps: float = 100e6
    initial_rate_bps: float | None = None  # None: line rate
    cnp_interval_ns: int = 50_000          # NP: at most one CNP per flow per interval
    cnp_defer: bool = False                # NP: marks inside the interval send one CNP when it ends (htsim)
    # RT <- RC on every CNP (the paper's equation, htsim, ns3-rdma's CLAMP_TARGET_RATE 1). False is
    # the NIC's default (Mellanox ``clamp_tgt_rate`` 0; HPCC's CLAMP_TARGET_RATE 0): RT keeps the
    # rate from before the congestion episode unless the rate was raised since the last CNP.
    clamp_target_rate: bool = True
    # With clamp_target_rate False: a timer increase since the last CNP also moves RT to RC, not only a
    # byte-counter one (Mellanox ``clamp_tgt_rate_after_time_inc``, default 1; HPCC's rdma-hw.cc checks
    # the timer stage only, having no byte counter).
    clamp_target_rate_after_time_inc: bool = True
    # The cut uses alpha as it was before this CNP raised it (the paper's order, htsim's processCNP);
    # ns3-rdma's rpr_cnm_received raises alpha first and cuts with the new value.
    alpha_before_cut: bool = False
    # ns3-rdma's AdjustRates: at an increase event where T or BC is 1 and RT > 10 x RC, RT is divided
    # by 8 instead of being stepped (a target far above a deeply cut rate is pulled down). None: off.
    rt_pull_down_ratio: float | None = None

    def with_(self, **changes) -> "DcqcnParams":
        return replace(self, **changes)


class DcqcnRateControl:
    """The reaction point's arithmetic: current rate ``rc``, target rate ``rt``, ``alpha``,
    counters ``t`` (timer events) and ``bc`` (byte-counter events) since the last CNP."""

    def __init__(self, line_rate_bps: float, params: DcqcnParams | None = None):
        p = self.params = params or DcqcnParams()
        if line_rate_bps <= 0:
            raise ValueError("line rate must be positive")
        self.line = float(line_rate_bps)
        self.rc = min(self.line, float(p.initial_rate_bps or self.line))
        self.rt = self.rc
        self.alpha = float(p.alpha_init)
        self.rai = float(p.rai_bps if p.rai_bps is not None else self.line / 20)
        self.rhai = float(p.rhai_bps if p.rhai_bps is not None else self.line / 10)
        self.t = 0
        self.bc = 0
        self.byte_acc = 0
        self.cnps = 0
        self.events = {"fast_recovery": 0, "additive": 0, "hyper": 0}

    def on_cnp(self) -> None:
        p = self.params
        self.cnps += 1
        # Which CNPs move RT to RC: every one when clamping (paper, htsim, ns3-rdma config.txt); else
        # only one that follows a rate increase, so that a run of CNPs with no increase between them
        # keeps RT at the rate before the episode (Mellanox clamp_tgt_rate /
        # clamp_tgt_rate_after_time_inc; HPCC rdma-hw.cc CheckRateDecreaseMlx; ns3-rdma
        # qbb-net-device.cc rpr_cnm_received). t and bc count increase events since the last CNP.
        if p.clamp_target_rate or self.bc > 0 or (p.clamp_target_rate_after_time_inc and self.t > 0):
            self.rt = self.rc
        if p.alpha_before_cut:
            self.alpha = (1 - p.g) * self.alpha + p.g
            self.rc = max(p.min_rate_bps, self.rc * (1 - self.alpha / 2))
        else:
            self.rc = max(p.min_rate_bps, self.rc * (1 - self.alpha / 2))
            self.alpha = (1 - p.g) * self.alpha + p.g
        self.t = self.bc = self.byte_acc = 0

    def on_alpha_timer(self) -> None:
        self.alpha *= 1 - self.params.g

    def on_rate_timer(self) -> None:
        self.t += 1
        self._increase()

    def on_bytes_sent(self, n: int) -> int:
        """Count ``n`` sent bytes; returns how many byte-counter increase events fired."""
        self.byte_acc += n
        fired = 0
        B = self.params.byte_counter
        while self.byte_acc >= B:
            self.byte_acc -= B
            self.bc += 1
            fired += 1
            self._increase()
        return fired

    def _increase(self) -> None:
        if self.rc >= self.line:
            return
        p = self.params
        F = p.fast_recovery_steps
        t, bc = self.t, self.bc
        if p.rt_pull_down_ratio is not None and (t == 1 or bc == 1) and self.rt > p.rt_pull_down_ratio * self.rc:
            self.rt /= 8                     # ns3-rdma qbb-net-device.cc AdjustRates
            self.events["fast_recovery"] += 1
        elif max(t, bc) <= F:
            self.events["fast_recovery"] += 1
        elif min(t, bc) > F:
            self.rt += (min(t, bc) - F) * self.rhai
            self.events["hyper"] += 1
        else:
            self.rt += self.rai
            self.events["additive"] += 1
        if self.rt > self.line:
            self.rt = self.line
        self.rc = min(self.line, (self.rt + self.rc) / 2)


class RoceEndpoint:
    """The RoCE side of one host: owns UDP port 4791, hands CNPs to senders and data to
    receivers by destination QP. Get it with ``RoceEndpoint.of(host)``."""

    _endpoints: "weakref.WeakKeyDictionary[Host, RoceEndpoint]" = weakref.WeakKeyDictionary()

    @classmethod
    def of(cls, host: Host) -> "RoceEndpoint":
        ep = cls._endpoints.get(host)
        if ep is None:
            ep = cls._endpoints[host] = cls(host)
        return ep

    def __init__(self, host: Host):
        self.host = host
        self.senders: dict[int, DcqcnSender] = {}
        self.receivers: dict[int, DcqcnReceiver] = {}
        self.stats = {"cnps_received": 0, "data_received": 0, "unknown_qp": 0, "malformed": 0}
        host.bind_udp(ROCE_PORT, self._on_packet)

    def _on_packet(self, src_ip: int, src_port: int, payload: bytes, tos: int, time_ns: int) -> None:
        bth = parse_bth(payload)
        if bth is None:
            self.stats["malformed"] += 1
            return
        op, qp, psn = bth
        if op == OP_CNP:
            s = self.senders.get(qp)
            if s is None:
                self.stats["unknown_qp"] += 1
                return
            self.stats["cnps_received"] += 1
            s.on_cnp(time_ns)
            return
        r = self.receivers.get(qp)
        if r is None:
            self.stats["unknown_qp"] += 1
            return
        self.stats["data_received"] += 1
        r.on_data(src_ip, src_port, psn, payload, tos, time_ns)


class DcqcnSender:
    """A paced RoCEv2-like UDP flow of ``total_bytes`` (``payload_bytes`` per packet) to the
    receiver QP ``dst_qp`` at ``dst_ip``, with DCQCN (``cc=True``) or at a fixed rate.

    ``ect`` sends ECT(0) (Not-ECT otherwise). Pacing is on line time: each frame
    (``data_frame_len``) counts with its link's overhead (``Link.wire_bytes``: Ethernet's FCS,
    preamble and gap by default), so RC is a line rate and RC = line rate is back to back. ``rate_log`` holds (time ns, RC bps) at every change;
    ``stats`` counts packets, bytes, CNPs; ``done_ns`` is when the last packet was sent.
    """

    def __init__(self, host: Host, dst_ip: int | str, total_bytes: int, *, payload_bytes: int = 1024,
                 start_ns: int = 0, dst_qp: int = 1, params: DcqcnParams | None = None, cc: bool = True,
                 ect: bool = True, line_rate_bps: float | None = None,
                 on_done: Callable[["DcqcnSender"], None] | None = None):
        if payload_bytes < _APP.size:
            raise ValueError(f"payload_bytes must be at least {_APP.size} (sequence + timestamp)")
        if total_bytes <= 0:
            raise ValueError("total_bytes must be positive")
        self.host, self.sim = host, host.sim
        self.dst_ip = _ip(dst_ip)
        self.total_bytes, self.payload_bytes = total_bytes, payload_bytes
        self.start_ns, self.dst_qp = start_ns, dst_qp & _QP_MASK
        self.params = params or DcqcnParams()
        self.cc_enabled, self.on_done = cc, on_done
        self.tos = pk.ECN_ECT0 if ect else pk.ECN_NOT_ECT
        if line_rate_bps is None:
            port = host.port
            if port is None or port.link is None:
                raise ValueError(f"{host.name} is not connected; give line_rate_bps")
            line_rate_bps = port.link.rate_bps
        self.cc = DcqcnRateControl(line_rate_bps, self.params)
        self.endpoint = RoceEndpoint.of(host)
        self.qpn = host.ephemeral_port()
        while self.qpn in self.endpoint.senders:
            self.qpn = host.ephemeral_port()
        self.endpoint.senders[self.qpn] = self
        self.n_packets = -(-total_bytes // payload_bytes)
        link = host.port.link if host.port is not None else None
        frame = data_frame_len(payload_bytes)
        self.frame_bits = (link.wire_bytes(frame) if link is not None else wire_bytes(frame)) * 8
        self._pad = bytes(payload_bytes - _APP.size) + _ICRC
        self._k = 0
        self._gen = 0
        self._due = float(start_ns)        # ideal time of the next packet
        self._last_due = float(start_ns)   # ideal time of the last one sent
        self._alpha_timer: Timer | None = None
        self._rate_timer: Timer | None = None
        self.done = False
        self.done_ns: int | None = None
        self.rate_log: list[tuple[int, float]] = [(start_ns, self.cc.rc)]
        self.stats = {"sent": 0, "bytes": 0, "send_failures": 0, "cnps": 0, "ignored_cnps": 0}
        self.sim.at(start_ns, self._send, 0)

    @property
    def key(self) -> tuple[int, int]:
        """How the receiver names this flow: (source IP, source port = QP)."""
        return (self.host.ip, self.qpn)

    @property
    def rate_bps(self) -> float:
        return self.cc.rc

    # ---- sending --------------------------------------------------------------------------------
    def _gap(self) -> float:
        return self.frame_bits * 1e9 / self.cc.rc

    def _send(self, gen: int) -> None:
        if gen != self._gen or self.done:
            return
        k = self._k
        last = k == self.n_packets - 1
        size = self.total_bytes - k * self.payload_bytes if last else self.payload_bytes
        now = self.sim.now
        payload = _BTH.pack(OP_SEND_ONLY, 0, 0xFFFF, self.dst_qp, k & _QP_MASK) + _APP.pack(k, now)
        payload += self._pad if size == self.payload_bytes else self._pad[:max(0, size - _APP.size)] + _ICRC
        st = self.stats
        if self.host.send_udp(self.dst_ip, self.qpn, ROCE_PORT, payload, self.tos):
            st["sent"] += 1
            st["bytes"] += size
        else:
            st["send_failures"] += 1
        self._k = k + 1
        if self._k >= self.n_packets:
            self._finish()
            return
        if self.cc_enabled and self.cc.on_bytes_sent(size):
            self._log_rate()
        self._last_due = self._due
        self._due += self._gap()
        self._schedule()

    def _schedule(self) -> None:
        self._gen += 1
        now = self.sim.now
        if self._due < now:
            self._due = float(now)
        self.sim.at(math.ceil(self._due), self._send, self._gen)

    def _rate_changed(self) -> None:
        """Apply a new RC to the packet waiting to be sent: it is due one gap after the last."""
        self._log_rate()
        if self.done or self._k == 0:
            return
        self._due = self._last_due + self._gap()
        self._schedule()

    def _log_rate(self) -> None:
        self.rate_log.append((self.sim.now, self.cc.rc))

    def _finish(self) -> None:
        self.done = True
        self.done_ns = self.sim.now
        for t in (self._alpha_timer, self._rate_timer):
            if t is not None:
                t.cancel()
        if self.on_done is not None:
            self.on_done(self)

    # ---- reaction point --------------------------------------------------------------------------
    def on_cnp(self, time_ns: int) -> None:
        self.stats["cnps"] += 1
        if not self.cc_enabled or self.done:
            self.stats["ignored_cnps"] += 1
            return
        self.cc.on_cnp()
        self._restart_timers()
        self._rate_changed()

    def _restart_timers(self) -> None:
        for t in (self._alpha_timer, self._rate_timer):
            if t is not None:
                t.cancel()
        p = self.params
        self._alpha_timer = self.host.timer(p.alpha_timer_ns, self._on_alpha_timer)
        self._rate_timer = self.host.timer(p.rate_timer_ns, self._on_rate_timer)

    def _on_alpha_timer(self) -> None:
        if self.done:
            return
        self.cc.on_alpha_timer()
        self._alpha_timer = self.host.timer(self.params.alpha_timer_ns, self._on_alpha_timer)

    def _on_rate_timer(self) -> None:
        if self.done:
            return
        before = self.cc.rc
        self.cc.on_rate_timer()
        if self.cc.rc != before:
            self._rate_changed()
        self._rate_timer = self.host.timer(self.params.rate_timer_ns, self._on_rate_timer)


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
    bins: dict[int, int] = field(default_factory=dict)            # bin index -> payload bytes
    last_cnp_ns: int | None = None
    cnp_pending: bool = False

    @property
    def lost(self) -> int:
        return self.max_psn + 1 - self.packets

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
        self.qpn = qpn & _QP_MASK
        self.params = params or DcqcnParams()
        self.notify, self.bin_ns = notify, bin_ns
        self.endpoint = RoceEndpoint.of(host)
        if self.qpn in self.endpoint.receivers:
            raise ValueError(f"{host.name}: QP {self.qpn} already has a receiver")
        self.endpoint.receivers[self.qpn] = self
        self.flows: dict[tuple[int, int], RoceFlowStats] = {}
        self.stats = {"received": 0, "bytes": 0, "ce_marked": 0, "cnps_sent": 0, "last_ns": None}

    def on_data(self, src_ip: int, src_port: int, psn: int, payload: bytes, tos: int, time_ns: int) -> None:
        key = (src_ip, src_port)
        rec = self.flows.get(key)
        if rec is None:
            rec = self.flows[key] = RoceFlowStats(src_ip, src_port, first_ns=time_ns)
        n = len(payload) - _BTH.size - len(_ICRC)
        rec.packets += 1
        rec.bytes += n
        rec.last_ns = time_ns
        rec.arrivals.append(time_ns)
        rec.sizes.append(n)
        b = time_ns // self.bin_ns
        rec.bins[b] = rec.bins.get(b, 0) + n
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
