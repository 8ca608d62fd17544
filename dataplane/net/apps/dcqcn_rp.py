"""DCQCN's reaction point on a host: ``DcqcnSender``, a paced RoCEv2-like UDP flow whose rate
follows ``DcqcnRateControl`` (CNPs cut it; per-flow alpha and rate-increase timers and the
byte counter raise it)."""
from __future__ import annotations

import math
import struct
from typing import Callable

from dataplane.net.apps.dcqcn_rate import DcqcnParams, DcqcnRateControl
from dataplane.net.apps.dcqcn_wire import (
    APP_HEADER,
    BTH,
    ICRC,
    OP_SEND_ONLY,
    QP_MASK,
    ROCE_PORT,
    RoceEndpoint,
    data_frame_len,
)
from dataplane.net.devices.link import wire_bytes
from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.host import Host, Timer, _ip

__all__ = ["DcqcnSender", "ReactionPoint"]

_DATA_HEAD = struct.Struct(BTH.format + APP_HEADER.format.lstrip("!"))   # a data packet's BTH and app header


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
        if payload_bytes < APP_HEADER.size:
            raise ValueError(f"payload_bytes must be at least {APP_HEADER.size} (sequence + timestamp)")
        if total_bytes <= 0:
            raise ValueError("total_bytes must be positive")
        self.host, self.sim = host, host.sim
        self.dst_ip = _ip(dst_ip)
        self.total_bytes, self.payload_bytes = total_bytes, payload_bytes
        self.start_ns, self.dst_qp = start_ns, dst_qp & QP_MASK
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
        self._pad = bytes(payload_bytes - APP_HEADER.size) + ICRC
        self._k = 0
        self._gen = 0
        self._due = float(start_ns)        # ideal time of the next packet
        self._last_due = float(start_ns)   # ideal time of the last one sent
        self.rp = ReactionPoint(host, self.cc, self.params, self._rate_changed, lambda: self.done)
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
        head = _DATA_HEAD.pack(OP_SEND_ONLY, 0, 0xFFFF, self.dst_qp, k & QP_MASK, k, now)
        # the pad is the same bytes in every full packet: passed apart, it is copied once, into the frame
        tail = self._pad if size == self.payload_bytes else self._pad[:max(0, size - APP_HEADER.size)] + ICRC
        st = self.stats
        if self.host.send_udp(self.dst_ip, self.qpn, ROCE_PORT, head, self.tos, tail):
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
        self.rp.cancel()
        if self.on_done is not None:
            self.on_done(self)

    # ---- reaction point --------------------------------------------------------------------------
    def on_cnp(self, time_ns: int) -> None:
        self.stats["cnps"] += 1
        if not self.cc_enabled or self.done:
            self.stats["ignored_cnps"] += 1
            return
        self.rp.on_cnp()


class ReactionPoint:
    """The timers of DCQCN's reaction point for one flow on ``host``: what a CNP does to
    ``cc`` (a ``DcqcnRateControl``) and the alpha and rate-increase timers that follow it.
    ``on_rate_change()`` runs whenever RC may have changed; while ``done()`` the timers stop
    (the next CNP starts them again).
    Shared by ``DcqcnSender`` and the RDMA queue pairs (``dataplane.net.rdma``)."""

    def __init__(self, host: Host, cc: DcqcnRateControl, params: DcqcnParams, on_rate_change: Callable[[], None],
                 done: Callable[[], bool]):
        self.host, self.cc, self.params = host, cc, params
        self._rate_changed, self._done = on_rate_change, done
        self._alpha_timer: Timer | None = None
        self._rate_timer: Timer | None = None
        self._decrease_timer: Timer | None = None
        self._alpha_flag = self._decrease_flag = False

    def on_cnp(self) -> None:
        """A CNP for this flow (the caller has checked that congestion control is on)."""
        if self.params.rate_decrease_interval_ns is not None:
            self._cnp_flagged()
            return
        self.cc.on_cnp()
        self._restart_timers()
        self._rate_changed()

    def cancel(self) -> None:
        """Stop every timer (the flow is done)."""
        for t in (self._alpha_timer, self._rate_timer, self._decrease_timer):
            if t is not None:
                t.cancel()

    # The NIC's periodic form (DcqcnParams.rate_decrease_interval_ns; HPCC rdma-hw.cc
    # cnp_received_mlx): a CNP sets two flags, read by an alpha tick and a decrease check that run
    # from the flow's first CNP. That CNP leaves the rate alone (HPCC's RateOnFirstCnp 1.0) and its
    # decrease flag set, so the first check cuts for it; it sets alpha to alpha_init and starts both
    # ticks, the check 1 ns after the alpha update.
    def _cnp_flagged(self) -> None:
        self._alpha_flag = self._decrease_flag = True
        interval = self.params.rate_decrease_interval_ns
        if self._decrease_timer is None and interval is not None:
            self.cc.alpha = float(self.params.alpha_init)
            self._alpha_flag = False
            self._alpha_timer = self.host.timer(self.params.alpha_timer_ns, self._on_alpha_tick)
            self._decrease_timer = self.host.timer(interval + 1, self._on_decrease_check)

    def _on_alpha_tick(self) -> None:
        if self._done():
            self._alpha_timer = None
            return
        self.cc.on_alpha_tick(self._alpha_flag)
        self._alpha_flag = False
        self._alpha_timer = self.host.timer(self.params.alpha_timer_ns, self._on_alpha_tick)

    def _on_decrease_check(self) -> None:
        if self._done():
            self._decrease_timer = None     # a later CNP starts the ticks again
            return
        interval = self.params.rate_decrease_interval_ns
        assert interval is not None
        self._decrease_timer = self.host.timer(interval, self._on_decrease_check)
        if not self._decrease_flag:
            return
        self._decrease_flag = False
        self.cc.on_decrease_check()
        if self._rate_timer is not None:
            self._rate_timer.cancel()
        self._rate_timer = self.host.timer(self.params.rate_timer_ns, self._on_rate_timer)
        self._rate_changed()

    def _restart_timers(self) -> None:
        for t in (self._alpha_timer, self._rate_timer):
            if t is not None:
                t.cancel()
        p = self.params
        self._alpha_timer = self.host.timer(p.alpha_timer_ns, self._on_alpha_timer)
        self._rate_timer = self.host.timer(p.rate_timer_ns, self._on_rate_timer)

    def _on_alpha_timer(self) -> None:
        if self._done():
            self._alpha_timer = None
            return
        self.cc.on_alpha_timer()
        self._alpha_timer = self.host.timer(self.params.alpha_timer_ns, self._on_alpha_timer)

    def _on_rate_timer(self) -> None:
        if self._done():
            self._rate_timer = None
            return
        before = self.cc.rc
        self.cc.on_rate_timer()
        if self.cc.rc != before:
            self._rate_changed()
        self._rate_timer = self.host.timer(self.cc.rate_period_ns, self._on_rate_timer)
