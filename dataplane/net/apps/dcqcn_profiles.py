"""DCQCN parameter profiles from the literature: the switch's ECN marking (RED Kmin, Kmax,
Pmax) and the hosts' DCQCN constants, each set named after the source it comes from.

A profile holds its numbers as published, at the link rate they were published for
(``rate_bps``); :meth:`DcqcnProfile.at_rate` scales the bandwidth-proportional ones (Kmin,
Kmax, R_AI, R_HAI) linearly to another rate, as HPCC's ``simulation/run.py`` scales its own
(``KMIN_MAP``/``KMAX_MAP`` = 100/400 KB x bw/25G, ``RATE_AI`` = 5 Mb/s x bw/25G). Timers,
gains, Pmax, F and the byte counter are not scaled.

Where the model and the source differ (every number is mapped onto the reaction point of
``dataplane.net.apps.dcqcn``), ``notes`` says how. Sources, cited per number below:

* [paper] Y. Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015
  (DOI 10.1145/2785956.2787484); 40 Gb/s testbed. The PDF is not in the stored corpus, so the
  paper's numbers are as recalled in FABRIC-REFERENCE.md (sections 2.1 and 8, "verify") and
  cross-checked against the authors' ns-3 release where that carries the same constant.
* [ns3-rdma] github:bobzhuyb/ns3-rdma (the DCQCN authors' ns-3 release), commit e8a27d0,
  ``windows/ns-3-dev/x64/Release/mix/config.txt`` (40 Gb/s, 2:1 incast), thresholds in
  1030-byte cells (``src/network/model/broadcom-node.cc`` ``SetMarkingThreshold``: kmin * 1030),
  defaults of ``src/point-to-point/model/qbb-net-device.cc`` for what config.txt leaves out.
* [htsim] the htsim simulator's ``sim/dcqcn.cpp`` (DCQCNSrc/DCQCNSink constants),
  ``sim/compositequeue.cpp`` (``decide_ECN``) and ``sim/datacenter/main_dcqcn.cpp`` (its DCQCN
  example: 100 Gb/s, 4000-byte packets, ``set_ecn_thresholds(1 packet, 100 packets)``), as
  found through the search index's code corpus (spcl/HTSIM-old holds compositequeue.cpp).
* [hpcc] github:alibaba-edu/High-Precision-Congestion-Control, commit 9f4be2a,
  ``simulation/run.py`` (``--cc dcqcn`` and ``--cc dcqcn_paper``), thresholds in KB
  (``simulation/src/point-to-point/model/switch-mmu.cc`` ``ConfigEcn``: kmin * 1000).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from dataplane.net.apps.dcqcn_rate import DcqcnParams

__all__ = ["DcqcnProfile", "PROFILES", "DEFAULT_PROFILE", "get_profile"]


@dataclass(frozen=True)
class DcqcnProfile:
    """One source's DCQCN: RED marking on the switch and the reaction/notification points."""
    name: str
    source: str                      # one line: where the set comes from
    rate_bps: int                    # the link rate the numbers were published for
    kmin_bytes: int
    kmax_bytes: int
    pmax: float
    params: DcqcnParams              # rai_bps / rhai_bps at rate_bps
    notes: str = ""
    citations: dict[str, str] = field(default_factory=dict)   # field -> where that number comes from

    def at_rate(self, rate_bps: int) -> "DcqcnProfile":
        """The profile for links of ``rate_bps``: Kmin, Kmax, R_AI and R_HAI scaled linearly."""
        f = rate_bps / self.rate_bps
        p = self.params
        params = replace(p, rai_bps=None if p.rai_bps is None else p.rai_bps * f,
                         rhai_bps=None if p.rhai_bps is None else p.rhai_bps * f)
        return replace(self, rate_bps=rate_bps, kmin_bytes=round(self.kmin_bytes * f),
                       kmax_bytes=round(self.kmax_bytes * f), params=params)

    def describe(self) -> str:
        """A line for listings: name, source, marking band, timers and steps at the published rate."""
        p = self.params
        return (f"{self.name}: {self.source}; at {self.rate_bps / 1e9:g} Gb/s Kmin {self.kmin_bytes / 1000:g} KB, "
                f"Kmax {self.kmax_bytes / 1000:g} KB, Pmax {self.pmax:g}, g 1/{round(1 / p.g)}, "
                f"timers {p.alpha_timer_ns / 1000:g}/{p.rate_timer_ns / 1000:g} us, B {_mb(p.byte_counter)}, "
                f"F {p.fast_recovery_steps}, R_AI {_mbps(p.rai_bps, 20)}, R_HAI {_mbps(p.rhai_bps, 10)}, "
                f"CNP interval {p.cnp_interval_ns / 1000:g} us"
                + ("" if p.rate_decrease_interval_ns is None
                   else f", rate cut at most every {p.rate_decrease_interval_ns / 1000:g} us"))


