"""One rank carrying out its part of a plan: ``PlanRun``.

Sends wait for their dependencies and, on one connection, for the sends before them; each
leaves as one message on that connection's queue pair (``dataplane.net.rdma``), read from the
rank's buffer when it leaves. Receives are matched to arriving messages in order per
connection and reduced (summed) or copied into the buffer. The run is done when every send has
been acknowledged and every receive has arrived; ``on_done(run)`` follows.

Buffers are numpy arrays (``BUF`` and ``OUT``; float32) when the plan moves real data, or
None: then messages carry zeros and only their sizes count.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Callable, Sequence

import numpy as np

from dataplane.net.collectives.plan import Op

__all__ = ["PlanRun"]

Key = tuple[int, int]          # (peer, channel)


class PlanRun:
    """The ops of one rank for one collective (module docstring); ``crank`` is its ``CommRank``."""

    def __init__(self, crank: Any, ops: Sequence[Op], elem_bytes: int, buffers: list[Any] | None,
                 on_done: Callable[["PlanRun"], None], label: str = ""):
        self.crank, self.ops, self.elem_bytes = crank, ops, elem_bytes
        self.buffers, self.on_done, self.label = buffers, on_done, label
        self.missing = [len(op.deps) for op in ops]
        self.waiters: list[list[int]] = [[] for _ in ops]
        self.sends: dict[Key, deque[int]] = {}
        self.recvs: dict[Key, deque[int]] = {}
        for i, op in enumerate(ops):
            for d in op.deps:
                self.waiters[d].append(i)
            (self.sends if op.send else self.recvs).setdefault((op.peer, op.channel), deque()).append(i)
        self.remaining = len(ops)
        self.start_ns: int | None = None
        self.end_ns: int | None = None
        self.bytes_sent = self.bytes_received = 0

    def start(self) -> None:
        self.start_ns = self.crank.sim.now
        for key in list(self.sends):
            self._pump(key)
        self.crank.drain_inbox(self)
        if not self.remaining and self.end_ns is None:
            self._finish()

    def wants(self, key: Key) -> bool:
        q = self.recvs.get(key)
        return bool(q)

    def deliver(self, key: Key, data: Any, nbytes: int) -> None:
        """The next message from ``key``'s connection: the receive it matches is done."""
        i = self.recvs[key].popleft()
        op = self.ops[i]
        if nbytes != op.count * self.elem_bytes:
            raise RuntimeError(f"rank {self.crank.rank} expected {op.count * self.elem_bytes} bytes from rank "
                               f"{key[0]} on channel {key[1]}, got {nbytes} (plans of different collectives?)")
        self.bytes_received += nbytes
        if self.buffers is not None and data is not None and op.count:
            values = np.frombuffer(data, dtype=self.buffers[op.buf].dtype)
            target = self.buffers[op.buf][op.offset:op.offset + op.count]
            if op.reduce:
                target += values
            else:
                target[:] = values
        self._done(i)

    def _pump(self, key: Key) -> None:
        q = self.sends[key]
        missing = self.missing
        while q and not missing[q[0]]:
            self._issue(q.popleft())

    def _issue(self, i: int) -> None:
        op = self.ops[i]
        nbytes = op.count * self.elem_bytes
        data = None
        if self.buffers is not None:
            data = self.buffers[op.buf][op.offset:op.offset + op.count].tobytes()
        self.bytes_sent += nbytes
        self.crank.qp(op.peer, op.channel).post_send(nbytes, data, lambda _t, i=i: self._done(i))

    def _done(self, i: int) -> None:
        self.remaining -= 1
        ops, missing = self.ops, self.missing
        for w in self.waiters[i]:
            missing[w] -= 1
            if not missing[w]:
                op = ops[w]
                self._pump((op.peer, op.channel))
        if not self.remaining and self.start_ns is not None and self.end_ns is None:
            self._finish()

    def _finish(self) -> None:
        self.end_ns = self.crank.sim.now
        self.on_done(self)
