"""Path-aware packet spraying from the hosts: each data packet's entropy (its UDP source port)
chosen by the sender, recycled while the path it led to is not congested
(``TransportConfig(entropy=EntropyParams(...))``).

RoCEv2 puts a flow's entropy in the UDP source port and the switches hash it with the rest of
the 5-tuple (plain ECMP). Ultra Ethernet's transport sprays by giving every packet its own
entropy value (EV); REPS (recycled entropy packet spraying, Bonato et al., 2024) chooses them by
what came back:

* the receiver echoes, in its acknowledgements, each data packet's EV and whether it arrived
  marked CE (``EntropyEcho``); the switches mark ECN on a queue past its threshold, so a mark
  says *some* queue on that EV's path was long, wherever it is (upward or downward);
* the sender (``EntropySender``) keeps the EVs that came back unmarked in a ring of at most
  ``pool`` and sends each packet on the oldest of them, taking it out; a marked EV is not kept.
  With none kept it draws a fresh one at random (``explore``: the first ``explore`` packets
  always do, before any echo could be back; with ``explore_every`` n, every n-th packet does
  too, so that a path whose EVs were all dropped once is found again when it clears: with the
  window counted as the pipe, senders seldom run out of kept EVs, and a slow link that marked
  early would otherwise stay unused). An EV that keeps coming back clean keeps being
  reused, one whose path fills up is dropped and replaced by a random draw.
* with ``spray_acks`` the responder sprays its ACKs too, each on a fresh random EV (as htsim's
  UEC and NDP receivers send theirs round the paths). An ACK on the flow's own port follows one
  fixed path back; when that path crosses a slow or congested link, every ACK of the flow waits
  in its queue behind data and the whole window is held that long (a cumulative ACK that waited
  is overtaken by the next one on another path, which acknowledges as much and more).

Wire (after the ``sack`` ACK's bitmap, before the ICRC; a reader of the SACK extension alone
ignores it): a byte n (at most ``MAX_ECHO``), n 16-bit EVs (network order, oldest first), then
ceil(n / 8) bytes of CE flags, bit i (byte i // 8, bit i % 8) for the i-th EV. Only the
selective receiver writes it (spraying reorders, which go-back-N does not survive).
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Any

from dataplane.net.hosts import packets as pk
from dataplane.net.rdma import wire

__all__ = ["EntropyParams", "EntropySender", "EntropyEcho", "echo_bytes", "parse_echo", "MAX_ECHO",
           "EV_FIRST", "EV_COUNT"]

MAX_ECHO = 255
#: the EVs drawn: the UDP source ports RoCEv2 recommends for entropy (0xC000..0xFFFF)
EV_FIRST = 0xC000
EV_COUNT = 0x4000


@dataclass(frozen=True)
class EntropyParams:
    """The sender's ring of good EVs (``pool``), how many first packets draw at random
    (``explore``) and every how many later packets one does (``explore_every``, 0: none), and
    the seed of the draws (each queue pair mixes in its host and number, so
    runs repeat on any number of MPI ranks). ``spray_acks``: the responder sends each ACK on a
    fresh random EV instead of the flow's own source port (module docstring)."""

    pool: int = 256
    explore: int = 64
    seed: int = 1
    spray_acks: bool = False
    explore_every: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.pool <= 65536:
            raise ValueError(f"the entropy pool holds 1..65536 values, got {self.pool}")
        if not 0 <= self.explore <= 1 << 20:
            raise ValueError(f"explore must be in 0..2^20 packets, got {self.explore}")
        if not 0 <= self.explore_every <= 1 << 20:
            raise ValueError(f"explore_every must be in 0..2^20 packets (0: never), got {self.explore_every}")


