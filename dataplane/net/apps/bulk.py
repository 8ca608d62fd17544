"""Reliable bulk transfer over UDP: a go-back-N sender with a window and a retransmission
timeout, and the receiver that acknowledges it. The sender is where congestion control plugs
in (subclass and adjust ``window`` in ``on_ack``/``on_timeout``).

Wire format (inside UDP payloads, big-endian):
data ``type=1:u8 flags:u8 0:u16 seq:u32 send_time_ns:u64`` then ``mss`` data bytes (flags bit 0 =
last segment); ACK ``type=2:u8 flags:u8 0:u16 cum_ack:u32 echoed_time_ns:u64`` (flags bit 0 =
ECN-Echo: the data packet that triggered this ACK arrived CE-marked).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Callable

from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.host import Host, _ip

_BULK_HDR = struct.Struct("!BBHIQ")
_BULK_DATA, _BULK_ACK = 1, 2
_FLAG_LAST = 1
_FLAG_ECE = 1


class BulkTransfer:
    """Reliable transfer of ``total_bytes`` over UDP: go-back-N with cumulative ACKs from a
    :class:`BulkReceiver`, a window of ``window`` packets and a retransmission timeout.

    Congestion control plugs in by subclassing: change ``self.window`` (packets; floats are
    fine, at least one packet is always allowed) in ``on_ack(acked, ecn_marked)``, called for
    every ACK (``acked`` = newly acknowledged segments, possibly 0) and ``on_timeout()``.
    ``last_rtt_ns``/``srtt_ns`` come from timestamps echoed in ACKs. ``stats`` has the flow
    completion time (``fct_ns``, from ``start_ns`` to the last ACK) and ``goodput_bps``.
    """

    def __init__(self, src: Host, dst_ip: int | str, total_bytes: int, window_packets: float = 16,
                 mss: int = 1400, start_ns: int = 0, dst_port: int = 5002, src_port: int | None = None,
                 rto_ns: int = 1_000_000, tos: int = 0,
                 on_complete: Callable[[BulkTransfer], None] | None = None):
        if total_bytes <= 0 or mss <= 0:
            raise ValueError("BulkTransfer needs total_bytes > 0 and mss > 0")
        self.host, self.sim = src, src.sim
        self.dst_ip = _ip(dst_ip)
        self.total_bytes, self.mss = total_bytes, mss
        self.window = window_packets
        self.start_ns, self.dst_port, self.rto_ns, self.tos = start_ns, dst_port, rto_ns, tos
        self.on_complete = on_complete
        self.src_port = src.ephemeral_port() if src_port is None else src_port
        self.n_segments = -(-total_bytes // mss)
        self.snd_una = 0          # first unacknowledged segment
        self.snd_nxt = 0          # next segment to send
        self._high = 0            # one past the highest segment ever sent (to tell retransmits)
        self._deadline: int | None = None
        self._timer_pending = False
        self.last_rtt_ns: int | None = None
        self.srtt_ns: float | None = None
        self.done = False
        self._data = bytes(mss)
        self.stats = {"sent": 0, "retransmits": 0, "timeouts": 0, "acks": 0, "ecn_echoes": 0,
                      "fct_ns": None, "goodput_bps": None}
        src.bind_udp(self.src_port, self._on_ack_packet)
        self.sim.at(start_ns, self._try_send)

    # Hooks for congestion control ------------------------------------------------------

    def on_ack(self, acked: int, ecn_marked: bool) -> None:
        """Called for every ACK; the base class keeps a fixed window."""

    def on_timeout(self) -> None:
        """Called when the retransmission timer fires, before go-back-N resends."""

    # Mechanics --------------------------------------------------------------------------

    @property
    def key(self) -> tuple[int, int]:
        return (self.host.ip, self.src_port)

    def _try_send(self) -> None:
        if self.done:
            return
        limit = min(self.n_segments, self.snd_una + max(1, int(self.window)))
        while self.snd_nxt < limit:
            self._send_segment(self.snd_nxt)
            self.snd_nxt += 1
        if self.snd_nxt > self.snd_una and self._deadline is None:
            self._arm()

    def _send_segment(self, seq: int) -> None:
        last = seq == self.n_segments - 1
        size = self.total_bytes - seq * self.mss if last else self.mss
        hdr = _BULK_HDR.pack(_BULK_DATA, _FLAG_LAST if last else 0, 0, seq, self.sim.now)
        self.host.send_udp(self.dst_ip, self.src_port, self.dst_port,
                           hdr + (self._data if size == self.mss else self._data[:size]), self.tos)
        self.stats["sent"] += 1
        if seq < self._high:
            self.stats["retransmits"] += 1
        else:
            self._high = seq + 1

    def _arm(self) -> None:
        # The deadline moves on every ACK, but the simulator cannot move events; keep one
        # pending timer and let it re-schedule itself to the current deadline when it fires
        # early. That is one event per RTO period instead of one per ACK.
        self._deadline = self.sim.now + self.rto_ns
        if not self._timer_pending:
            self._timer_pending = True
            self.sim.at(self._deadline, self._on_timer)

    def _on_timer(self) -> None:
        self._timer_pending = False
        if self._deadline is None or self.done:
            return
        if self.sim.now < self._deadline:
            self._timer_pending = True
            self.sim.at(self._deadline, self._on_timer)
            return
        self.stats["timeouts"] += 1
        self._deadline = None
        self.snd_nxt = self.snd_una          # go back N: resend everything unacknowledged
        self.on_timeout()
        self._try_send()

    def _on_ack_packet(self, src_ip: int, src_port: int, payload: bytes, tos: int, time_ns: int) -> None:
        if len(payload) < _BULK_HDR.size or self.done:
            return
        kind, flags, _, cum, echoed = _BULK_HDR.unpack_from(payload)
        if kind != _BULK_ACK:
            return
        st = self.stats
        st["acks"] += 1
        ece = bool(flags & _FLAG_ECE)
        if ece:
            st["ecn_echoes"] += 1
        rtt = time_ns - echoed
        if 0 <= rtt:
            self.last_rtt_ns = rtt
            self.srtt_ns = rtt if self.srtt_ns is None else self.srtt_ns + (rtt - self.srtt_ns) / 8
        acked = 0
        if cum > self.snd_una:
            acked = min(cum, self.n_segments) - self.snd_una
            self.snd_una += acked
            if self.snd_nxt < self.snd_una:
                self.snd_nxt = self.snd_una  # ACKs of pre-timeout copies overtook the resend
            # RFC 6298 5.3: restart the timer on new data acknowledged, stop it when all is.
            if self.snd_una < self.snd_nxt:
                self._arm()
            else:
                self._deadline = None
        self.on_ack(acked, ece)
        if self.snd_una >= self.n_segments:
            self._complete(time_ns)
        else:
            self._try_send()

    def _complete(self, time_ns: int) -> None:
        self.done = True
        self._deadline = None
        fct = time_ns - self.start_ns
        self.stats["fct_ns"] = fct
        self.stats["goodput_bps"] = self.total_bytes * 8e9 / fct if fct > 0 else None
        self.host.unbind_udp(self.src_port)
        if self.on_complete is not None:
            self.on_complete(self)


@dataclass(eq=False)
class BulkFlowState:
    expected: int = 0          # next in-order segment
    bytes: int = 0             # application bytes delivered in order
    packets: int = 0
    out_of_order: int = 0      # discarded (go-back-N receivers keep no holes)
    duplicates: int = 0
    ce_marked: int = 0
    first_ns: int = 0
    done_ns: int | None = None  # arrival of the last segment, in order


class BulkReceiver:
    """The receiving side of BulkTransfer on ``port``: in-order delivery, one cumulative ACK per
    data packet (no delayed ACKs, so ECN echo is per packet as DCTCP-style schemes want)."""

    def __init__(self, host: Host, port: int = 5002):
        self.host, self.port = host, port
        self.flows: dict[tuple[int, int], BulkFlowState] = {}
        self.stats = {"received": 0, "bytes": 0, "acks_sent": 0, "out_of_order": 0, "completed": 0}
        host.bind_udp(port, self._on_packet)

    def _on_packet(self, src_ip: int, src_port: int, payload: bytes, tos: int, time_ns: int) -> None:
        if len(payload) < _BULK_HDR.size:
            return
        kind, flags, _, seq, sent = _BULK_HDR.unpack_from(payload)
        if kind != _BULK_DATA:
            return
        key = (src_ip, src_port)
        fl = self.flows.get(key)
        if fl is None:
            fl = self.flows[key] = BulkFlowState(first_ns=time_ns)
        fl.packets += 1
        self.stats["received"] += 1
        ce = tos & 3 == pk.ECN_CE
        if ce:
            fl.ce_marked += 1
        if seq == fl.expected:
            fl.expected += 1
            n = len(payload) - _BULK_HDR.size
            fl.bytes += n
            self.stats["bytes"] += n
            if flags & _FLAG_LAST and fl.done_ns is None:
                fl.done_ns = time_ns
                self.stats["completed"] += 1
        elif seq < fl.expected:
            fl.duplicates += 1
        else:
            fl.out_of_order += 1
            self.stats["out_of_order"] += 1
        ack = _BULK_HDR.pack(_BULK_ACK, _FLAG_ECE if ce else 0, 0, fl.expected, sent)
        if self.host.send_udp(src_ip, self.port, src_port, ack):
            self.stats["acks_sent"] += 1