def _mb(n: int | None) -> str:
    return "none" if n is None else f"{n / 1e6:g} MB"


def _mbps(rate: float | None, line_divisor: int) -> str:
    return f"line/{line_divisor}" if rate is None else f"{rate / 1e6:g} Mb/s"


_PAPER = DcqcnProfile(
    name="dcqcn-paper",
    source="DCQCN, SIGCOMM 2015 (40 Gb/s testbed parameters)",
    rate_bps=40_000_000_000,
    kmin_bytes=5_000, kmax_bytes=200_000, pmax=0.01,
    params=DcqcnParams(g=1 / 256, alpha_timer_ns=55_000, rate_timer_ns=55_000, byte_counter=10_000_000,
                       fast_recovery_steps=5, rai_bps=40e6, rhai_bps=200e6, min_rate_bps=100e6,
                       cnp_interval_ns=50_000, cnp_defer=True),
    notes="The paper's RED band is very shallow for 16 line-rate senders at 100 Gb/s (Kmax 500 KB "
          "after scaling): expect the queue to sit at or above Kmax.",
    citations={
        "kmin_bytes": "[paper] Kmin 5 KB (recalled: FABRIC-REFERENCE.md 2.1, 8)",
        "kmax_bytes": "[paper] Kmax 200 KB (recalled: FABRIC-REFERENCE.md 2.1, 8)",
        "pmax": "[paper] Pmax 1% (recalled: FABRIC-REFERENCE.md 2.1, 8)",
        "g": "[paper] g = 1/256; [ns3-rdma] config.txt DCTCP_GAIN 0.00390625",
        "alpha_timer_ns": "[paper] 55 us; [ns3-rdma] config.txt ALPHA_RESUME_INTERVAL 55",
        "rate_timer_ns": "[paper] 55 us (recalled: FABRIC-REFERENCE.md 8)",
        "byte_counter": "[paper] B = 10 MB (recalled; sc20anonymous/DCQCN-validation README uses the same)",
        "fast_recovery_steps": "[paper] F = 5; [ns3-rdma] config.txt FAST_RECOVERY_TIMES 5",
        "rai_bps": "[paper] R_AI 40 Mb/s; [ns3-rdma] config.txt RATE_AI 40Mb/s",
        "rhai_bps": "[ns3-rdma] config.txt RATE_HAI 200Mb/s (the paper's own value not verified here)",
        "min_rate_bps": "[ns3-rdma] qbb-net-device.cc MinRate default 100Mb/s",
        "cnp_interval_ns": "[paper] one CNP per 50 us per flow; [ns3-rdma] config.txt CNP_INTERVAL 50",
        "cnp_defer": "[paper] NP: a CNP at once, then at most one per 50 us if a packet in that window was "
                     "marked (recalled); [ns3-rdma] qbb-net-device.cc CheckandSendQCN does the windowed form",
        "clamp_target_rate": "[paper] RT <- RC on each CNP (recalled, FABRIC-REFERENCE.md 2.3); "
                             "[ns3-rdma] config.txt CLAMP_TARGET_RATE 1",
    },
)

