"""HPCC on RoCEv2-like flows: ``HpccSender`` (window- and rate-limited by ``HpccWindow``) and
``HpccReceiver`` (``DcqcnReceiver``'s statistics, plus an ACK per packet that echoes the
packet's INT records), the pair ``scenario incast --cc hpcc`` runs.

Data packets: ``BTH(SEND Only, dest QP, PSN)``, the INT header (``hpcc.pack_int_header``,
empty when sent; switches running ``programs/hpcc.p4`` fill it), then ``seq:u64
send_time:u64``, padding to ``payload_bytes`` and the ICRC; DSCP ``HPCC_DSCP``, Not-ECT
(HPCC reads the records, not ECN marks). ACKs: ``BTH(Acknowledge, dest QP = the sender's
QP, PSN of the packet answered)``, the AETH, the data packet's INT header as it arrived,
the ICRC; DSCP 0, so switches leave them alone. As HPCC's simulator does (L2_ACK_INTERVAL 1),
every packet is acknowledged.

Like ``DcqcnSender`` the flow does not resend (UDP): a lost packet is counted by the
receiver, and its ACK never comes; the sender counts the bytes in flight from the highest
acknowledged PSN, so a loss does not stall it.
"""
from __future__ import annotations

import math
import struct
from typing import Callable

from dataplane.net.apps.dcqcn_np import DcqcnReceiver
from dataplane.net.apps.dcqcn_wire import APP_HEADER, BTH, ICRC, OP_SEND_ONLY, QP_MASK, ROCE_PORT, RoceEndpoint
from dataplane.net.hosts.host import Host, _ip
from dataplane.net.rdma import wire
from dataplane.net.rdma.hpcc import (
    HPCC_DSCP,
    INT_HEADER_BYTES,
    HpccParams,
    HpccWindow,
    pack_int_header,
    parse_int_header,
)

__all__ = ["HpccSender", "HpccReceiver", "HPCC_TOS", "hpcc_frame_len"]

HPCC_TOS = HPCC_DSCP << 2            # Not-ECT
_AETH = struct.Struct("!I")
_EMPTY_INT = pack_int_header()


def hpcc_frame_len(payload_bytes: int) -> int:
    """Captured bytes of an HPCC data frame carrying ``payload_bytes`` (the INT header included)."""
    return wire.frame_bytes(payload_bytes + INT_HEADER_BYTES)


