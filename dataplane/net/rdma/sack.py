"""Selective repeat for a queue pair: a receiver that places packets out of order, and a sender
that resends only what did not arrive (``TransportConfig(receiver="sack")``).

RoCE NICs accept packets in PSN order only and recover by going back N; a fabric that sprays
packets over several paths delivers them out of order all the time, and go-back-N then resends
what already arrived. This follows the idea of IRN (Mittal et al., SIGCOMM'18) and of Ultra
Ethernet's transport, which places packets where they belong and acknowledges selectively:

* ``SackReceiver`` (the responder): the packet with the expected PSN is accepted as go-back-N
  accepts it, then every held packet that now follows in order; a packet up to
  ``reorder_window`` - 1 PSNs past the expected one is held (counted ``reordered``); one further
  on is dropped (``out_of_window``), for the sender to resend; one already held or accepted is a
  duplicate. Messages reach the application whole and in order, as with go-back-N. Every
  ``ack_every`` new packets, in order or not, and for every packet that asks (AckReq, now or
  once it is accepted in order), it sends an ACK whose SACK bitmap (``wire.sack_payload``)
  names the packets it holds, flagged when a duplicate arrived since the last one (D-SACK). It
  never sends a NAK.
* ``SackSender`` (the requester): the cumulative PSN of an ACK completes messages as before;
  its bitmap marks the PSNs after it as arrived. A PSN not marked, below one that is, is a hole:
  it is resent once its last transmission is ``reorder_ns`` old (a time rule, as TCP's RACK,
  so that packets merely overtaken on another path are not resent; a PSN distance rule would
  resend them under spraying); a timer looks again when the oldest unresolved hole comes of
  age. An ACK flagged with a duplicate means a resend was spurious, the reordering deeper than
  the sender allowed: it doubles its ``reorder_ns``, up to ``rto_ns``, at most once per
  ``reorder_ns`` (RACK widens its reordering window on D-SACKs the same way, RFC 8985). After ``rto_ns`` without progress every
  PSN not acknowledged either way is resent, never what arrived. Resends go before new packets.

  With ``window_counts="pipe"`` the sender's ``window`` bounds the pipe (RFC 6675: packets sent
  and acknowledged neither cumulatively nor selectively; here each such PSN counts once, resent
  or not, and resends go regardless of it) instead of the PSN span from the oldest
  unacknowledged one, as TCP with SACK and Ultra Ethernet's transport count: a packet held on a
  slow path then holds one slot, not the window. The span is still kept below the responder's
  ``reorder_window``, so that nothing is sent that it would drop; the packet that fills either
  bound asks for an ACK (``fills``), as the one that fills the span does when the span is counted.
"""
from __future__ import annotations

from collections import deque
from typing import Any

from dataplane.net.rdma import wire

__all__ = ["SackReceiver", "SackSender"]


class SackReceiver:
    """The responder's reorder window of one queue pair (module docstring)."""

    def __init__(self, qp: Any, window: int):
        self.qp = qp
        self.window = window
        self.mask = 0                                       # bit i: PSN epsn + i is held
        self.held: dict[int, tuple[int, int, Any, bool]] = {}   # PSN -> (op, body bytes, part, AckReq)
        self.duplicate = False                              # one arrived since the last ACK

    def on_data(self, wire_psn: int, op: int, payload: bytes, ack_req: bool) -> None:
        qp = self.qp
        st = qp.stats
        epsn = qp._epsn
        d = wire.psn_delta(wire_psn, epsn)
        if d < 0 or (d and self.mask >> d & 1):
            st.duplicates += 1
            self.duplicate = True
            if ack_req:
                self.acknowledge()
            return
        if d >= self.window:
            st.out_of_window += 1
            return
        body = len(payload) - wire.HEADER_BYTES
        part = payload[wire.BTH.size:wire.BTH.size + body] if qp.keep_data else None
        if d:
            st.reordered += 1
            self.held[epsn + d] = (op, body, part, ack_req)
            self.mask |= 1 << d
        else:
            qp._accept(op, body, part)
            self.mask >>= 1
            while self.mask & 1:
                op, body, part, asked = self.held.pop(qp._epsn)
                qp._accept(op, body, part)
                self.mask >>= 1
                ack_req = ack_req or asked
        qp._unacked += 1
        if ack_req or qp._unacked >= qp.config.ack_every:
            self.acknowledge()

    def acknowledge(self) -> None:
        """ACK everything accepted, with the bitmap of what is held."""
        qp = self.qp
        qp._unacked = 0
        qp.stats.acks_sent += 1
        ack = wire.sack_payload(qp.remote_qpn, qp._epsn - 1, self.mask, self.duplicate)
        if qp.echo is None:
            qp.nic.control(qp.remote_ip, qp.src_port, ack, qp._ack_tos)
        else:
            qp.nic.control(qp.remote_ip, qp.echo.ack_port(qp.src_port), qp.echo.append_to(ack), qp._ack_tos)
        self.duplicate = False