_NS3 = DcqcnProfile(
    name="ns3-rdma",
    source="the DCQCN authors' ns-3 release, bobzhuyb/ns3-rdma mix/config.txt (40 Gb/s)",
    rate_bps=40_000_000_000,
    kmin_bytes=40 * 1030, kmax_bytes=1000 * 1030, pmax=1.0,
    params=DcqcnParams(g=1 / 256, alpha_timer_ns=55_000, rate_timer_ns=60_000, byte_counter=300_000_000,
                       fast_recovery_steps=4, rai_bps=40e6, rhai_bps=200e6, min_rate_bps=100e6,
                       cnp_interval_ns=50_000, cnp_defer=True, alpha_init=0.5, alpha_before_cut=True,
                       rt_pull_down_ratio=10.0, hyper_halving=True),
    notes="config.txt sets CLAMP_TARGET_RATE 1 (RT <- RC on every CNP), which is what the model does. "
          "Its NP checks each flow every CNP_INTERVAL and sends one CNP if any packet in that window "
          "was marked (qbb-net-device.cc CheckandSendQCN): the model's cnp_defer, whose first CNP of a "
          "flow goes at once instead of at the window's end.",
    citations={
        "kmin_bytes": "[ns3-rdma] config.txt KMIN 40 (cells of 1030 B, broadcom-node.cc SetMarkingThreshold)",
        "kmax_bytes": "[ns3-rdma] config.txt KMAX 1000 (cells of 1030 B)",
        "pmax": "[ns3-rdma] config.txt PMAX 1.0",
        "g": "[ns3-rdma] config.txt DCTCP_GAIN 0.00390625",
        "alpha_timer_ns": "[ns3-rdma] config.txt ALPHA_RESUME_INTERVAL 55 (us)",
        "rate_timer_ns": "[ns3-rdma] config.txt RP_TIMER 60 (us)",
        "byte_counter": "[ns3-rdma] config.txt BYTE_COUNTER 300000000",
        "fast_recovery_steps": "[ns3-rdma] config.txt FAST_RECOVERY_TIMES 5, which qbb-net-device.cc uses as "
                               "'count < 5' (rpr_fast_time/rpr_fast_byte): 4 fast-recovery steps, hyper from "
                               "min(T, BC) = 5; this model's F counts steps (max <= F), so F = 4",
        "rt_pull_down_ratio": "[ns3-rdma] qbb-net-device.cc AdjustRates: RT /= 8 if T or BC is 1 and RT > 10 RC",
        "hyper_halving": "[ns3-rdma] qbb-net-device.cc rpr_hyper_time re-arms the timer for m_rpgTimeReset / 2 and "
                         "rpr_hyper_byte the byte counter for m_bc / 2 in the hyper stage",
        "rai_bps": "[ns3-rdma] config.txt RATE_AI 40Mb/s",
        "rhai_bps": "[ns3-rdma] config.txt RATE_HAI 200Mb/s",
        "min_rate_bps": "[ns3-rdma] qbb-net-device.cc MinRate default 100Mb/s",
        "cnp_interval_ns": "[ns3-rdma] config.txt CNP_INTERVAL 50 (us)",
        "cnp_defer": "[ns3-rdma] qbb-net-device.cc CheckandSendQCN: one CNP per flow per interval if any mark in it",
        "alpha_init": "[ns3-rdma] qbb-net-device.cc constructor m_alpha = 0.5",
        "alpha_before_cut": "[ns3-rdma] qbb-net-device.cc rpr_cnm_received: alpha updated, then RC * (1 - alpha/2)",
        "clamp_target_rate": "[ns3-rdma] config.txt CLAMP_TARGET_RATE 1",
    },
)

