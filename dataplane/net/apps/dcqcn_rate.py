"""DCQCN's reaction-point arithmetic: the parameters (``DcqcnParams``) and the rate state
(``DcqcnRateControl``: current rate RC, target rate RT, alpha, the timer and byte-counter
counts), with no simulator, so that it can be unit-tested and shared by the senders.

See ``dataplane.net.apps.dcqcn`` for the algorithm and the sources each rule follows.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["DcqcnParams", "DcqcnRateControl"]


@dataclass
class DcqcnParams:
    """DCQCN parameters (defaults: htsim dcqcn.cpp; see the module docstring)."""
    g: float = 1 / 256                     # alpha gain
    alpha_init: float = 1.0
    alpha_timer_ns: int = 55_000           # alpha decay period without CNPs
    rate_timer_ns: int = 55_000            # rate-increase timer (T)
    byte_counter: int | None = 10_000_000  # bytes per byte-counter event (B); None: no byte counter
    fast_recovery_steps: int = 5           # F
    rai_bps: float | None = None           # additive increase step; None: line rate / 20
    rhai_bps: float | None = None          # hyper increase step; None: line rate / 10
    min_rate_bps: float = 100e6
    initial_rate_bps: float | None = None  # None: line rate
    cnp_interval_ns: int = 50_000          # NP: at most one CNP per flow per interval
    cnp_defer: bool = False                # NP: marks inside the interval send one CNP when it ends (htsim)
    # RT <- RC on every CNP (the paper's equation, htsim, ns3-rdma's CLAMP_TARGET_RATE 1). False is
    # the NIC's default (Mellanox ``clamp_tgt_rate`` 0; HPCC's CLAMP_TARGET_RATE 0): RT keeps the
    # rate from before the congestion episode unless the rate was raised since the last CNP.
    clamp_target_rate: bool = True
    # With clamp_target_rate False: a timer increase since the last CNP also moves RT to RC, not only a
    # byte-counter one (Mellanox ``clamp_tgt_rate_after_time_inc``, default 1; HPCC's rdma-hw.cc checks
    # the timer stage only, having no byte counter).
    clamp_target_rate_after_time_inc: bool = True
    # The cut uses alpha as it was before this CNP raised it (the paper's order, htsim's processCNP);
    # ns3-rdma's rpr_cnm_received raises alpha first and cuts with the new value.
    alpha_before_cut: bool = False
    # ns3-rdma's AdjustRates: at an increase event where T or BC is 1 and RT > 10 x RC, RT is divided
    # by 8 instead of being stepped (a target far above a deeply cut rate is pulled down). None: off.
    rt_pull_down_ratio: float | None = None
    # How an increase event picks its phase. "paper": from both counts, as the paper, htsim and
    # ns3-rdma do (fast recovery while max(T, BC) <= F, hyper once min(T, BC) > F with a step of
    # (min(T, BC) - F) x R_HAI, additive between). "timer": from T alone, as HPCC's rdma-hw.cc
    # RateIncEventMlx does (its NIC model has no byte counter): fast recovery while T <= F, one
    # additive step at T = F + 1, then hyper increase by a constant R_HAI per event.
    increase_stages: str = "paper"
    # ns3-rdma's hyper stage runs its counters twice as fast: a timer event that finds the flow in
    # hyper increase re-arms the timer for half the period (rpr_hyper_time: RP_TIMER / 2) and a
    # byte event there re-arms the counter for B / 2 (rpr_hyper_byte); a CNP restores both.
    hyper_halving: bool = False
    # The NIC's decrease check (HPCC rdma-hw.cc CheckRateDecreaseMlx, NVIDIA's
    # rate_reduce_monitor_period): None cuts the rate at each CNP as it arrives (the paper, htsim,
    # ns3-rdma). A period makes a CNP only set a flag; from the flow's first CNP, every period the
    # rate is cut once if the flag is set, and alpha is kept on its own free-running tick of
    # alpha_timer_ns (raised by g if a CNP came in the tick, decayed otherwise: UpdateAlphaMlx),
    # updated just before a decrease check due at the same time.
    rate_decrease_interval_ns: int | None = None

    def __post_init__(self) -> None:
        if self.increase_stages not in ("paper", "timer"):
            raise ValueError(f"increase_stages must be 'paper' or 'timer', not {self.increase_stages!r}")
        if self.byte_counter is not None and self.byte_counter <= 0:
            raise ValueError("byte_counter must be positive (or None for no byte counter)")

    def with_(self, **changes) -> "DcqcnParams":
        return replace(self, **changes)


class DcqcnRateControl:
    """The reaction point's arithmetic: current rate ``rc``, target rate ``rt``, ``alpha``,
    counters ``t`` (timer events) and ``bc`` (byte-counter events) since the last CNP."""

    def __init__(self, line_rate_bps: float, params: DcqcnParams | None = None):
        p = self.params = params or DcqcnParams()
        if line_rate_bps <= 0:
            raise ValueError("line rate must be positive")
        self.line = float(line_rate_bps)
        self.rc = min(self.line, float(p.initial_rate_bps or self.line))
        self.rt = self.rc
        self.alpha = float(p.alpha_init)
        self.rai = float(p.rai_bps if p.rai_bps is not None else self.line / 20)
        self.rhai = float(p.rhai_bps if p.rhai_bps is not None else self.line / 10)
        self.t = 0
        self.bc = 0
        self.byte_acc = 0
        self.hyper = False                       # the last increase was a hyper increase
        self.rate_period_ns = p.rate_timer_ns    # the period the rate timer is re-armed with
        self.byte_threshold = p.byte_counter     # bytes to the next byte-counter event
        self.cnps = 0
        self.events = {"fast_recovery": 0, "additive": 0, "hyper": 0}

    def on_cnp(self) -> None:
        p = self.params
        self.cnps += 1
        # Which CNPs move RT to RC: every one when clamping (paper, htsim, ns3-rdma config.txt); else
        # only one that follows a rate increase, so that a run of CNPs with no increase between them
        # keeps RT at the rate before the episode (Mellanox clamp_tgt_rate /
        # clamp_tgt_rate_after_time_inc; HPCC rdma-hw.cc CheckRateDecreaseMlx; ns3-rdma
        # qbb-net-device.cc rpr_cnm_received). t and bc count increase events since the last CNP.
        if p.clamp_target_rate or self.bc > 0 or (p.clamp_target_rate_after_time_inc and self.t > 0):
            self.rt = self.rc
        if p.alpha_before_cut:
            self.alpha = (1 - p.g) * self.alpha + p.g
            self.rc = max(p.min_rate_bps, self.rc * (1 - self.alpha / 2))
        else:
            self.rc = max(p.min_rate_bps, self.rc * (1 - self.alpha / 2))
            self.alpha = (1 - p.g) * self.alpha + p.g
        self.t = self.bc = self.byte_acc = 0
        self.hyper = False
        self.rate_period_ns = p.rate_timer_ns
        self.byte_threshold = p.byte_counter

    def on_alpha_timer(self) -> None:
        self.alpha *= 1 - self.params.g

    def on_alpha_tick(self, cnp_seen: bool) -> None:
        """The periodic alpha update (``rate_decrease_interval_ns`` set): up by g if a CNP came in
        the tick, else down by the factor (1 - g)."""
        g = self.params.g
        self.alpha = (1 - g) * self.alpha + (g if cnp_seen else 0.0)

    def on_decrease_check(self) -> None:
        """A decrease check that found a CNP since the last one: the cut, with alpha as it stands
        (HPCC rdma-hw.cc CheckRateDecreaseMlx; alpha itself moves only on its tick)."""
        p = self.params
        self.cnps += 1
        if p.clamp_target_rate or self.bc > 0 or (p.clamp_target_rate_after_time_inc and self.t > 0):
            self.rt = self.rc
        self.rc = max(p.min_rate_bps, self.rc * (1 - self.alpha / 2))
        self.t = self.bc = self.byte_acc = 0
        self.hyper = False
        self.rate_period_ns = p.rate_timer_ns
        self.byte_threshold = p.byte_counter

    def on_rate_timer(self) -> None:
        """A rate-increase timer event; ``rate_period_ns`` is then the period to re-arm it with."""
        self.t += 1
        if self.params.hyper_halving:
            # ns3-rdma rpr_timer_wrapper: the stage the flow is in when the timer fires sets the next period
            self.rate_period_ns = self.params.rate_timer_ns // 2 if self.hyper else self.params.rate_timer_ns
        self._increase()

    def on_bytes_sent(self, n: int) -> int:
        """Count ``n`` sent bytes; returns how many byte-counter increase events fired."""
        B = self.byte_threshold
        if B is None:
            return 0
        self.byte_acc += n
        fired = 0
        while self.byte_acc >= B:
            self.byte_acc -= B
            self.bc += 1
            fired += 1
            if self.params.hyper_halving:
                # ns3-rdma rpr_hyper_byte re-arms for B / 2 in the hyper stage, the others for B
                full = self.params.byte_counter
                assert full is not None
                B = self.byte_threshold = full // 2 if self.hyper else full
            self._increase()
        return fired

    def _increase(self) -> None:
        if self.rc >= self.line:
            return
        p = self.params
        F = p.fast_recovery_steps
        t, bc = self.t, self.bc
        if p.increase_stages == "timer":
            # HPCC rdma-hw.cc RateIncEventMlx: its stage count is T - 1 here ("< F" fast recovery,
            # "== F" additive, "> F" hyper by m_rhai)
            if t <= F:
                self.events["fast_recovery"] += 1
            elif t == F + 1:
                self.rt += self.rai
                self.events["additive"] += 1
            else:
                self.rt += self.rhai
                self.events["hyper"] += 1
                self.hyper = True
        elif p.rt_pull_down_ratio is not None and (t == 1 or bc == 1) and self.rt > p.rt_pull_down_ratio * self.rc:
            self.rt /= 8                     # ns3-rdma qbb-net-device.cc AdjustRates
            self.events["fast_recovery"] += 1
        elif max(t, bc) <= F:
            self.events["fast_recovery"] += 1
        elif min(t, bc) > F:
            self.rt += (min(t, bc) - F) * self.rhai
            self.events["hyper"] += 1
            self.hyper = True
        else:
            self.rt += self.rai
            self.events["additive"] += 1
        if self.rt > self.line:
            self.rt = self.line
        self.rc = min(self.line, (self.rt + self.rc) / 2)