def echo_bytes(evs: list[int], marked: int) -> bytes:
    """The echo of ``evs`` (oldest first), ``marked`` bit i set when the i-th arrived CE."""
    n = len(evs)
    if n > MAX_ECHO:
        raise ValueError(f"an echo holds at most {MAX_ECHO} EVs, got {n}")
    return bytes([n]) + b"".join(ev.to_bytes(2, "big") for ev in evs) + marked.to_bytes((n + 7) // 8, "little")


def parse_echo(payload: bytes) -> tuple[list[int], int]:
    """(EVs, CE flags) of a ``sack`` ACK's echo; ([], 0) when it has none or is cut short."""
    at = wire.BTH.size + wire.AETH.size
    end = len(payload) - len(wire.ICRC)
    if end < at + wire.SACK_LENGTH.size:
        return [], 0
    (word,) = wire.SACK_LENGTH.unpack_from(payload, at)
    at += wire.SACK_LENGTH.size + (word & wire.SACK_MAX_BYTES)
    if at >= end:
        return [], 0
    n = payload[at]
    flags = at + 1 + 2 * n
    if flags + (n + 7) // 8 > end:
        return [], 0
    evs = [int.from_bytes(payload[at + 1 + 2 * i:at + 3 + 2 * i], "big") for i in range(n)]
    return evs, int.from_bytes(payload[flags:flags + (n + 7) // 8], "little")


class EntropySender:
    """One queue pair's EVs (module docstring): ``next_ev`` for each data packet, ``on_ack`` for
    each acknowledgement."""

    def __init__(self, qp: Any, params: EntropyParams):
        self.params = params
        self.rng = random.Random(f"{params.seed}/{qp.host.name}/{qp.qpn}")
        self.good: deque[int] = deque(maxlen=params.pool)
        self.explore = params.explore
        self.every = params.explore_every
        self.sent = 0                   # EVs handed out
        self.echoed = 0                 # EVs echoed back
        self.marked = 0                 # of which CE
        self.fresh = 0                  # packets sent on a fresh random EV

    def next_ev(self) -> int:
        """The EV of the next data packet: the oldest good one, else a fresh draw."""
        self.sent += 1
        if self.explore:
            self.explore -= 1
        elif self.good and not (self.every and self.sent % self.every == 0):
            return self.good.popleft()
        self.fresh += 1
        return EV_FIRST + self.rng.randrange(EV_COUNT)

    def on_ack(self, payload: bytes) -> None:
        """Keep the echoed EVs that came back unmarked."""
        evs, marked = parse_echo(payload)
        self.echoed += len(evs)
        for i, ev in enumerate(evs):
            if marked >> i & 1:
                self.marked += 1
            else:
                self.good.append(ev)


class EntropyEcho:
    """The receiving queue pair's record of the EVs (and CE marks) since its last ACK; with
    ``params.spray_acks`` also the source ports of its ACKs (``ack_port``), drawn from ``seed``."""

    def __init__(self, params: EntropyParams | None = None, seed: str = "") -> None:
        self.evs: list[int] = []
        self.marked = 0
        spray = params is not None and params.spray_acks
        self.rng = random.Random(f"{params.seed}/ack/{seed}") if spray and params is not None else None

    def ack_port(self, port: int) -> int:
        """The UDP source port of the next ACK: ``port`` (the flow's), or a fresh EV."""
        return port if self.rng is None else EV_FIRST + self.rng.randrange(EV_COUNT)

    def received(self, ev: int, tos: int) -> None:
        """A data packet arrived on EV ``ev`` with ToS ``tos``."""
        if len(self.evs) == MAX_ECHO:          # more than an ACK holds: the oldest go unechoed
            self.marked >>= 1
            del self.evs[0]
        if tos & 3 == pk.ECN_CE:
            self.marked |= 1 << len(self.evs)
        self.evs.append(ev)

    def append_to(self, ack: bytes) -> bytes:
        """``ack`` (a ``sack`` ACK) with the echo inserted before its ICRC; the record starts again."""
        echo = echo_bytes(self.evs, self.marked)
        self.evs, self.marked = [], 0
        return ack[:-len(wire.ICRC)] + echo + ack[-len(wire.ICRC):]
