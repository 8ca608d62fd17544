"""HPCC's sender (``dataplane.net.rdma.hpcc``) against Algorithm 1 of the paper, worked by
hand: MeasureInflight's U, ComputeWind on and either side of its thresholds (U = eta,
incStage = maxStage), the per-RTT update (moves Wc and incStage) against the per-ACK one
(does not), R = W / T, and the INT record's fields at their widths."""
from __future__ import annotations

import pytest

from dataplane.net.rdma.hpcc import (
    INT_HEADER_BYTES,
    PROFILES,
    HpccParams,
    HpccWindow,
    IntHop,
    pack_int_header,
    parse_int_header,
)

T = 10_000                       # ns
LINE = 100e9                     # 12.5 bytes/ns, so W_init = 125,000 bytes
PARAMS = HpccParams("test", eta=0.95, max_stage=5, w_ai_bytes=100, min_rate_bps=1e9)


def window(**kw) -> HpccWindow:
    return HpccWindow(LINE, HpccParams(**{**PARAMS.__dict__, **kw}), T)


def test_initial_state_is_one_bdp_at_line_rate():
    w = window()
    assert w.window == w.wc == 125_000 and w.u == 1.0 and w.inc_stage == 0
    assert w.rate_bps == pytest.approx(100e9)
    assert HpccWindow(LINE, HpccParams(r_ai_bps=40e6), T).w_ai == pytest.approx(50.0)   # 40 Mb/s x 10 us


def test_measure_inflight_matches_the_hand_computed_u():
    """u' = min(qlen, L.qlen) / (B T) + txRate / B; U = (1 - tau/T) U + tau/T u'."""
    w = window()
    w.hops = [IntHop(qlen=25_600, tx=0, ts=1_000, rate_bps=100e9)]
    new = [IntHop(qlen=51_200, tx=62_464, ts=6_000, rate_bps=100e9)]
    # txRate = 62464 B / 5000 ns = 12.4928 B/ns -> 0.999424 of B; queue term 25600 / 125000 = 0.2048
    assert w.measure_inflight(new) == pytest.approx(0.5 * 1.0 + 0.5 * (0.999424 + 0.2048))


def test_measure_inflight_takes_the_most_loaded_hop_and_its_tau_clamped_to_t():
    w = window()
    w.hops = [IntHop(0, 0, 0, 400e9), IntHop(0, 0, 0, 100e9)]
    # hop 0: 400G, 12,800 B in 2,000 ns -> 6.4 B/ns of 50 -> 0.128; hop 1: 100G, tau 20,000 > T,
    # 249,856 B (488 x 512) -> 12.4928 B/ns -> 0.999424 (its queue of min(0, .) = 0 adds nothing)
    u = w.measure_inflight([IntHop(1024, 12_800, 2_000, 400e9), IntHop(0, 249_856, 20_000, 100e9)])
    assert u == pytest.approx(0.999424)       # tau clamped to T: U is that hop's u' alone


def test_a_hop_whose_timestamp_did_not_move_counts_only_its_queue_and_weighs_nothing():
    w = window()
    w.hops = [IntHop(12_800, 0, 5, 100e9)]
    assert w.measure_inflight([IntHop(12_800, 512, 5, 100e9)]) == pytest.approx(1.0)


@pytest.mark.parametrize("u, stage, want_w, want_stage", [
    (0.95, 2, 50_000 + 100, 0),                       # U exactly eta: multiplicative, Wc / 1 + W_AI
    (0.96, 2, 50_000 * 0.95 / 0.96 + 100, 0),          # above: multiplicative decrease
    (0.9499, 2, 50_000 + 100, 3),                     # below: additive, one more stage
    (0.5, 4, 50_000 + 100, 5),                        # below, one stage short of maxStage: additive
    (0.5, 5, 50_000 * 0.95 / 0.5 + 100, 0),            # at maxStage: multiplicative (an increase)
])
def test_compute_wind_on_and_either_side_of_its_thresholds(u, stage, want_w, want_stage):
    w = window()
    w.wc, w.inc_stage = 50_000.0, stage
    assert w.compute_wind(u, update_wc=False) == pytest.approx(want_w)
    assert (w.wc, w.inc_stage) == (50_000.0, stage)   # the per-ACK form moves neither
    assert w.compute_wind(u, update_wc=True) == pytest.approx(want_w)
    assert w.wc == pytest.approx(want_w) and w.inc_stage == want_stage


