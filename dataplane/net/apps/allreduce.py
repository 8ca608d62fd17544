"""Allreduce apps for hosts: in-network aggregation (``InaWorker``, for ``programs/allreduce.p4``)
and the host-only ring baseline (``RingWorker``).

Both move K int32/float32 elements per packet behind the same 12-byte header, so on the same
links their frames are the same size and the comparison is about bytes on the wire, not framing.

Quantisation (``quantise``/``dequantise``): float32 -> int32 fixed point, ``q = rint(x * scale)``
with ``scale = (2^31 - 1 - n) / (n * max_abs)``, so a sum of n quantised values stays inside
int32 (each |q| <= max_abs * scale + 1/2). ``max_abs`` must bound |x| on every worker (in a real
system one max-allreduce of a scalar first; the scenario passes the global value). The error
of the dequantised sum against the exact sum is at most n / (2 * scale) (``quantisation_bound``)
plus float32 rounding of the result.

Wire format (UDP port 0xBEE0 both ways, see allreduce.p4)::

    job(8) flags(8) slot(16) worker(8) count(8) reserved(16) offset(32) | K x int32 (big-endian)
"""
from __future__ import annotations

import struct
from collections import deque
from typing import Callable

import numpy as np

from dataplane.net.apps.allreduce_vectors import BLOCK, ArrayVectors, WorkerVector
from dataplane.net.core.timeouts import Timeouts
from dataplane.net.devices.link import wire_bytes
from dataplane.net.hosts.host import Host

AR_PORT = 0xBEE0
RING_PORT = 0xBEE1
HDR = struct.Struct("!BBHBBHI")       # 12 bytes
FLAG_RESULT, FLAG_SATURATED, FLAG_RETX_REPLY = 0x01, 0x02, 0x04
INT32_MAX = 2**31 - 1
FRAME_OVERHEAD = 14 + 20 + 8          # Ethernet + IPv4 + UDP


def make_scale(n_workers: int, max_abs: float) -> float:
    """Fixed-point scale so that n quantised values of magnitude <= max_abs sum inside int32."""
    max_abs = float(max_abs) if max_abs > 0 else 1.0
    return (INT32_MAX - n_workers) / (n_workers * max_abs)


def quantise(x: np.ndarray, scale: float) -> np.ndarray:
    return np.rint(np.asarray(x, dtype=np.float64) * scale).astype(np.int32)


def dequantise(q: np.ndarray, scale: float) -> np.ndarray:
    return (np.asarray(q, dtype=np.float64) / scale).astype(np.float32)


def quantisation_bound(n_workers: int, scale: float, max_sum: float = 0.0) -> float:
    """Largest |dequantised sum - exact sum|: n half-steps of rounding plus float32 rounding."""
    return n_workers * 0.5 / scale + abs(max_sum) * 2.0**-23


def frame_bytes(k: int) -> int:
    return FRAME_OVERHEAD + HDR.size + 4 * k