_HPCC_K: dict[str, Any] = dict(rate_bps=25_000_000_000, kmin_bytes=100_000, kmax_bytes=400_000, pmax=0.2)
_HPCC_K_CITES = {
    "kmin_bytes": "[hpcc] run.py kmin_map 100 KB x bw/25 (switch-mmu.cc ConfigEcn: x 1000)",
    "kmax_bytes": "[hpcc] run.py kmax_map 400 KB x bw/25",
    "pmax": "[hpcc] run.py pmax_map 0.2",
    "g": "[hpcc] run.py g=0.00390625 (EWMA_GAIN)",
    "fast_recovery_steps": "[hpcc] run.py config_template FAST_RECOVERY_TIMES 1",
    "rai_bps": "[hpcc] run.py ai = 5 x bw/25 (Mb/s)",
    "rhai_bps": "[hpcc] run.py hai = 50 x bw/25 (Mb/s)",
    "min_rate_bps": "[hpcc] run.py config_template MIN_RATE 1000Mb/s",
    "clamp_target_rate": "[hpcc] run.py config_template CLAMP_TARGET_RATE 0; rdma-hw.cc CheckRateDecreaseMlx "
                         "moves RT to RC only after a timer increase (m_rpTimeStage != 0)",
    "byte_counter": "[hpcc] rdma-hw.cc has no byte counter in its Mellanox model (RateIncEventTimerMlx only)",
    "cnp_interval_ns": "[hpcc] rdma-hw.cc ReceiveUdp flags the ACK of every ECN-marked packet as a CNP "
                       "(run.py L2_ACK_INTERVAL 1): no NP interval",
    "alpha_init": "[hpcc] rdma-hw.cc cnp_received_mlx sets alpha = 1 at a flow's first CNP",
    "increase_stages": "[hpcc] rdma-hw.cc RateIncEventMlx: m_rpTimeStage < F fast recovery, == F active increase, "
                       "> F hyper increase by m_rhai (HyperIncreaseMlx), counted by the timer alone",
}

_HPCC_PAPER = DcqcnProfile(
    name="hpcc-dcqcn-paper",
    source="HPCC's ns-3 (alibaba-edu/High-Precision-Congestion-Control) run.py --cc dcqcn_paper",
    **_HPCC_K,
    params=DcqcnParams(g=1 / 256, alpha_timer_ns=50_000, rate_timer_ns=55_000, byte_counter=None,
                       fast_recovery_steps=1, rai_bps=5e6, rhai_bps=50e6, min_rate_bps=1e9, clamp_target_rate=False,
                       increase_stages="timer", rate_decrease_interval_ns=50_000, cnp_interval_ns=0),
    notes="As HPCC's NIC model (rdma-hw.cc, Mellanox mode): a CNP for every marked packet; the RP "
          "cuts at most once per RATE_DECREASE_INTERVAL (50 us) on a tick from the flow's first CNP, "
          "alpha moves on its own 50 us tick, and with no byte counter the timer alone moves a flow "
          "through fast recovery, one additive step and hyper increase.",
    citations={**_HPCC_K_CITES,
               "alpha_timer_ns": "[hpcc] run.py dcqcn_paper t_alpha=50 (ALPHA_RESUME_INTERVAL, us)",
               "rate_timer_ns": "[hpcc] run.py dcqcn_paper t_inc=55 (RP_TIMER, us)",
               "rate_decrease_interval_ns": "[hpcc] run.py dcqcn_paper t_dec=50 (RATE_DECREASE_INTERVAL, us); "
                                            "rdma-hw.cc CheckRateDecreaseMlx"},
)