def test_window_is_bounded_by_min_rate_and_the_bdp():
    w = window()
    w.wc = 50_000.0
    assert w.compute_wind(1000.0, True) == pytest.approx(1e9 * T / 8e9)   # min rate x T = 1,250 B
    w.wc, w.inc_stage = 120_000.0, 5
    assert w.compute_wind(0.1, True) == 125_000                            # not above W_init
    w.inc_stage = 5
    assert w.compute_wind(0.0, True) == 125_000                            # idle path: W_init
    w.wc, w.inc_stage = 124_950.0, 0
    assert w.compute_wind(0.1, True) == 125_000                            # additive, also bounded


def _hops(ts: int, tx: int, qlen: int = 0) -> list[IntHop]:
    return [IntHop(qlen, tx, ts, 100e9)]


def test_new_ack_per_rtt_and_per_ack_updates_and_rate_is_w_over_t():
    w = window()
    assert not w.on_ack(_hops(0, 0), ack_seq=1, snd_nxt=10)     # first ACK: L stored, nothing else
    assert w.window == 125_000 and w.last_update_seq == 10
    # ACK for seq 5 <= lastUpdateSeq 10: per-ACK (fast react); a 100 % busy link with 12,800 B
    # queued (U = 0.5 x 1 + 0.5 x (1 + 0 (min with the stored 0 queue)) = 1.0)
    w.on_ack(_hops(5_000, 62_464 + 512, 12_800), ack_seq=5, snd_nxt=12)
    u = 0.5 * 1.0 + 0.5 * ((62_464 + 512) / 5_000 / 12.5)
    assert w.u == pytest.approx(u)
    assert w.window == pytest.approx(125_000 * 0.95 / u + 100)
    assert (w.wc, w.inc_stage, w.last_update_seq) == (125_000, 0, 10)
    assert w.rate_bps == pytest.approx(w.window * 8e9 / T)
    # ACK for 11 > 10: per-RTT update from Wc, which it then moves; lastUpdateSeq = snd_nxt
    w.on_ack(_hops(10_000, 2 * 62_464, 12_800), ack_seq=11, snd_nxt=20)
    assert w.wc == pytest.approx(w.window) and w.last_update_seq == 20 and w.updates == {"per_rtt": 1, "per_ack": 1}


def test_without_fast_react_acks_inside_the_rtt_change_nothing():
    w = window(fast_react=False)
    w.on_ack(_hops(0, 0), 1, 10)
    assert not w.on_ack(_hops(5_000, 62_464, 12_800), 5, 12)
    assert w.window == 125_000 and w.u == 1.0 and w.hops == _hops(0, 0)


def test_int_records_round_trip_at_their_field_widths():
    hops = [IntHop(qlen=256 * ((1 << 17) - 1), tx=512 * ((1 << 20) - 1), ts=(1 << 24) - 1, rate_bps=400e9),
            IntHop(qlen=0, tx=0, ts=0, rate_bps=25e9)]
    raw = pack_int_header(hops)
    assert len(raw) == INT_HEADER_BYTES == 2 + 5 * 8 and raw[0] == 2
    # the first record's bits by hand: rate code 4 (3 bits), then 24, 20 and 17 ones
    assert raw[2:10] == ((4 << 61) | ((1 << 61) - 1)).to_bytes(8, "big")
    assert parse_int_header(raw) == hops
    # deltas wrap at the field widths: 2^24 ns and 2^20 units of 512 B
    assert hops[1].ts_delta(hops[0]) == 1 and hops[1].tx_delta(hops[0]) == 512
    assert IntHop(10 ** 9, 0, 0, 100e9).encode() & ((1 << 17) - 1) == (1 << 17) - 1   # the queue saturates
    assert parse_int_header(bytes([6]) + bytes(41)) is None                      # more hops than room
    assert parse_int_header(raw[:-1]) is None
    assert parse_int_header(bytes([1, 0]) + (7 << 61).to_bytes(8, "big") + bytes(32)) is None  # no rate 7


def test_profiles_carry_the_published_values():
    paper, ns3 = PROFILES["hpcc-paper"], PROFILES["hpcc-ns3"]
    assert (paper.eta, paper.max_stage, paper.fast_react) == (0.95, 5, True)
    assert (ns3.eta, ns3.max_stage, ns3.r_ai_bps, ns3.min_rate_bps) == (0.95, 0, 10e6 * 100 / 25, 1e9)
    with pytest.raises(ValueError):
        HpccParams(eta=0)
