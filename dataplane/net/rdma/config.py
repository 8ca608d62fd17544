"""A queue pair's settings (``TransportConfig``, checked when made) and its counters (``QpStats``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dataplane.net.apps.dcqcn_rate import DcqcnParams

__all__ = ["TransportConfig", "QpStats", "RECEIVERS", "WINDOW_COUNTS"]

RECEIVERS = ("gbn", "sack")
#: what ``window`` bounds: the PSN span from the oldest unacknowledged packet (IRN's BDP-FC),
#: or the packets neither cumulatively nor selectively acknowledged (RFC 6675's pipe)
WINDOW_COUNTS = ("span", "pipe")


@dataclass(frozen=True)
class TransportConfig:
    """How queue pairs behave. ``mtu`` is the path MTU of the payload (RoCE's 256..4096);
    ``dcqcn`` turns on DCQCN (ECT packets, CNPs, paced rate) with these parameters;
    ``window`` bounds the packets in flight per queue pair (None: no bound, as RoCE NICs);
    ``dscp`` is the traffic class of data, ``ack_dscp`` that of ACKs and NAKs (None: ``dscp``;
    a class the switches serve first keeps the ACK clock off the data's queues); ``receiver`` is ``gbn``
    (go-back-N, in-order only, as RoCE NICs) or ``sack`` (selective repeat, ``rdma.sack``), which
    holds up to ``reorder_window`` packets past a missing one and resends a hole once it is
    ``reorder_ns`` old (doubled, up to ``rto_ns``, each time a resend proves spurious).
    ``window_counts`` says what ``window`` bounds: ``span``, every PSN from the oldest
    unacknowledged one on (one packet held on a slow path holds the whole window), or ``pipe``
    (sack only), the packets sent and acknowledged neither cumulatively nor selectively, with
    the span kept under ``reorder_window`` so that nothing is sent the responder would drop."""

    mtu: int = 4096
    ack_every: int = 16
    rto_ns: int = 1_000_000
    window: int | None = None
    dcqcn: DcqcnParams | None = None
    dscp: int = 0
    receiver: str = "gbn"
    reorder_window: int = 1024
    reorder_ns: int = 250_000
    hpcc: Any = None                 # HpccParams: HPCC instead of DCQCN (dataplane.net.rdma.hpcc_qp)
    entropy: Any = None              # EntropyParams: an entropy per packet, recycled (dataplane.net.rdma.entropy)
    window_counts: str = "span"
    ack_dscp: int | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.mtu <= 9000:
            raise ValueError(f"mtu must be in 1..9000 bytes, got {self.mtu}")
        if self.ack_every < 1:
            raise ValueError(f"ack_every must be at least 1, got {self.ack_every}")
        if self.rto_ns < 1:
            raise ValueError(f"rto_ns must be positive, got {self.rto_ns}")
        if self.window is not None and self.window < 1:
            raise ValueError(f"window must be at least 1 packet, got {self.window}")
        if not 0 <= self.dscp <= 63:
            raise ValueError(f"dscp must be in 0..63, got {self.dscp}")
        if self.ack_dscp is not None and not 0 <= self.ack_dscp <= 63:
            raise ValueError(f"ack_dscp must be in 0..63, got {self.ack_dscp}")
        if self.receiver not in RECEIVERS:
            raise ValueError(f"receiver must be one of {', '.join(RECEIVERS)}, got {self.receiver!r}")
        if not 2 <= self.reorder_window <= 65536:
            raise ValueError(f"reorder_window must be in 2..65536 packets, got {self.reorder_window}")
        if self.reorder_ns < 1:
            raise ValueError(f"reorder_ns must be positive, got {self.reorder_ns}")
        if self.window_counts not in WINDOW_COUNTS:
            raise ValueError(f"window_counts must be one of {', '.join(WINDOW_COUNTS)}, got {self.window_counts!r}")
        if self.window_counts == "pipe" and self.receiver != "sack":
            # only the selective sender knows which packets past a hole arrived
            raise ValueError("window_counts pipe needs the selective receiver (receiver: sack)")
        if self.hpcc is not None and (self.dcqcn is not None or self.hpcc.base_rtt_ns is None):
            raise ValueError("hpcc needs its base_rtt_ns, and excludes dcqcn")
        if self.hpcc is not None and self.receiver != "gbn":
            # HPCC's records ride behind the ACK where the selective receiver puts its blocks
            raise ValueError("hpcc runs with the go-back-N receiver (receiver: gbn) only")
        if self.entropy is not None and self.receiver != "sack":
            # its echo rides in the selective ACK, and spraying reorders
            raise ValueError("entropy spraying runs with the selective receiver (receiver: sack) only")


@dataclass
class QpStats:
    """Counters of one queue pair (both roles)."""

    packets_sent: int = 0
    bytes_sent: int = 0              # message bytes in data packets, retransmissions included
    retransmitted: int = 0           # data packets sent again
    timeouts: int = 0
    naks_received: int = 0
    messages_sent: int = 0           # completed (acknowledged)
    packets_received: int = 0        # accepted in order
    bytes_received: int = 0
    messages_received: int = 0
    out_of_sequence: int = 0         # dropped past a gap (go-back-N)
    reordered: int = 0               # held past a gap, accepted later (sack)
    out_of_window: int = 0           # dropped past the reorder window (sack)
    duplicates: int = 0              # arrived again (a resend of what had arrived: spurious in a lossless fabric)
    acks_sent: int = 0
    naks_sent: int = 0
    cnps_sent: int = 0
    cnps_received: int = 0
    ce_marked: int = 0
