"""DCQCN profiles from the literature: each loads with a marking band and timers, cites every
number it sets, scales with the link rate, and an unknown name lists the known ones."""
from __future__ import annotations

from dataclasses import fields

import pytest

from dataplane.net.apps.dcqcn import DcqcnParams, DcqcnRateControl
from dataplane.net.apps.dcqcn_profiles import DEFAULT_PROFILE, PROFILES, get_profile
from dataplane.scenarios.incast import IncastConfig

CITED = {"kmin_bytes", "kmax_bytes", "pmax", "g", "alpha_timer_ns", "rate_timer_ns", "byte_counter",
         "fast_recovery_steps", "rai_bps", "rhai_bps", "min_rate_bps", "cnp_interval_ns"}


@pytest.mark.parametrize("name", list(PROFILES))
def test_each_profile_loads_cites_its_numbers_and_drives_the_rate_control(name):
    prof = get_profile(name)
    assert prof.name == name and prof.source
    assert 0 < prof.kmin_bytes <= prof.kmax_bytes and 0 < prof.pmax <= 1
    p = prof.params
    assert isinstance(p, DcqcnParams) and 0 < p.g < 1 and p.rai_bps > 0 and p.rhai_bps >= p.rai_bps
    # Every number in CITED is cited; a profile that departs from a DcqcnParams default cites that too.
    assert CITED <= set(prof.citations) <= CITED | {f.name for f in fields(DcqcnParams)}
    assert all(prof.citations.values())
    defaults = DcqcnParams()
    assert all(k in prof.citations for k in ("alpha_init", "cnp_defer", "clamp_target_rate", "alpha_before_cut", "rt_pull_down_ratio")
               if getattr(p, k) != getattr(defaults, k))
    assert name in prof.describe()
    # The constants run the reaction point: a CNP at line rate cuts by alpha/2 (alpha starts at 1,
    # 0.5 in ns3-rdma).
    rc = DcqcnRateControl(prof.rate_bps, p)
    rc.on_cnp()
    alpha = (1 - p.g) * p.alpha_init + p.g
    assert rc.rc == pytest.approx(prof.rate_bps * (1 - (alpha if p.alpha_before_cut else p.alpha_init) / 2))
    assert rc.alpha == pytest.approx(alpha)
    # Scaled to another rate, the bandwidth-proportional numbers follow it and nothing else moves.
    at = prof.at_rate(prof.rate_bps * 5 // 2)
    assert (at.kmin_bytes, at.kmax_bytes) == (round(prof.kmin_bytes * 2.5), round(prof.kmax_bytes * 2.5))
    assert (at.params.rai_bps, at.params.rhai_bps) == (p.rai_bps * 2.5, p.rhai_bps * 2.5)
    assert at.pmax == prof.pmax
    same = {f.name for f in fields(DcqcnParams)} - {"rai_bps", "rhai_bps"}
    assert all(getattr(at.params, k) == getattr(p, k) for k in same)


def test_incast_takes_the_profile_scaled_to_its_hosts_and_explicit_values_win():
    cfg = IncastConfig(profile="hpcc-dcqcn")         # published at 25 Gb/s; hosts run at 100 Gb/s
    assert (cfg.kmin_bytes, cfg.kmax_bytes, cfg.pmax) == (400_000, 1_600_000, 0.2)
    assert cfg.dcqcn.rai_bps == 20e6 and cfg.dcqcn.rate_timer_ns == 300_000
    assert IncastConfig(profile="hpcc-dcqcn", kmax_bytes=3_200_000).kmax_bytes == 3_200_000
    assert IncastConfig().profile == DEFAULT_PROFILE


def test_an_unknown_profile_lists_the_known_ones():
    with pytest.raises(ValueError) as info:
        get_profile("timely")
    assert "timely" in str(info.value) and all(name in str(info.value) for name in PROFILES)


def test_ns3_rdma_recovers_as_its_qbb_net_device_does():
    """FAST_RECOVERY_TIMES 5 in ns3-rdma means timer counts 1-4 recover fast and the 5th adds R_AI."""
    p = get_profile("ns3-rdma").params
    rc = DcqcnRateControl(40e9, p)
    rc.on_cnp()
    for _ in range(5):
        rc.on_rate_timer()
    assert rc.events == {"fast_recovery": 4, "additive": 1, "hyper": 0}


@pytest.mark.parametrize("name", ["hpcc-dcqcn-paper", "hpcc-dcqcn"])
def test_hpcc_profiles_use_hpccs_mellanox_nic_model(name):
    """rdma-hw.cc: no byte counter, one fast-recovery step (F = 1), one additive step, then hyper
    steps of R_HAI by the timer alone; a CNP per marked packet, cut on the periodic check."""
    prof = get_profile(name).at_rate(100_000_000_000)
    p = prof.params
    assert p.byte_counter is None and p.cnp_interval_ns == 0 and p.rate_decrease_interval_ns in (50_000, 4_000)
    rc = DcqcnRateControl(100e9, p)
    rc.on_decrease_check()
    assert rc.on_bytes_sent(10**9) == 0
    for _ in range(4):
        rc.on_rate_timer()
    assert rc.events == {"fast_recovery": 1, "additive": 1, "hyper": 2}
    assert (rc.rai, rc.rhai) == (20e6, 200e6)            # 5 and 50 Mb/s x 100/25
