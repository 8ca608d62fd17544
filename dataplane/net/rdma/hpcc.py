"""HPCC, High Precision Congestion Control (Li et al., SIGCOMM 2019): its in-band telemetry
records and the sender's window update, Algorithm 1 of the paper.

Wire: switches running ``programs/hpcc.p4`` write one 8-byte record per hop into RoCEv2 data
packets sent with DSCP ``HPCC_DSCP``: the INT header right after the BTH is a 2-byte shim
(number of hops written, reserved) and room for ``MAX_HOPS`` records (HPCC's simulator's
``IntHeader``: fixed size, maxHop 5). A record (``IntHop``) is rate:3 ts:24 tx:20 qlen:17 bits
(line-rate code, egress time in ns, bytes the port sent before the packet in ``TX_UNIT``
units, bytes queued behind it in ``QLEN_UNIT`` units), the fields of the simulator's
``IntHop``. The receiver copies the whole INT header into its ACK.

Sender (``HpccWindow``), per ACK, with T the base RTT, B a hop's line rate, L the records
of the previous ACK, U the normalised in-flight bytes and Wc the reference window:

* MeasureInflight: per hop i, txRate = (tx - L.tx) / (ts - L.ts) and
  u' = min(qlen, L.qlen) / (B T) + txRate / B; the hop with the largest u' gives u and its
  tau = ts - L.ts; tau = min(tau, T); U = (1 - tau/T) U + (tau/T) u;
* ComputeWind(U, updateWc): if U >= eta or incStage >= maxStage: W = Wc / (U/eta) + W_AI
  (and, with updateWc, incStage = 0, Wc = W); else W = Wc + W_AI (with updateWc,
  incStage += 1, Wc = W);
* NewAck: updateWc (the per-RTT update) when the ACK covers the packet that was next to
  send at the last per-RTT update (ack.seq > lastUpdateSeq; then lastUpdateSeq = snd_nxt),
  else the per-ACK update (``fast_react``; without it such ACKs only refresh U and L);
  the rate is R = W / T; L = the ACK's records.

The first ACK only stores L (the simulator's ``UpdateRateHp``: nothing to difference yet);
U starts at 1, W and Wc at ``w_init`` (the bandwidth-delay product of the sender's line
rate and T), incStage at 0. W is kept within [min_rate T, w_init] (the simulator bounds
the rate by its ``MinRate`` and the NIC's line rate). A hop whose timestamp did not move
(tau = 0) has no rate sample: its u' counts only its queue, and tau = 0 gives it no weight.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, replace
from typing import Sequence

__all__ = ["HPCC_DSCP", "MAX_HOPS", "QLEN_UNIT", "TX_UNIT", "RATE_CODES", "INT_HEADER_BYTES", "IntHop",
           "pack_int_header", "parse_int_header", "HpccParams", "PROFILES", "DEFAULT_PROFILE", "get_profile",
           "HpccWindow"]

HPCC_DSCP = 0x1A                 # programs/hpcc.p4's HPCC_DSCP
MAX_HOPS = 5                     # HPCC's IntHeader::maxHop
QLEN_UNIT = 256                  # bytes per qlen unit (a power of two: the switch shifts)
TX_UNIT = 512                    # bytes per tx unit (HPCC: 128 B x multi 4 at 100 Gb/s)
TS_MOD = 1 << 24
TX_MOD = 1 << 20
QLEN_MAX = (1 << 17) - 1
#: Line rate codes, bits/s (HPCC's IntHop::lineRateValues).
RATE_CODES = (25e9, 50e9, 100e9, 200e9, 400e9)
_SHIM = struct.Struct("!BB")
_HOP = struct.Struct("!Q")
INT_HEADER_BYTES = _SHIM.size + MAX_HOPS * _HOP.size


@dataclass(frozen=True)
class IntHop:
    """One hop's record as the sender reads it: ``qlen`` and ``tx`` in bytes (multiples of
    their units), ``ts`` in ns modulo 2^24, ``rate_bps`` the egress line rate."""

    qlen: int
    tx: int
    ts: int
    rate_bps: float

    @classmethod
    def decode(cls, word: int) -> "IntHop":
        code = word >> 61
        if code >= len(RATE_CODES):
            raise ValueError(f"HPCC INT record has line-rate code {code}, not one of 0..{len(RATE_CODES) - 1}")
        return cls(qlen=(word & QLEN_MAX) * QLEN_UNIT, tx=((word >> 17) & (TX_MOD - 1)) * TX_UNIT,
                   ts=(word >> 37) & (TS_MOD - 1), rate_bps=RATE_CODES[code])

    def encode(self) -> int:
        """The 64-bit record a switch writes for these values (what hpcc.p4's ``stamp`` does)."""
        code = RATE_CODES.index(self.rate_bps)
        return (code << 61) | ((self.ts % TS_MOD) << 37) | (((self.tx // TX_UNIT) % TX_MOD) << 17) | \
            min(self.qlen // QLEN_UNIT, QLEN_MAX)

    def tx_delta(self, before: "IntHop") -> int:
        """Bytes sent since ``before`` (modulo the field's width)."""
        return ((self.tx - before.tx) // TX_UNIT % TX_MOD) * TX_UNIT

    def ts_delta(self, before: "IntHop") -> int:
        """Nanoseconds since ``before`` (modulo 2^24)."""
        return (self.ts - before.ts) % TS_MOD


def pack_int_header(hops: Sequence[IntHop] = ()) -> bytes:
    """The INT header a sender puts after the BTH (``hops`` empty) or a receiver echoes."""
    if len(hops) > MAX_HOPS:
        raise ValueError(f"at most {MAX_HOPS} hops, got {len(hops)}")
    words = [h.encode() for h in hops] + [0] * (MAX_HOPS - len(hops))
    return _SHIM.pack(len(hops), 0) + b"".join(_HOP.pack(w) for w in words)


def parse_int_header(data: bytes, offset: int = 0) -> list[IntHop] | None:
    """The records in the INT header at ``offset`` of ``data`` (first hop first), or None if it
    is short or malformed (more hops than it has room for, an unknown rate code)."""
    if len(data) < offset + INT_HEADER_BYTES:
        return None
    nhop, _ = _SHIM.unpack_from(data, offset)
    if nhop > MAX_HOPS:
        return None
    base = offset + _SHIM.size
    try:
        return [IntHop.decode(_HOP.unpack_from(data, base + i * _HOP.size)[0]) for i in range(nhop)]
    except ValueError:
        return None


@dataclass(frozen=True)
class HpccParams:
    """HPCC's parameters. ``eta`` target utilisation; ``max_stage`` additive steps before a
    multiplicative one; ``w_ai_bytes`` the additive increase (None: ``r_ai_bps`` x T, the
    simulator's rate form); ``base_rtt_ns`` T (None: the scenario's path's); ``w_init_bytes``
    (None: line rate x T); ``fast_react`` the per-ACK update; ``min_rate_bps`` the floor;
    ``source`` where the values come from."""

    name: str = "hpcc-paper"
    eta: float = 0.95
    max_stage: int = 5
    w_ai_bytes: float | None = None
    r_ai_bps: float = 40e6
    base_rtt_ns: int | None = None
    w_init_bytes: float | None = None
    fast_react: bool = True
    min_rate_bps: float = 1e9
    source: str = ""

    def __post_init__(self) -> None:
        if not 0 < self.eta <= 1:
            raise ValueError(f"eta must be in (0, 1], got {self.eta}")
        if self.max_stage < 0:
            raise ValueError(f"max_stage must be >= 0, got {self.max_stage}")
        if self.base_rtt_ns is not None and self.base_rtt_ns <= 0:
            raise ValueError("base_rtt_ns must be positive")


PROFILES: dict[str, HpccParams] = {p.name: p for p in (
    HpccParams("hpcc-paper", eta=0.95, max_stage=5, r_ai_bps=40e6, fast_react=True, min_rate_bps=1e9,
               source="HPCC paper (SIGCOMM 2019), Algorithm 1: eta 95%, maxStage 5, per-ACK and per-RTT "
                      "updates; W_AI as the simulator's R_AI x T"),
    HpccParams("hpcc-ns3", eta=0.95, max_stage=0, r_ai_bps=40e6, fast_react=True, min_rate_bps=1e9,
               source="HPCC's ns-3 simulator run.py, cc 'hp' at 100 Gb/s: U_TARGET 0.95, MI_THRESH 0, "
                      "RATE_AI 10 Mb/s x bw/25, MIN_RATE 1000 Mb/s, FAST_REACT 1, MULTI_RATE 0"),
)}
DEFAULT_PROFILE = "hpcc-paper"


def get_profile(name: str) -> HpccParams:
    """The named profile; ValueError naming the choices otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown HPCC profile {name!r}; choose from {', '.join(PROFILES)}") from None


class HpccWindow:
    """HPCC's sender state for one flow on a NIC of ``line_rate_bps``: ``window`` (bytes W),
    ``rate_bps`` (W / T), ``u`` (U), ``wc`` (Wc), ``inc_stage``. ``on_ack`` runs Algorithm 1's
    NewAck."""

    def __init__(self, line_rate_bps: float, params: HpccParams, base_rtt_ns: int | None = None):
        t = base_rtt_ns if base_rtt_ns is not None else params.base_rtt_ns
        if t is None or t <= 0:
            raise ValueError("HPCC needs a positive base RTT T")
        self.params, self.line_rate_bps, self.t_ns = params, float(line_rate_bps), int(t)
        self.w_init = params.w_init_bytes if params.w_init_bytes is not None else line_rate_bps * t / 8e9
        self.w_ai = params.w_ai_bytes if params.w_ai_bytes is not None else params.r_ai_bps * t / 8e9
        self.w_min = min(self.w_init, params.min_rate_bps * t / 8e9)
        self.window = self.wc = float(self.w_init)
        self.u = 1.0
        self.inc_stage = 0
        self.last_update_seq: int | None = None
        self.hops: list[IntHop] | None = None
        self.updates = {"per_rtt": 0, "per_ack": 0}

    @property
    def rate_bps(self) -> float:
        return self.window * 8e9 / self.t_ns

    def measure_inflight(self, hops: Sequence[IntHop]) -> float:
        """MeasureInflight: update and return U from ``hops`` against the stored records."""
        prev = self.hops
        assert prev is not None and len(prev) == len(hops)
        t = self.t_ns
        best, tau = 0.0, 0
        for new, old in zip(hops, prev):
            dt = new.ts_delta(old)
            b = new.rate_bps / 8e9                   # bytes per ns
            u = min(new.qlen, old.qlen) / (b * t)
            if dt > 0:
                u += new.tx_delta(old) / dt / b
            if u > best:
                best, tau = u, dt
        tau = min(tau, t)
        self.u = (1 - tau / t) * self.u + (tau / t) * best
        return self.u

    def compute_wind(self, u: float, update_wc: bool) -> float:
        """ComputeWind: the new W for utilisation ``u``; ``update_wc`` moves Wc and incStage."""
        p = self.params
        if u >= p.eta or self.inc_stage >= p.max_stage:
            w = (self.wc * p.eta / u if u > 0 else float("inf")) + self.w_ai
            stage = 0
        else:
            w = self.wc + self.w_ai
            stage = self.inc_stage + 1
        w = min(max(w, self.w_min), self.w_init)
        if update_wc:
            self.inc_stage, self.wc = stage, w
        return w

    def on_ack(self, hops: Sequence[IntHop], ack_seq: int, snd_nxt: int) -> bool:
        """NewAck for an ACK whose next expected sequence is ``ack_seq`` carrying ``hops``, with
        ``snd_nxt`` the next sequence to send. True when W changed."""
        if self.hops is None or len(hops) != len(self.hops) or self.last_update_seq is None:
            self.hops = list(hops)                    # first ACK (or a new path): store L only
            self.last_update_seq = snd_nxt
            return False
        update_wc = ack_seq > self.last_update_seq
        if not update_wc and not self.params.fast_react:
            return False                              # the simulator's FastReactHp does nothing then
        u = self.measure_inflight(hops)
        before = self.window
        self.window = self.compute_wind(u, update_wc)
        self.hops = list(hops)
        if update_wc:
            self.last_update_seq = snd_nxt
            self.updates["per_rtt"] += 1
        else:
            self.updates["per_ack"] += 1
        return self.window != before


def with_base_rtt(params: HpccParams, base_rtt_ns: int) -> HpccParams:
    """``params`` with T set (the scenario computes it from its path)."""
    return replace(params, base_rtt_ns=base_rtt_ns)
