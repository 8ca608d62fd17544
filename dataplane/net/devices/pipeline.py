"""The cost of running a program on packets: one FIFO server with a packet rate, a throughput
ceiling, a latency and a bounded queue. DPUs (``dpu_node``) and hosts running an eBPF/XDP
program on their NIC (``hosts.xdp_host``) book their packets here.

* a packet occupies the server for ``max(1 / packet_rate, bits / rate)`` (``bits`` is the
  frame as links count it: Ethernet header to payload, no preamble or gap);
* packets that find it busy wait in a bounded FIFO in front of it (``queue``, packets or
  bytes, not counting the one in service); one that finds it full is refused;
* the program's outputs are due ``latency`` after the packet's slot ends: transit = wait +
  slot + latency.

Because the server is FIFO with known service times, a packet's start and end are fixed
when it arrives, so the owner needs one simulator event per packet (its output). Times are
kept exactly in units of ``1/Q`` ns (``Q`` from the rates, reduced by their gcd), so a
150 Mpps pipeline's 6.67 ns slots never drift; only the output time is rounded up to a whole
nanosecond.
"""
from __future__ import annotations

from collections import deque
from math import gcd


class FifoPipeline:
    """The server above. ``admit`` books a packet; ``stop`` loses what waits (a failed device).
    ``name`` (``DPU 'd1'``) starts the messages of its errors."""

    def __init__(self, name: str, rate_bps: int, packet_rate_pps: int, latency_ns: int, queue: tuple[int, str]):
        if packet_rate_pps <= 0 or rate_bps <= 0:
            raise ValueError(f"{name}: packet rate and rate must be positive")
        self.name = name
        # One slot is max(1e9/pps, bits*1e9/bps) ns = max(A, bits*B) / Q ns.
        g = gcd(10**9 * rate_bps, 10**9 * packet_rate_pps, packet_rate_pps * rate_bps)
        self._a = 10**9 * rate_bps // g
        self._b = 10**9 * packet_rate_pps // g
        self._q = packet_rate_pps * rate_bps // g
        self.latency_ns = latency_ns
        self._capacity, kind = queue
        self._count_bytes = kind == "bytes"
        self._free_q = 0           # when the server is next free (units of 1/Q ns)
        self._busy_q = 0           # server time booked so far, including slots not yet over
        self._waiting: deque = deque()   # (start_q, size) of accepted packets not yet in service
        self._waiting_bytes = 0
        self.epoch = 0             # bumped by stop(); outputs of older packets are lost
        self._booked_ns = 0        # when the last slot was booked (an arrival) or given back (stop)
        self.max_queue = 0         # most packets waiting at once

    def admit(self, now: int, size: int) -> int | None:
        """Book a ``size``-byte packet arriving at ``now`` ns: the ns at which its outputs are
        due, or None if the queue in front of the server is full."""
        self._booked_ns = now
        now_q = now * self._q
        waiting = self._waiting
        while waiting and waiting[0][0] <= now_q:     # these have entered service by now
            self._waiting_bytes -= waiting.popleft()[1]
        free = self._free_q
        if free > now_q:
            if self._count_bytes:
                full = self._waiting_bytes + size > self._capacity
            else:
                full = len(waiting) >= self._capacity
            if full:
                return None
            start = free
            waiting.append((start, size))
            self._waiting_bytes += size
            if len(waiting) > self.max_queue:
                self.max_queue = len(waiting)
        else:
            start = now_q
        slot = size * 8 * self._b
        if slot < self._a:
            slot = self._a
        end = start + slot
        self._free_q = end
        self._busy_q += slot
        return -(-end // self._q) + self.latency_ns

    def stop(self, now: int) -> None:
        """The device failed at ``now``: what waits and the packet in service are lost; the slots
        it will not serve are not busy time."""
        now_q = now * self._q
        if self._free_q > now_q:
            self._busy_q -= self._free_q - now_q
            self._free_q = now_q
        self._waiting.clear()
        self._waiting_bytes = 0
        self.epoch += 1
        self._booked_ns = now

    def busy_ns(self, now: int) -> float:
        """Time the server has spent busy from 0 to ``now`` ns.

        ``now`` may lie ahead of the clock (slots already booked count as they will run) but
        not before the last arrival: the past is not kept, only the total and the backlog.
        """
        if now < self._booked_ns:
            raise ValueError(f"{self.name}: busy time is known from {self._booked_ns} ns on, not at {now} ns")
        # Everything booked beyond now is one gapless run up to _free_q (the FIFO starts each
        # waiting packet the moment the one before ends), so it is exactly free - now.
        return (self._busy_q - max(0, self._free_q - now * self._q)) / self._q

    def utilisation(self, now: int) -> float:
        """Busy time over elapsed time, from 0 to ``now`` ns."""
        return self.busy_ns(now) / now if now > 0 else 0.0

    def queue_depth(self, now: int) -> int:
        """Packets waiting in front of the server at ``now`` ns."""
        now_q = now * self._q
        return sum(1 for start, _ in self._waiting if start > now_q)

    @property
    def slot_ns(self) -> float:
        """The slot of a minimum-cost packet, 1/packet_rate, in ns."""
        return self._a / self._q