class SackSender:
    """The requester's scoreboard of one queue pair (module docstring)."""

    def __init__(self, qp: Any, reorder_ns: int):
        self.qp = qp
        self.reorder_ns = reorder_ns
        self.pipe = qp.config.window_counts == "pipe"    # the window bounds the pipe, not the span
        self.span_limit = qp.config.reorder_window       # PSNs past una the responder can hold
        self.sacked = 0                       # bit i: PSN una + i arrived (past the cumulative point)
        self.sent_at: dict[int, int] = {}     # PSN -> when it was last sent (PSNs from una on)
        self.resend: deque[int] = deque()     # holes to send again, in the order they were found
        self.queued: set[int] = set()
        self._timer_at: int | None = None
        self._widened_at: int | None = None   # when reorder_ns last doubled

    def sent(self, psn: int, now: int) -> None:
        self.sent_at[psn] = now

    def in_flight(self) -> int:
        """The pipe: PSNs sent (below ``_next``) acknowledged neither cumulatively nor selectively."""
        qp = self.qp
        return qp._next - qp._una - self.sacked.bit_count()

    def may_send(self, window: int | None) -> bool:
        """Pipe counting: room for the new packet at ``_next``. Its PSN must stay inside the
        responder's reorder window counted from ``_una`` (the responder's expected PSN is at or
        past it), and the pipe below ``window``."""
        qp = self.qp
        span = qp._next - qp._una
        return span < self.span_limit and (window is None or span - self.sacked.bit_count() < window)

    def fills(self, psn: int, window: int | None) -> bool:
        """Pipe counting: with ``psn`` sent, ``may_send`` says no; it then asks for an ACK, else a
        window smaller than the responder's ACK coalescing waits for the timer."""
        qp = self.qp
        span = max(psn + 1, qp._next) - qp._una
        return span >= self.span_limit or (window is not None and span - self.sacked.bit_count() >= window)

    def next_resend(self) -> int | None:
        """The next hole to send again (None: none left)."""
        qp = self.qp
        while self.resend:
            psn = self.resend.popleft()
            self.queued.discard(psn)
            if psn >= qp._una and not self.sacked >> (psn - qp._una) & 1:
                return psn
        return None

    def advance(self, upto: int) -> None:
        """The cumulative point moves from ``qp._una`` to ``upto``: forget what it covers."""
        una = self.qp._una
        if upto <= una:
            return
        self.sacked >>= upto - una
        pop = self.sent_at.pop
        for psn in range(una, upto):
            pop(psn, None)

    def on_ack(self, psn: int, bitmap: int, duplicate: bool = False) -> None:
        """An ACK of every PSN up to ``psn`` whose bitmap bit i says PSN psn + 1 + i arrived;
        ``duplicate``: its D-SACK flag."""
        qp = self.qp
        if psn >= qp._high:
            return                              # acknowledges what was never sent
        if duplicate:
            now = qp.sim.now
            # once per window: the resends already on their way when the first D-SACK comes
            # back prove nothing new
            if self._widened_at is None or now >= self._widened_at + self.reorder_ns:
                self.reorder_ns = min(qp.config.rto_ns, self.reorder_ns * 2)
                self._widened_at = now
        upto = psn + 1
        if upto > qp._una:
            self.advance(upto)
            qp._acknowledged(upto)
        off = upto - qp._una
        if bitmap:
            self.sacked |= bitmap << off if off >= 0 else bitmap >> -off
            self.sacked &= (1 << (qp._high - qp._una)) - 1
        self.find_holes()
        if self.pipe and qp.has_work():
            qp.nic.activate(qp)              # what the bitmap marks left the pipe

    def find_holes(self) -> None:
        """Queue the holes old enough to resend; look again when the next one comes of age."""
        qp = self.qp
        mask = self.sacked
        if not mask:
            return
        now = qp.sim.now
        limit = self.reorder_ns
        una = qp._una
        holes = ~mask & ((1 << mask.bit_length()) - 1)
        found = False
        soonest = None
        while holes:
            low = holes & -holes
            holes ^= low
            psn = una + low.bit_length() - 1
            if psn in self.queued:
                continue
            sent = self.sent_at.get(psn)
            if sent is None:
                continue
            due = sent + limit
            if now >= due:
                self.resend.append(psn)
                self.queued.add(psn)
                found = True
            elif soonest is None or due < soonest:
                soonest = due
        if soonest is not None and (self._timer_at is None or soonest < self._timer_at or self._timer_at <= now):
            self._timer_at = soonest
            qp.sim.at(soonest, self._on_timer, soonest)
        if found:
            qp.nic.activate(qp)

    def _on_timer(self, at: int) -> None:
        if self._timer_at == at:
            self._timer_at = None
        self.find_holes()

    def on_timeout(self) -> None:
        """No progress for rto_ns: resend every PSN not acknowledged either way."""
        qp = self.qp
        una = qp._una
        for psn in range(una, qp._high):
            if not self.sacked >> (psn - una) & 1 and psn not in self.queued:
                self.resend.append(psn)
                self.queued.add(psn)
