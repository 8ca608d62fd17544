"""A reliable RDMA-style transport on the hosts: queue pairs that move messages.

What an RDMA NIC's reliable connection (RC) does, on RoCEv2 packets (UDP port 4791, shared
with the DCQCN apps through ``dataplane.net.apps.dcqcn_wire.RoceEndpoint``):

* ``wire``: the packets: SEND First/Middle/Last/Only with a 24-bit PSN, ACK and NAK
  (sequence error) with an AETH, and the CNP of DCQCN;
* ``config``: ``TransportConfig``, a queue pair's settings (checked when made), and
  ``QpStats``, its counters;
* ``qp``: ``QueuePair``, one end of a connection: messages posted with ``post_send`` leave
  segmented into path-MTU packets and complete when acknowledged; the responder accepts packets
  in PSN order only, acknowledges them (coalesced), NAKs the first gap, and hands each whole
  message to ``on_message``; the requester goes back to the NAKed PSN (go-back-N, as RoCE NICs
  do) or to the oldest unacknowledged one after ``rto_ns`` without progress; with DCQCN
  (``dataplane.net.apps.dcqcn_rate``) its reaction point paces the packets and the responder
  answers CE marks with CNPs;
* ``sack``: selective repeat instead (``receiver="sack"``): a reorder window, SACK bitmaps,
  only holes resent, D-SACK doubling the reorder time;
* ``entropy``: REPS-style spraying from the host: an entropy (UDP source port) per packet,
  echoed with its CE mark in the selective ACK and reused while unmarked;
* ``nic``: ``RdmaNic``, the NIC of one host: it owns the host's queue pairs and sends for
  them when the wire can take a frame (``Host.set_tx_puller``), acknowledgements first, then
  one packet per active queue pair in turn; paused by PFC, it simply stops;
* ``hpcc``, ``hpcc_qp``, ``hpcc_flow``: HPCC instead of DCQCN (``TransportConfig(hpcc=...)``):
  data carries an INT header that ``programs/hpcc.p4`` switches fill hop by hop, ACKs echo it,
  and the requester's window and rate follow HPCC's Algorithm 1.

The collectives (``dataplane.net.collectives``) run over it.
"""
from __future__ import annotations

from dataplane.net.rdma.config import QpStats, TransportConfig
from dataplane.net.rdma.nic import RdmaNic
from dataplane.net.rdma.qp import QueuePair

__all__ = ["RdmaNic", "QueuePair", "QpStats", "TransportConfig"]