class HpccSender:
    """A flow of ``total_bytes`` in ``payload_bytes`` packets to QP ``dst_qp`` at ``dst_ip``, at
    most ``window`` bytes in flight and paced at ``rate_bps`` = W / T (``HpccWindow``).
    ``rate_log`` holds (time ns, rate bps) at every change; ``stats`` counts packets, bytes
    and ACKs; ``done_ns`` is when the last packet was sent."""

    def __init__(self, host: Host, dst_ip: int | str, total_bytes: int, *, params: HpccParams, base_rtt_ns: int,
                 payload_bytes: int = 4096, start_ns: int = 0, dst_qp: int = 1,
                 on_done: Callable[["HpccSender"], None] | None = None):
        if payload_bytes < APP_HEADER.size:
            raise ValueError(f"payload_bytes must be at least {APP_HEADER.size} (sequence + timestamp)")
        if total_bytes <= 0:
            raise ValueError("total_bytes must be positive")
        port = host.port
        if port is None or port.link is None:
            raise ValueError(f"{host.name} is not connected")
        self.host, self.sim, self.link = host, host.sim, port.link
        self.dst_ip, self.dst_qp = _ip(dst_ip), dst_qp & QP_MASK
        self.total_bytes, self.payload_bytes, self.on_done = total_bytes, payload_bytes, on_done
        self.cc = HpccWindow(port.link.rate_bps, params, base_rtt_ns)
        self.endpoint = RoceEndpoint.of(host)
        self.qpn = host.ephemeral_port()
        while self.qpn in self.endpoint.senders or self.qpn in self.endpoint.receivers:
            self.qpn = host.ephemeral_port()
        self.endpoint.receivers[self.qpn] = self       # ACKs are addressed to this QP
        self.n_packets = -(-total_bytes // payload_bytes)
        self.frame_bits = self.link.wire_bytes(hpcc_frame_len(payload_bytes)) * 8
        self._tail = bytes(payload_bytes - APP_HEADER.size) + ICRC
        self._next = 0                 # PSN to send
        self._una = 0                  # one past the highest acknowledged PSN
        self._avail = float(start_ns)  # earliest time of the next packet (pacing)
        self._armed: int | None = None
        self.done = False
        self.done_ns: int | None = None
        self.rate_log: list[tuple[int, float]] = [(start_ns, self.cc.rate_bps)]
        self.stats = {"sent": 0, "bytes": 0, "send_failures": 0, "acks": 0, "bad_acks": 0}
        self.sim.at(start_ns, self._try_send)

    @property
    def key(self) -> tuple[int, int]:
        """How the receiver names this flow: (source IP, source port = QP)."""
        return (self.host.ip, self.qpn)

    @property
    def rate_bps(self) -> float:
        return self.cc.rate_bps

    def _size(self, psn: int) -> int:
        return self.total_bytes - psn * self.payload_bytes if psn == self.n_packets - 1 else self.payload_bytes

    def _try_send(self) -> None:
        self._armed = None
        while not self.done:
            psn = self._next
            # HPCC's window: no new packet while the bytes in flight reach W
            if (psn - self._una) * self.payload_bytes >= self.cc.window:
                return                                # an ACK calls again
            now = self.sim.now
            if self._avail > now:
                at = math.ceil(self._avail)
                if self._armed is None or at < self._armed:
                    self._armed = at
                    self.sim.at(at, self._on_timer, at)
                return
            self._send(psn)
            self._avail = max(self._avail, float(now)) + self.frame_bits * 1e9 / self.cc.rate_bps

    def _on_timer(self, at: int) -> None:
        if self._armed == at:
            self._try_send()

    def _send(self, psn: int) -> None:
        size = self._size(psn)
        head = BTH.pack(OP_SEND_ONLY, 0, 0xFFFF, self.dst_qp, psn & QP_MASK) + _EMPTY_INT + \
            APP_HEADER.pack(psn, self.sim.now)
        # a full packet's pad and ICRC are the same bytes every time: copied once, into the frame
        tail = self._tail if size == self.payload_bytes else bytes(max(0, size - APP_HEADER.size)) + ICRC
        if self.host.send_udp(self.dst_ip, self.qpn, ROCE_PORT, head, HPCC_TOS, tail):
            self.stats["sent"] += 1
            self.stats["bytes"] += size
        else:
            self.stats["send_failures"] += 1
        self._next = psn + 1
        if self._next >= self.n_packets:
            self.done = True
            self.done_ns = self.sim.now
            if self.on_done is not None:
                self.on_done(self)

    def on_data(self, src_ip: int, src_port: int, psn: int, payload: bytes, tos: int, time_ns: int) -> None:
        """An ACK from the receiver (the endpoint hands it over by QP)."""
        hops = parse_int_header(payload, BTH.size + _AETH.size) if payload[0] == wire.OP_ACK else None
        if hops is None:
            self.stats["bad_acks"] += 1
            return
        self.stats["acks"] += 1
        base = self._una - 1
        acked = base + wire.psn_delta(psn, base) + 1          # one past the PSN this ACK answers
        if acked > self._una:
            self._una = min(acked, self._next)
        if self.cc.on_ack(hops, self._una, self._next):
            self.rate_log.append((time_ns, self.cc.rate_bps))
        if not self.done:
            self._try_send()

    def on_cnp(self, time_ns: int) -> None:
        """HPCC does not react to CNPs (none come: its packets are Not-ECT)."""


class HpccReceiver(DcqcnReceiver):
    """``DcqcnReceiver``'s per-flow statistics (the RDMA payload: the INT header left out), and
    an ACK for every data packet carrying that packet's INT header back to its sender."""

    def __init__(self, host: Host, qpn: int = 1, bin_ns: int = 10_000):
        super().__init__(host, qpn=qpn, notify=False, bin_ns=bin_ns)
        self.stats["acks_sent"] = 0
        self.stats["malformed"] = 0

    def on_data(self, src_ip: int, src_port: int, psn: int, payload: bytes, tos: int, time_ns: int) -> None:
        start, end = BTH.size, BTH.size + INT_HEADER_BYTES
        if len(payload) < end + len(ICRC):
            self.stats["malformed"] += 1
            return
        super().on_data(src_ip, src_port, psn, payload[:start] + payload[end:], tos, time_ns)
        ack = BTH.pack(wire.OP_ACK, 0, 0xFFFF, src_port & QP_MASK, psn & QP_MASK) + \
            _AETH.pack(wire.SYNDROME_ACK << 24) + payload[start:end] + ICRC
        if self.host.send_udp(src_ip, ROCE_PORT, ROCE_PORT, ack, 0):
            self.stats["acks_sent"] += 1