_HPCC_MLX = DcqcnProfile(
    name="hpcc-dcqcn",
    source="HPCC's ns-3 run.py --cc dcqcn (Mellanox-NIC timers)",
    **_HPCC_K,
    params=DcqcnParams(g=1 / 256, alpha_timer_ns=1_000, rate_timer_ns=300_000, byte_counter=None,
                       fast_recovery_steps=1, rai_bps=5e6, rhai_bps=50e6, min_rate_bps=1e9, clamp_target_rate=False,
                       increase_stages="timer", rate_decrease_interval_ns=4_000, cnp_interval_ns=0),
    notes="As HPCC's NIC model (rdma-hw.cc, Mellanox mode): a CNP for every marked packet; alpha "
          "is updated every 1 us (up by g if a CNP came in that microsecond), the rate cut at most "
          "every 4 us, and with no byte counter the timer alone moves a flow through fast recovery, "
          "one additive step and hyper increase.",
    citations={**_HPCC_K_CITES,
               "alpha_timer_ns": "[hpcc] run.py dcqcn t_alpha=1 (us)",
               "rate_timer_ns": "[hpcc] run.py dcqcn t_inc=300 (us)",
               "rate_decrease_interval_ns": "[hpcc] run.py dcqcn t_dec=4 (us); rdma-hw.cc CheckRateDecreaseMlx"},
)

_HTSIM = DcqcnProfile(
    name="htsim",
    source="htsim's DCQCN (sim/dcqcn.cpp) with the marking of its example sim/datacenter/main_dcqcn.cpp (100 Gb/s)",
    rate_bps=100_000_000_000,
    kmin_bytes=4_000, kmax_bytes=400_000, pmax=1.0,
    params=DcqcnParams(g=1 / 256, alpha_timer_ns=55_000, rate_timer_ns=55_000, byte_counter=10_000_000,
                       fast_recovery_steps=5, rai_bps=5e9, rhai_bps=10e9, min_rate_bps=100e6,
                       cnp_interval_ns=50_000, cnp_defer=True),
    notes="R_AI and R_HAI are line rate / 20 and / 10 in htsim (5 and 10 Gb/s at 100 Gb/s), 125x "
          "the paper's 40 Mb/s.",
    citations={
        "kmin_bytes": "[htsim] main_dcqcn.cpp set_ecn_thresholds(1 packet, ...) with 4000-byte packets",
        "kmax_bytes": "[htsim] main_dcqcn.cpp set_ecn_thresholds(..., 100 packets) with 4000-byte packets",
        "pmax": "[htsim] compositequeue.cpp decide_ECN: p = (q - min) / (max - min), i.e. Pmax 1",
        "g": "[htsim] dcqcn.cpp _g = 1/256",
        "alpha_timer_ns": "[htsim] dcqcn.cpp _cc_update_period 55 us",
        "rate_timer_ns": "[htsim] dcqcn.cpp _cc_update_period 55 us",
        "byte_counter": "[htsim] dcqcn.cpp _B = 10000000",
        "fast_recovery_steps": "[htsim] dcqcn.cpp _F = 5",
        "rai_bps": "[htsim] dcqcn.cpp _RAI = rate / 20",
        "rhai_bps": "[htsim] dcqcn.cpp _RHAI = rate / 10",
        "min_rate_bps": "[htsim] dcqcn.cpp _minimum_rate_bps 100000000 (later htsim)",
        "cnp_interval_ns": "[htsim] dcqcn.cpp DCQCNSink::_cnp_interval 50 us",
        "cnp_defer": "[htsim] dcqcn.cpp DCQCNSink: marks inside the interval send one CNP when it ends",
        "clamp_target_rate": "[htsim] dcqcn.cpp DCQCNSrc::processCNP sets _RT = _RC on every CNP",
    },
)

#: every profile by name, in the order listings show them
PROFILES: dict[str, DcqcnProfile] = {p.name: p for p in (_PAPER, _NS3, _HPCC_PAPER, _HPCC_MLX, _HTSIM)}
DEFAULT_PROFILE = "htsim"


def get_profile(name: str) -> DcqcnProfile:
    """The profile called ``name``; ValueError listing the profiles when there is none."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown DCQCN profile {name!r}; profiles: {', '.join(PROFILES)}") from None