class InaWorker:
    """One worker of a SwitchML-style in-network allreduce.

    The vector is cut into chunks of K elements; chunk c uses pool slot ``c % window`` (so all
    workers agree), the slot's two copies alternate (pool index = slot * 2 + set). A worker
    sends ``window`` chunks, then reuses a slot only when that slot's result arrived (the
    self-clocking of SwitchML). A chunk with no result after ``timeout_ns`` is sent again
    (same slot, same set); the switch either counts it (the first copy was lost) or answers
    with the stored result (the result was lost). ``on_done(worker)`` runs at completion.

    ``data`` is an array or a ``WorkerVector`` (made block by block). The worker holds only the
    blocks it is sending from (``allreduce_vectors``); given ``expected`` (the exact sum), it checks
    each block's result as the block completes (``max_abs_error``). ``keep_result=True`` keeps
    the whole result for ``result()``.

    ``shared_timeouts`` (on by default): the retransmission timeouts wait in the event heap one
    at a time (``dataplane.net.core.timeouts``); off, each is a ``Host.timer`` of its own. The run
    is the same either way, event for event.
    """

    shared_timeouts = True

    def __init__(self, host: Host, worker_id: int, n_workers: int, data: np.ndarray | WorkerVector, scale: float,
                 switch_ip: int | str, k: int = 32, window: int = 128, timeout_ns: int = 100_000,
                 job: int = 1, start_ns: int = 0, on_done: Callable[["InaWorker"], None] | None = None,
                 expected: np.ndarray | None = None, keep_result: bool = False):
        self.host, self.sim = host, host.sim
        self.worker_id, self.n, self.k, self.job = worker_id, n_workers, k, job
        self.scale, self.switch_ip = scale, switch_ip
        if BLOCK % k:
            raise ValueError(f"K = {k} does not divide the {BLOCK}-element block")
        self.data = data if isinstance(data, WorkerVector) else ArrayVectors([data]).of(0)
        self.size = self.data.size
        self.chunks = -(-self.size // k)
        self._per_block = BLOCK // k
        # Blocks in use (see allreduce_vectors): quantised payload bytes, results so far, results
        # still missing. A block is dropped once all its results are in (none can be resent).
        self._payload: dict[int, bytes] = {}
        # Results so far, by block: the K big-endian int32 of each chunk's result where it goes,
        # copied from the packet as they are (numpy once a block, not once a packet: on PyPy
        # a numpy call per packet was an eighth of the run).
        self._result: dict[int, bytearray] = {}
        self._missing: dict[int, int] = {}
        self.expected = expected                 # the exact sum: each finished block is checked
        self.max_abs_error = 0.0
        self._kept: dict[int, np.ndarray] | None = {} if keep_result else None   # by block
        self.window = max(1, min(window, self.chunks))
        self.timeout_ns = timeout_ns
        self.on_done = on_done
        self._slot_chunk: list[int] = [-1] * self.window     # chunk outstanding in each slot
        self._slot_set: list[int] = [1] * self.window        # flipped before each use
        self._timers: list = [None] * self.window
        # One timeout a chunk sent, nearly all cancelled by the result: only the earliest still
        # set waits in the event heap (core.timeouts), the run event for event the same.
        self._timeouts = (Timeouts(self.sim, timeout_ns, self._timeout, host.actor) if self.shared_timeouts
                          else None)
        self.received = 0
        self.retransmissions = 0
        self.saturated = False
        self.start_ns = start_ns
        self.done_ns: int | None = None
        host.bind_udp(AR_PORT, self._on_result)
        self.sim.at(start_ns, self._start)

    def _open_block(self, b: int) -> bytes:
        """Quantise block ``b`` (padded to whole chunks) into big-endian payload bytes."""
        x = self.data.block(b)
        n = min(BLOCK, (self.chunks - b * self._per_block) * self.k)
        q = np.zeros(n, dtype=">i4")
        q[:len(x)] = quantise(x, self.scale)
        self._payload[b] = raw = q.tobytes()
        self._result[b] = bytearray(4 * n)
        self._missing[b] = n // self.k
        return raw

    def _close_block(self, b: int) -> None:
        """All of block ``b``'s results are in: check them against the exact sum and let it go."""
        del self._payload[b], self._missing[b]
        got = np.frombuffer(self._result.pop(b), dtype=">i4").astype(np.int32)
        lo = b * BLOCK
        n = min(len(got), self.size - lo)
        if self.expected is not None and n > 0:
            back = dequantise(got[:n], self.scale).astype(np.float64)
            err = float(np.max(np.abs(back - self.expected[lo:lo + n])))
            if err > self.max_abs_error:
                self.max_abs_error = err
        if self._kept is not None:
            self._kept[b] = got[:n]

    def _start(self) -> None:
        for slot in range(self.window):
            self._use_slot(slot, slot)

    def _use_slot(self, slot: int, chunk: int) -> None:
        self._slot_chunk[slot] = chunk
        self._slot_set[slot] ^= 1
        self._send(slot)

    def _send(self, slot: int) -> None:
        chunk = self._slot_chunk[slot]
        pool = slot * 2 + self._slot_set[slot]
        b, off = divmod(chunk, self._per_block)
        raw = self._payload.get(b) or self._open_block(b)
        off *= 4 * self.k
        msg = HDR.pack(self.job, 0, pool, self.worker_id, 0, 0, chunk) + raw[off:off + 4 * self.k]
        self.host.send_udp(self.switch_ip, AR_PORT, AR_PORT, msg)
        if self._timeouts is not None:
            self._timers[slot] = self._timeouts.set(slot, chunk)
        else:
            self._timers[slot] = self.host.timer(self.timeout_ns, self._timeout, slot, chunk)

    def _timeout(self, slot: int, chunk: int) -> None:
        if self._slot_chunk[slot] != chunk:
            return
        self.retransmissions += 1
        self._send(slot)

    def _on_result(self, src_ip: int, src_port: int, payload: bytes, tos: int, now: int) -> None:
        job, flags, pool, _w, _count, _r, chunk = HDR.unpack_from(payload)
        if job != self.job or not flags & FLAG_RESULT:
            return
        slot, which = pool >> 1, pool & 1
        if slot >= self.window or self._slot_chunk[slot] != chunk or self._slot_set[slot] != which:
            return                                          # a stale or duplicate result
        b, off = divmod(chunk, self._per_block)
        size = 4 * self.k
        values = payload[HDR.size:HDR.size + size]
        if len(values) != size:
            raise ValueError(f"a result of {len(values) // 4} values, not K = {self.k}")
        off *= size
        self._result[b][off:off + size] = values
        self._missing[b] -= 1
        if not self._missing[b]:
            self._close_block(b)
        if flags & FLAG_SATURATED:
            self.saturated = True
        t = self._timers[slot]
        if t is not None:
            t.cancel()
        self.received += 1
        nxt = chunk + self.window
        if nxt < self.chunks:
            self._use_slot(slot, nxt)
        else:
            self._slot_chunk[slot] = -1
            if self.received == self.chunks:
                self.done_ns = now
                if self.on_done is not None:
                    self.on_done(self)

    def result(self) -> np.ndarray:
        """The dequantised sum; only for a worker made with ``keep_result=True``, once done."""
        if self._kept is None:
            raise ValueError("this worker checked its result block by block and kept none (keep_result=False)")
        if not self._kept:
            return np.zeros(0, dtype=np.float32)
        return dequantise(np.concatenate([self._kept[b] for b in sorted(self._kept)]), self.scale)


class RingWorker:
    """One rank of a pipelined ring allreduce (reduce-scatter, then all-gather) in float32.

    The vector is cut into n segments, each into packets of K elements. In step s (0..2n-3)
    rank r sends segment (r - s) mod n (reduce-scatter, s < n-1) or (r + 1 - (s - n + 1)) mod n
    (all-gather) to rank r+1. A packet of step s arriving from rank r-1 is added to the local
    copy (reduce-scatter) or stored (all-gather) and, unless s is the last step, forwarded at
    once as step s+1: the pipeline runs at packet granularity. Sends are paced at the link
    rate so the host queue never overflows. Needs lossless links (no retransmission).

    Held as lean as ``InaWorker``: a packet's own elements are read when it is sent (step 0)
    or arrives (reduce-scatter), from the few blocks in use of ``data`` (an array or a
    ``WorkerVector``, made block by block: ``allreduce_vectors``); the sum is forwarded, not
    kept. Final values (the last reduce-scatter step's sum, and all-gather) fill their block,
    which, once whole, is checked against ``exact`` (``max_abs_error``) and let go, or kept for
    ``result()`` with ``keep_result`` (the default for an array, as before).
    """

    _BLOCKS_IN_USE = 4      # step 0 reads one segment while arrivals read the next

    def __init__(self, host: Host, rank: int, n_workers: int, data: np.ndarray | WorkerVector, next_ip: int | str,
                 link_bps: int, k: int = 32, start_ns: int = 0,
                 on_done: Callable[["RingWorker"], None] | None = None,
                 exact: np.ndarray | None = None, keep_result: bool | None = None):
        self.host, self.sim = host, host.sim
        self.rank, self.n, self.k, self.next_ip = rank, n_workers, k, next_ip
        if BLOCK % k:
            raise ValueError(f"K = {k} does not divide the {BLOCK}-element block")
        if keep_result is None:
            keep_result = not isinstance(data, WorkerVector)
        self.data = data if isinstance(data, WorkerVector) else ArrayVectors([data]).of(0)
        self.size = self.data.size
        n = n_workers
        self.seg_pkts = max(1, -(-self.size // (n * k)))          # packets per segment
        self._chunks = n * self.seg_pkts                           # K-element chunks, padding included
        self._per_block = BLOCK // k
        self._own: dict[int, np.ndarray] = {}                      # blocks of data in use (padded to BLOCK)
        blocks = -(-self._chunks // self._per_block)
        self._final: list[np.ndarray | None] = [None] * blocks     # by block: final values so far
        self._missing = [min(self._per_block, self._chunks - b * self._per_block) for b in range(blocks)]
        self.exact = exact
        self.max_abs_error = 0.0
        self._kept: dict[int, np.ndarray] | None = {} if keep_result else None
        self.expected = (2 * n - 2) * self.seg_pkts               # packets to receive
        self.got = 0
        self.retransmissions = 0
        link = host.port.link if host.port is not None else None
        wire = link.wire_bytes(frame_bytes(k)) if link is not None else wire_bytes(frame_bytes(k))
        self.tick_ns = (wire * 8 * 1_000_000_000) // link_bps    # a frame's line time, overhead included
        self._q: deque[bytes | int] = deque()                     # an int j: step 0's packet j, made when sent
        self._pumping = False
        self.on_done = on_done
        self.start_ns = start_ns
        self.done_ns: int | None = None
        host.bind_udp(RING_PORT, self._on_packet)
        self.sim.at(start_ns, self._start)

    def _mine(self, chunk: int) -> np.ndarray:
        """This worker's K elements of ``chunk`` (zeros past the end of the vector)."""
        b, off = divmod(chunk, self._per_block)
        x = self._own.get(b)
        if x is None:
            if len(self._own) >= self._BLOCKS_IN_USE:
                del self._own[next(iter(self._own))]               # the oldest
            x = np.zeros(BLOCK, dtype=np.float32)
            if b * BLOCK < self.size:
                got = self.data.block(b)
                x[:len(got)] = got
            self._own[b] = x
        off *= self.k
        return x[off:off + self.k]

    def _msg(self, step: int, seg: int, j: int, values: np.ndarray) -> bytes:
        return HDR.pack(0, step, seg, self.rank, 0, 0, j) + values.astype(">f4").tobytes()

    def _start(self) -> None:
        if self.n == 1:
            for chunk in range(self._chunks):
                self._done_chunk(chunk, self._mine(chunk))
            self._finish(self.sim.now)
            return
        self._q.extend(range(self.seg_pkts))
        self._pump()

    def _pump(self) -> None:
        if not self._q:
            self._pumping = False
            return
        self._pumping = True
        item = self._q.popleft()
        if type(item) is int:
            item = self._msg(0, self.rank, item, self._mine(self.rank * self.seg_pkts + item))
        self.host.send_udp(self.next_ip, RING_PORT, RING_PORT, item)
        self.host.timer(self.tick_ns, self._pump)

    def _on_packet(self, src_ip: int, src_port: int, payload: bytes, tos: int, now: int) -> None:
        _job, step, seg, _w, _c, _r, j = HDR.unpack_from(payload)
        vals = np.frombuffer(payload, dtype=">f4", count=self.k, offset=HDR.size)
        chunk = seg * self.seg_pkts + j
        if step < self.n - 1:
            vals = self._mine(chunk) + vals                       # reduce-scatter: accumulate
            if step == self.n - 2:
                self._done_chunk(chunk, vals)                     # the last addition: the sum
        else:
            self._done_chunk(chunk, vals)                         # all-gather: final values
        self.got += 1
        if step < 2 * self.n - 3:
            self._q.append(self._msg(step + 1, seg, j, vals))
            if not self._pumping:
                self._pump()
        if self.got == self.expected:
            self._finish(now)

    def _done_chunk(self, chunk: int, values: np.ndarray) -> None:
        """``values`` are ``chunk``'s result: into its block, checked and let go once it is whole."""
        b, off = divmod(chunk, self._per_block)
        final = self._final[b]
        if final is None:
            final = self._final[b] = np.zeros(self._missing[b] * self.k, dtype=np.float32)
        off *= self.k
        final[off:off + self.k] = values
        left = self._missing[b] = self._missing[b] - 1
        if left:
            return
        self._final[b] = None
        lo = b * BLOCK
        n = max(0, min(len(final), self.size - lo))
        if self.exact is not None and n > 0:
            err = float(np.max(np.abs(final[:n].astype(np.float64) - self.exact[lo:lo + n])))
            if err > self.max_abs_error:
                self.max_abs_error = err
        if self._kept is not None:
            self._kept[b] = final[:n]

    def _finish(self, now: int) -> None:
        self.done_ns = now
        if self.on_done is not None:
            self.on_done(self)

    def result(self) -> np.ndarray:
        """The allreduced vector; only for a worker that keeps it (``keep_result``), once done."""
        if self._kept is None:
            raise ValueError("this worker checked its result block by block and kept none (keep_result=False)")
        if not self._kept:
            return np.zeros(0, dtype=np.float32)
        return np.concatenate([self._kept[b] for b in sorted(self._kept)])
