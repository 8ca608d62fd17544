"""The units of work a pipeline hands the traffic manager: one pipeline pass each.

``run_work`` (every architecture) takes one of these and returns the work it makes:

* :class:`IngressWork`, a packet entering ingress: one that arrived on a port, or one a
  pipeline resubmitted or recirculated (with what it carries over);
* :class:`EgressWork`, a packet bound for an egress port. The network layer queues it on
  that port (``dataplane.net.devices``) and runs its egress pass when it leaves the queue;
  alone, a switch runs it at once.

Plain classes with ``__slots__`` rather than tuples so each part has a name, and rather
than ``record`` data classes because one is made per packet: the explicit ``__init__``
keeps the cost at a tuple's order on CPython and PyPy (``tools/bench_pps.py``,
``tools/bench_sim.py``).
"""
from __future__ import annotations

from typing import Any

from dataplane.engine.decision.frame import UNJOINED_MIN, Frame

__all__ = ["IngressWork", "EgressWork", "CachedEgress", "Frame", "UNJOINED_MIN"]


class IngressWork:
    """A packet entering ingress on ``port`` with ``data``.

    ``instance_type``: the architecture's numbering (v1model's instance_type, PSA's
    packet path); ``carried``: what a resubmitted or recirculated packet keeps (v1model's
    ``@field_list`` values, PSA's headers), None for a fresh packet; ``depth``: passes
    made so far (resubmits, recirculations), bounded by each architecture.
    """

    __slots__ = ("port", "data", "instance_type", "carried", "depth")

    def __init__(self, port: int, data: Any, instance_type: int = 0, carried: Any = None, depth: int = 0):
        self.port = port
        self.data = data
        self.instance_type = instance_type
        self.carried = carried
        self.depth = depth

    def __repr__(self) -> str:
        return f"IngressWork(port={self.port}, {len(self.data)} bytes, instance_type={self.instance_type}, " \
               f"depth={self.depth})"


class EgressWork:
    """A packet bound for egress ``port``.

    ``hdr``, ``meta``: the headers and user metadata egress starts with (PSA: ``hdr`` holds
    what its storage carries from ingress, ``meta`` is None); ``sm``: v1model's
    ``standard_metadata`` (PSA: the packet's context, which holds ``ingress_port`` and
    ``class_of_service`` as standard_metadata holds ``ingress_port`` and ``priority``);
    ``ctx``: the packet context (its ``packet_length`` is what the queue counts);
    ``instance_type``: v1model's instance type, PSA's packet path; ``depth``: passes so far.

    The traffic manager fills the rest while the packet is queued: ``qid`` (the egress
    queue, 0 with one queue per port) and, with PFC, ``pfc_key`` and ``pfc_bytes`` (ingress
    port x 8 + priority, -1 if not accounted, and the bytes accounted to it, released when it
    leaves the queue).
    """

    __slots__ = ("port", "hdr", "meta", "sm", "ctx", "instance_type", "depth", "qid", "pfc_key", "pfc_bytes")
    pfc_key: int
    pfc_bytes: int

    def __init__(self, port: int, hdr: Any, meta: Any, sm: Any, ctx: Any, instance_type: int, depth: int):
        self.port = port
        self.hdr = hdr
        self.meta = meta
        self.sm = sm
        self.ctx = ctx
        self.instance_type = instance_type
        self.depth = depth
        self.qid = 0

    def __repr__(self) -> str:
        return f"EgressWork(port={self.port}, qid={self.qid}, instance_type={self.instance_type}, depth={self.depth})"


class CachedEgress:
    """A packet bound for egress ``port`` whose fate the switch's decision cache knew
    (``dataplane.arch.v1model_decisions``): ``out``, the bytes egress leaves it with (None: egress
    drops it, for ``drop``'s reason), worked out when it entered. It queues as an ``EgressWork``
    does: the traffic manager reads its ``ctx.packet_length`` and ``sm.ingress_port`` /
    ``sm.priority`` (both views are the item itself) and fills ``qid``, ``pfc_key`` and ``pfc_bytes``.

    ``data``, ``decision``, ``owner`` (the cache), ``epoch`` (its egress tables' edits then) and
    ``now_us`` let the switch run egress for real instead (``owner.egress_work``) when an egress
    table changed while the packet waited.
    """

    __slots__ = ("port", "out", "drop", "data", "decision", "owner", "epoch", "now_us", "packet_length",
                 "ingress_port", "priority", "qid", "pfc_key", "pfc_bytes")
    pfc_key: int
    pfc_bytes: int

    def __init__(self, port: int, out: Any, drop: str | None, data: Any, decision: Any, owner: Any,
                 epoch: int, now_us: int, ingress_port: int, priority: int):
        self.port = port
        self.out = out
        self.drop = drop
        self.data = data
        self.decision = decision
        self.owner = owner
        self.epoch = epoch
        self.now_us = now_us
        self.packet_length = len(data) if data.__class__ is not Frame else len(data.base)  # type: ignore[attr-defined]
        self.ingress_port = ingress_port
        self.priority = priority
        self.qid = 0

    @property
    def ctx(self) -> "CachedEgress":
        return self

    @property
    def sm(self) -> "CachedEgress":
        return self

    def __repr__(self) -> str:
        return f"CachedEgress(port={self.port}, {self.packet_length} bytes, qid={self.qid})"
