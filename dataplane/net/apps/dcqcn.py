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

The parts live in modules by job, all re-exported here: ``dcqcn_wire`` (RoCEv2 packet
layouts and the per-host ``RoceEndpoint`` on UDP port 4791), ``dcqcn_rate`` (``DcqcnParams`` and
the arithmetic, ``DcqcnRateControl``), ``dcqcn_rp`` (the reaction point, ``DcqcnSender``) and
``dcqcn_np`` (the notification point, ``DcqcnReceiver``); ``dcqcn_profiles`` names parameter
sets from the literature.
"""
from __future__ import annotations

from dataplane.net.apps.dcqcn_np import DcqcnReceiver, RoceFlowStats
from dataplane.net.apps.dcqcn_rate import DcqcnParams, DcqcnRateControl
from dataplane.net.apps.dcqcn_rp import DcqcnSender
from dataplane.net.apps.dcqcn_wire import (
    CNP_TOS,
    OP_CNP,
    OP_SEND_ONLY,
    ROCE_PORT,
    RoceEndpoint,
    cnp_payload,
    data_frame_len,
    parse_bth,
)

__all__ = ["ROCE_PORT", "OP_SEND_ONLY", "OP_CNP", "CNP_TOS", "DcqcnParams", "DcqcnRateControl", "RoceEndpoint",
           "DcqcnSender", "DcqcnReceiver", "RoceFlowStats", "data_frame_len", "cnp_payload", "parse_bth"]
