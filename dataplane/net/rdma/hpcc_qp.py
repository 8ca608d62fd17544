"""HPCC on a ``QueuePair``: what ``TransportConfig(hpcc=...)`` turns on, kept out of ``qp.py``
but for a few hook calls.

Requester: each data packet carries an empty INT header after its BTH and DSCP
``HPCC_DSCP`` (switches running ``programs/hpcc.p4`` fill it); it may send while the bytes in
flight (PSNs sent and not acknowledged, times the path MTU) are below HPCC's window W, paced
at W / T; each ACK's echoed records run ``HpccWindow.on_ack`` (ACK sequence: one past the
PSN acknowledged; snd_nxt: the next PSN to send). Responder: strips the INT header from data
before the transport sees it and echoes the last one it got in its next ACK or NAK (before the
ICRC). Set ``TransportConfig.ack_every`` to 1 for an ACK per packet, as HPCC's simulator does.
"""
from __future__ import annotations

from typing import Any

from dataplane.net.apps.dcqcn_wire import BTH, ICRC
from dataplane.net.rdma import wire
from dataplane.net.rdma.hpcc import (
    HPCC_DSCP,
    INT_HEADER_BYTES,
    HpccParams,
    HpccWindow,
    pack_int_header,
    parse_int_header,
)

__all__ = ["QpHpcc"]

_EMPTY_INT = pack_int_header()
_ICRC = len(ICRC)


class QpHpcc:
    """The HPCC state of queue pair ``qp`` (``params.base_rtt_ns`` must give T)."""

    def __init__(self, qp: Any, params: HpccParams):
        self.qp = qp
        self.window = HpccWindow(qp.nic.line_rate_bps, params)
        self.tos = HPCC_DSCP << 2        # what hpcc.p4 stamps; Not-ECT (HPCC reads records, not marks)
        self._echo = _EMPTY_INT
        self.bad_acks = 0

    # requester
    def may_send(self, next_psn: int, una: int) -> bool:
        """HPCC's window: a new packet only while the bytes in flight are below W."""
        return (next_psn - una) * self.qp.config.mtu < self.window.window

    def data_extra(self) -> bytes:
        return _EMPTY_INT

    def paced(self, ready_ns: float, now: int, size: int) -> float:
        """The earliest time of the next packet after one of ``size`` bytes left at ``now``."""
        return max(ready_ns, float(now)) + self.qp.nic.frame_bits(size + INT_HEADER_BYTES) * 1e9 / \
            self.window.rate_bps

    def on_ack(self, payload: bytes) -> None:
        """An ACK or NAK (already applied to the transport): its records update W."""
        hops = parse_int_header(payload, BTH.size + wire.AETH.size)
        if hops is None:
            self.bad_acks += 1
            return
        qp = self.qp
        self.window.on_ack(hops, qp._una, qp._next)
        if qp.has_work():
            qp.nic.activate(qp)

    # responder
    def strip(self, payload: bytes) -> bytes:
        """Data without its INT header (kept for the next ACK); too short: unchanged."""
        end = BTH.size + INT_HEADER_BYTES
        if len(payload) < end + _ICRC:
            return payload
        self._echo = payload[BTH.size:end]
        return payload[:BTH.size] + payload[end:]

    def ack(self, payload: bytes) -> bytes:
        """``payload`` (an ACK/NAK) with the last INT header echoed before its ICRC."""
        return payload[:-_ICRC] + self._echo + payload[-_ICRC:]
