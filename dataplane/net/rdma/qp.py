"""One end of a reliable connection: ``QueuePair`` (requester and responder); its settings and
counters are ``dataplane.net.rdma.config``'s.

The requester keeps its posted messages (``post_send``) in PSN order: message m holds PSNs
``first .. first + packets - 1``. The NIC asks it for one packet at a time (``send_one``);
``_next`` is the PSN to send, ``_una`` the oldest not yet acknowledged. An ACK moves ``_una``
and completes the messages it covers; a NAK (sequence error at PSN p) acknowledges what lies
before p and sends from p again; ``rto_ns`` without progress while packets are outstanding
sends from ``_una`` again (go-back-N, as RoCE NICs recover). The last packet of a message asks
for an acknowledgement (AckReq), so a message completes one round trip after it left.

The responder expects PSN ``_epsn``: that packet is accepted (its message's bytes kept when
``keep_data``), and every ``ack_every`` accepted packets, or one that asks, is acknowledged;
the first packet past a gap is answered with one NAK, and everything past the gap is dropped
until the expected PSN comes; a duplicate is acknowledged again if it asks. When the last
packet of a message is accepted, ``on_message(qp, data, nbytes)`` runs (``data`` None unless
``keep_data``).

With ``TransportConfig(receiver="sack")`` both roles use selective repeat instead
(``dataplane.net.rdma.sack``): the responder holds packets that arrive out of order in a window and
acknowledges with a bitmap of them, the requester resends only the holes. The choice is per queue
pair, so per flow; both ends of a connection must make the same one.

PSNs are counted in full inside and cut to 24 bits on the wire (``wire.psn_delta`` compares).
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Callable

from dataplane.net.apps.dcqcn_rate import DcqcnRateControl
from dataplane.net.apps.dcqcn_rp import ReactionPoint
from dataplane.net.apps.dcqcn_wire import CNP_TOS, ROCE_PORT
from dataplane.net.hosts import packets as pk
from dataplane.net.rdma import wire
from dataplane.net.rdma.config import QpStats, TransportConfig
from dataplane.net.rdma.entropy import EntropyEcho, EntropySender
from dataplane.net.rdma.hpcc_qp import QpHpcc
from dataplane.net.rdma.sack import SackReceiver, SackSender

__all__ = ["QueuePair"]

OnMessage = Callable[["QueuePair", Any, int], None]        # (qp, data or None, nbytes)


@dataclass
class _Message:
    first: int                       # first PSN
    packets: int
    nbytes: int
    data: Any                        # bytes-like or None (zeros on the wire)
    on_complete: Callable[[int], None] | None = None


@dataclass
class _Inbound:
    nbytes: int = 0
    parts: list = field(default_factory=list)


class QueuePair:
    """One end of a reliable connection from ``nic``'s host (``qpn``; ``nic`` is its ``RdmaNic``)
    to ``remote_qpn`` at ``remote_ip``. ``src_port`` is the UDP source port of its packets (the
    flow's ECMP entropy)."""

    def __init__(self, nic: Any, qpn: int, remote_ip: int, remote_qpn: int, config: TransportConfig, *,
                 src_port: int, on_message: OnMessage | None = None, keep_data: bool = False):
        self.nic, self.host, self.sim = nic, nic.host, nic.host.sim
        self.qpn, self.remote_ip, self.remote_qpn = qpn, remote_ip, remote_qpn
        self.config, self.src_port = config, src_port
        self.on_message, self.keep_data = on_message, keep_data
        self.stats = QpStats()
        ecn = config.dcqcn is not None
        self.tos = (config.dscp << 2) | (pk.ECN_ECT0 if ecn else pk.ECN_NOT_ECT)
        self._ack_tos = (config.dscp if config.ack_dscp is None else config.ack_dscp) << 2
        # requester
        self._msgs: list[_Message] = []
        self._firsts: list[int] = []
        self._head = 0                   # first message not yet acknowledged whole
        self._cursor = 0                 # the message holding _next
        self._next = self._una = self._end = 0
        self._high = 0                   # one past the highest PSN ever sent
        self._progress_ns = 0
        self._rto_armed = False
        self.queued = False              # in the NIC's active list
        self.ready_ns = 0.0              # paced: the earliest time of the next packet
        self._zeros = bytes(config.mtu) + wire.ICRC    # a full packet's body of zeros, and its ICRC
        # responder
        self._epsn = 0
        self._unacked = 0
        self._nak_sent = False
        self._inbound = _Inbound()
        self._last_cnp = -1              # DCQCN notification point: when the last CNP left
        self._cnp_pending = False
        # selective repeat (rdma.sack): None with go-back-N
        sack = config.receiver == "sack"
        self._sack_rx = SackReceiver(self, config.reorder_window) if sack else None
        self._sack_tx = SackSender(self, config.reorder_ns) if sack else None
        # congestion control
        self.cc: DcqcnRateControl | None = None
        self.rp: ReactionPoint | None = None
        if config.dcqcn is not None:
            self.cc = DcqcnRateControl(nic.line_rate_bps, config.dcqcn)
            # the timers run while the queue pair sends, and after it until RC is back at line rate
            self.rp = ReactionPoint(self.host, self.cc, config.dcqcn, self._rate_changed, self._recovered)
        self.hpcc = QpHpcc(self, config.hpcc) if config.hpcc is not None else None
        if self.hpcc is not None:
            self.tos = self.hpcc.tos
        # entropy spraying (rdma.entropy): ECT data, so that the switches' marks come back per path
        self.entropy = EntropySender(self, config.entropy) if config.entropy is not None else None
        self.echo = EntropyEcho(config.entropy, f"{self.host.name}/{qpn}") if config.entropy is not None else None
        if self.entropy is not None:
            self.tos |= pk.ECN_ECT0

    # ---- requester --------------------------------------------------------------------------------
    def post_send(self, nbytes: int, data: Any = None, on_complete: Callable[[int], None] | None = None) -> None:
        """Send a message of ``nbytes`` (its bytes ``data``, or zeros); ``on_complete(time_ns)``
        runs when all of it is acknowledged."""
        if nbytes < 0:
            raise ValueError("a message cannot have a negative size")
        if data is not None and len(data) != nbytes:
            raise ValueError(f"message data is {len(data)} bytes, not {nbytes}")
        packets = max(1, -(-nbytes // self.config.mtu))
        self._msgs.append(_Message(self._end, packets, nbytes, data, on_complete))
        self._firsts.append(self._end)
        self._end += packets
        self.nic.activate(self)

    @property
    def pending(self) -> int:
        """Messages posted and not yet acknowledged."""
        return len(self._msgs) - self._head

    def has_work(self) -> bool:
        tx = self._sack_tx
        if tx is not None:
            if tx.resend:
                return True
            if tx.pipe:
                return self._next < self._end and tx.may_send(self.config.window)
        window = self.config.window
        return self._next < self._end and (window is None or self._next - self._una < window) and \
            (self.hpcc is None or self.hpcc.may_send(self._next, self._una))

    def send_one(self) -> None:
        """Send the next packet (the NIC calls this when the wire can take it): a hole to resend
        (selective repeat), else the packet at ``_next``."""
        tx = self._sack_tx
        if tx is not None and tx.resend:
            psn = tx.next_resend()
            if psn is not None:
                self._send_psn(psn)
                return
            if not self._next < self._end:
                return
        psn = self._next
        self._send_psn(psn)
        self._next = psn + 1

    def _send_psn(self, psn: int) -> None:
        msgs = self._msgs
        i = max(self._cursor, self._head)
        m = msgs[i]
        if not m.first <= psn < m.first + m.packets:
            i = self._cursor = bisect_right(self._firsts, psn) - 1
            m = msgs[i]
        k = psn - m.first
        mtu = self.config.mtu
        last = k == m.packets - 1
        size = m.nbytes - k * mtu if last else mtu
        if m.packets == 1:
            op = wire.OP_SEND_ONLY
        elif k == 0:
            op = wire.OP_SEND_FIRST
        else:
            op = wire.OP_SEND_LAST if last else wire.OP_SEND_MIDDLE
        # the body and ICRC go apart from the headers (Host.send_udp's tail): copied once, into
        # the frame; a zero body of the path MTU is the same bytes in every packet
        tail = b"".join((m.data[k * mtu:k * mtu + size], wire.ICRC)) if m.data is not None else \
            (self._zeros if size == mtu else bytes(size) + wire.ICRC)
        # AckReq on a message's last packet, and on the one that fills the window (else a window
        # smaller than the responder's ACK coalescing would wait for the timer)
        window = self.config.window
        if self._sack_tx is not None and self._sack_tx.pipe:
            ack_req = last or self._sack_tx.fills(psn, window)
        else:
            ack_req = last or (window is not None and psn + 1 - self._una >= window)
        head = wire.data_header(op, self.remote_qpn, psn, ack_req)
        if self.hpcc is not None:
            head += self.hpcc.data_extra()
        sport = self.entropy.next_ev() if self.entropy is not None else self.src_port
        self.host.send_udp(self.remote_ip, sport, ROCE_PORT, head, self.tos, tail)
        st = self.stats
        st.packets_sent += 1
        st.bytes_sent += size
        if psn < self._high:
            st.retransmitted += 1
        else:
            self._high = psn + 1
        if last and i + 1 < len(msgs):
            self._cursor = i + 1
        now = self.sim.now
        if self._sack_tx is not None:
            self._sack_tx.sent(psn, now)
        if self._una == psn:
            self._progress_ns = now          # the timer runs from the oldest outstanding packet
        if not self._rto_armed:
            self._rto_armed = True
            self.sim.schedule(self.config.rto_ns, self._on_rto)
        cc = self.cc
        if cc is not None:
            if cc.on_bytes_sent(size):
                self._rate_changed()
            if cc.rc < cc.line:
                gap = self.nic.frame_bits(size) * 1e9 / cc.rc
                self.ready_ns = max(self.ready_ns, float(now)) + gap
        if self.hpcc is not None:
            self.ready_ns = self.hpcc.paced(self.ready_ns, now, size)

    def _acknowledged(self, upto: int) -> None:
        """Every PSN below ``upto`` arrived: complete the messages they finish."""
        if upto <= self._una:
            return
        self._una = upto
        self._progress_ns = self.sim.now
        msgs, head = self._msgs, self._head
        while head < len(msgs) and msgs[head].first + msgs[head].packets <= upto:
            m = msgs[head]
            msgs[head] = None      # type: ignore[call-overload]   (kept for the index; data freed)
            head += 1
            self.stats.messages_sent += 1
            if m.on_complete is not None:
                m.on_complete(self.sim.now)
        self._head = head
        if head > 4096 and head * 2 > len(msgs):    # drop finished messages now and then
            del msgs[:head], self._firsts[:head]
            self._cursor = max(0, self._cursor - head)
            self._head = 0
        if self._next < upto:
            self._next = upto
        if self.has_work():
            self.nic.activate(self)

    def _on_ack(self, wire_psn: int, syndrome: int, payload: bytes) -> None:
        base = self._una - 1
        psn = base + wire.psn_delta(wire_psn, base)
        if self._sack_tx is not None:
            if syndrome >> 5 != wire.SYNDROME_NAK_SEQ >> 5:
                self._sack_tx.on_ack(psn, *wire.sack_bitmap(payload))
            return
        if syndrome >> 5 == wire.SYNDROME_NAK_SEQ >> 5:
            self.stats.naks_received += 1
            if not self._una <= psn <= self._high:
                return                        # stale: nothing to go back to
            self._acknowledged(psn)
            self._next = psn
            self.nic.activate(self)
        elif psn < self._high:
            self._acknowledged(psn + 1)

    def _on_rto(self) -> None:
        if self._una >= self._high:
            self._rto_armed = False           # nothing outstanding: the next send arms it again
            return
        due = self._progress_ns + self.config.rto_ns
        now = self.sim.now
        if now < due:
            self.sim.schedule(due - now, self._on_rto)
            return
        self.stats.timeouts += 1
        if self._sack_tx is not None:
            self._sack_tx.on_timeout()
        else:
            self._next = self._una
        self._progress_ns = now
        self.sim.schedule(self.config.rto_ns, self._on_rto)
        self.nic.activate(self)

    # ---- congestion control (reaction point) ------------------------------------------------------
    def on_cnp(self, time_ns: int) -> None:
        self.stats.cnps_received += 1
        if self.rp is not None:
            self.rp.on_cnp()

    def _recovered(self) -> bool:
        cc = self.cc
        return self._una >= self._end and cc is not None and cc.rc >= cc.line

    def _rate_changed(self) -> None:
        """A new RC: the next packet is one gap at that rate after the last one left."""
        cc = self.cc
        if cc is None:
            return
        if cc.rc >= cc.line:
            self.ready_ns = 0.0
        if self.has_work():
            self.nic.activate(self)

    # ---- responder --------------------------------------------------------------------------------
    def on_data(self, src_ip: int, src_port: int, psn: int, payload: bytes, tos: int, time_ns: int) -> None:
        """A packet for this QP from the endpoint: data for the responder or an ACK/NAK for the requester."""
        if len(payload) < wire.HEADER_BYTES:
            return
        op = payload[0]
        if op == wire.OP_ACK:
            if len(payload) >= wire.ACK_PAYLOAD_BYTES:
                self._on_ack(psn, payload[wire.BTH.size], payload)
                if self.hpcc is not None:
                    self.hpcc.on_ack(payload)
                if self.entropy is not None:
                    self.entropy.on_ack(payload)
            return
        if self.hpcc is not None:
            payload = self.hpcc.strip(payload)
        if op > wire.OP_SEND_ONLY or op == 0x03:
            return                             # not a SEND this transport speaks
        st = self.stats
        ack_req = payload[8] & 0x80
        if tos & 3 == pk.ECN_CE:
            st.ce_marked += 1
            self._notify_congestion()
        if self.echo is not None:
            self.echo.received(src_port, tos)
        if self._sack_rx is not None:
            self._sack_rx.on_data(psn, op, payload, bool(ack_req))
            return
        d = wire.psn_delta(psn, self._epsn)
        if d:
            if d > 0:
                st.out_of_sequence += 1
                if not self._nak_sent:
                    self._nak_sent = True
                    self._send_ack(self._epsn, wire.SYNDROME_NAK_SEQ)
                    st.naks_sent += 1
            else:
                st.duplicates += 1
                if ack_req:
                    self._send_ack(self._epsn - 1, wire.SYNDROME_ACK)
            return
        self._nak_sent = False
        body = len(payload) - wire.HEADER_BYTES
        self._unacked += 1
        if ack_req or self._unacked >= self.config.ack_every:
            self._send_ack(self._epsn, wire.SYNDROME_ACK)
        self._accept(op, body, payload[wire.BTH.size:wire.BTH.size + body] if self.keep_data else None)

    def _accept(self, op: int, body: int, part: Any) -> None:
        """The packet with the expected PSN (``body`` bytes of message, ``part`` them or None):
        count it, add it to the message, and hand a finished message to ``on_message``."""
        self._epsn += 1
        st = self.stats
        st.packets_received += 1
        st.bytes_received += body
        inbound = self._inbound
        inbound.nbytes += body
        if part is not None:
            inbound.parts.append(part)
        if op == wire.OP_SEND_LAST or op == wire.OP_SEND_ONLY:
            self._inbound = _Inbound()
            st.messages_received += 1
            if self.on_message is not None:
                self.on_message(self, b"".join(inbound.parts) if self.keep_data else None, inbound.nbytes)

    def _send_ack(self, psn: int, syndrome: int) -> None:
        self._unacked = 0
        if syndrome == wire.SYNDROME_ACK:
            self.stats.acks_sent += 1
        ack = wire.ack_payload(self.remote_qpn, psn, syndrome)
        self.nic.control(self.remote_ip, self.src_port, self.hpcc.ack(ack) if self.hpcc else ack, self._ack_tos)

    def _notify_congestion(self) -> None:
        """DCQCN's notification point, as ``DcqcnReceiver``'s: at most one CNP per
        ``cnp_interval_ns`` per queue pair, marks inside an interval answered by one CNP at its end."""
        params = self.config.dcqcn
        if params is None:
            return
        now, interval = self.sim.now, params.cnp_interval_ns
        if self._last_cnp < 0 or now - self._last_cnp >= interval:
            self._send_cnp()
        elif params.cnp_defer and not self._cnp_pending:
            self._cnp_pending = True
            self.sim.at(self._last_cnp + interval, self._send_cnp)

    def _send_cnp(self) -> None:
        self._cnp_pending = False
        self._last_cnp = self.sim.now
        self.stats.cnps_sent += 1
        self.nic.control(self.remote_ip, self.src_port, wire.cnp_payload(self.remote_qpn), CNP_TOS)

    def __repr__(self) -> str:
        return f"<QueuePair {self.host.name}:{self.qpn} -> {self.remote_ip}:{self.remote_qpn}>"

