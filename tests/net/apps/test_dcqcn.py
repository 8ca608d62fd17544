"""DCQCN: the reaction point's rate arithmetic, and the RP/NP on real hosts (CNP pacing,
CNP format, rate cuts applied to the sender's pacing)."""
from __future__ import annotations

import pytest

from dataplane.net.apps.dcqcn import (
    CNP_TOS,
    OP_CNP,
    OP_SEND_ONLY,
    ROCE_PORT,
    DcqcnParams,
    DcqcnRateControl,
    DcqcnReceiver,
    DcqcnSender,
    RoceEndpoint,
    cnp_payload,
    data_frame_len,
    parse_bth,
)
from dataplane.net.hosts import packets as pk

LINE = 100e9
G = 1 / 256


def rc(**kw) -> DcqcnRateControl:
    return DcqcnRateControl(LINE, DcqcnParams(**kw))


# ---- rate control arithmetic -------------------------------------------------------------------

def test_defaults_are_htsims():
    p = DcqcnParams()
    assert (p.g, p.alpha_init, p.rate_timer_ns, p.alpha_timer_ns) == (1 / 256, 1.0, 55_000, 55_000)
    assert (p.byte_counter, p.fast_recovery_steps, p.cnp_interval_ns) == (10_000_000, 5, 50_000)
    c = rc()
    assert (c.rc, c.rt, c.alpha) == (LINE, LINE, 1.0)
    assert (c.rai, c.rhai) == (LINE / 20, LINE / 10)


def test_cnp_cuts_by_half_alpha_and_raises_alpha():
    c = rc()
    c.on_cnp()
    assert c.rt == LINE and c.rc == LINE / 2           # RC * (1 - 1/2)
    assert c.alpha == pytest.approx((1 - G) * 1.0 + G)  # = 1.0
    c.alpha = 0.5
    c.on_cnp()
    assert c.rt == LINE / 2 and c.rc == pytest.approx(LINE / 2 * 0.75)
    assert c.alpha == pytest.approx(0.5 * (1 - G) + G)
    assert (c.t, c.bc, c.byte_acc, c.cnps) == (0, 0, 0, 2)


def test_alpha_before_cut_orders_the_update_as_ns3_rdma_does():
    paper, ns3 = rc(alpha_init=0.5), rc(alpha_init=0.5, alpha_before_cut=True)
    paper.on_cnp()
    ns3.on_cnp()
    alpha = 0.5 * (1 - G) + G
    assert paper.rc == pytest.approx(LINE * (1 - 0.5 / 2))     # cut with the old alpha, then raise it
    assert ns3.rc == pytest.approx(LINE * (1 - alpha / 2))      # raise alpha, cut with the new one
    assert paper.alpha == pytest.approx(alpha) == ns3.alpha


def test_alpha_decays_by_one_minus_g_per_timer():
    c = rc()
    for _ in range(256):
        c.on_alpha_timer()
    assert c.alpha == pytest.approx((1 - G) ** 256)     # ~ 1/e after 256 periods
    assert c.rc == LINE                                 # the alpha timer never changes the rate


def test_fast_recovery_then_additive_increase():
    c = rc()
    c.on_cnp()                                           # RT 100G, RC 50G
    for k in range(1, 6):                                # F = 5 fast-recovery steps: halve the gap to RT
        c.on_rate_timer()
        assert c.rt == LINE
        assert c.rc == pytest.approx(LINE - (LINE / 2) / 2 ** k)
    assert c.events == {"fast_recovery": 5, "additive": 0, "hyper": 0}
    c.on_cnp()                                           # from RC = 98.4375G
    rt, rc0 = c.rt, c.rc
    for _ in range(5):
        c.on_rate_timer()
    before = c.rc
    c.on_rate_timer()                                    # T = 6 > F, BC = 0: additive
    assert c.rt == pytest.approx(min(LINE, rt + LINE / 20))
    assert c.rc == pytest.approx(min(LINE, (c.rt + before) / 2))
    assert c.events["additive"] == 1 and rc0 < before


def test_target_rate_clamping_on_a_run_of_cnps():
    """Clamped (paper, htsim, ns3-rdma): every CNP sets RT to RC. Not clamped (Mellanox's
    default, HPCC's CLAMP_TARGET_RATE 0): a CNP with no rate increase since the last one keeps RT
    at the rate before the episode; one after a timer (or byte-counter) increase moves RT to RC."""
    clamped, nic = rc(), rc(clamp_target_rate=False)
    for c in (clamped, nic):
        c.on_cnp()                                       # RC 50G; RT = 100G (the initial rate)
        c.on_cnp()                                       # no increase in between
    assert clamped.rt == LINE / 2 and nic.rt == LINE
    assert clamped.rc == nic.rc
    nic.on_rate_timer()                                  # a timer increase, then a CNP: RT <- RC
    rc_before = nic.rc
    nic.on_cnp()
    assert nic.rt == rc_before
    no_time = rc(clamp_target_rate=False, clamp_target_rate_after_time_inc=False, byte_counter=1000)
    no_time.on_cnp()
    no_time.on_cnp()
    no_time.on_rate_timer()                              # a timer increase alone does not move RT ...
    rt_kept = no_time.rt
    no_time.on_cnp()
    assert no_time.rt == rt_kept == LINE
    no_time.on_bytes_sent(1000)                          # ... a byte-counter one does
    rc_before = no_time.rc
    no_time.on_cnp()
    assert no_time.rt == rc_before


def test_ns3_rdma_pulls_a_far_target_down_on_the_first_increase():
    c = rc(rt_pull_down_ratio=10.0)
    c.rc, c.rt = 1e9, 40e9                               # after deep cuts: RT 40x RC
    c.on_rate_timer()                                    # T = 1: RT / 8 = 5G, RC = (5G + 1G) / 2
    assert c.rt == pytest.approx(5e9) and c.rc == pytest.approx(3e9)
    c.on_rate_timer()                                    # T = 2: plain fast recovery
    assert c.rt == pytest.approx(5e9) and c.rc == pytest.approx(4e9)
    plain = rc()
    plain.rc, plain.rt = 1e9, 40e9
    plain.on_rate_timer()
    assert plain.rt == 40e9 and plain.rc == pytest.approx(20.5e9)


def test_additive_increase_from_a_low_rate():
    c = rc(rai_bps=1e9)
    c.rc, c.rt = 10e9, 12e9
    c.t = 5
    c.on_rate_timer()                                    # T = 6: RT += 1G, RC = (RT + RC) / 2
    assert c.rt == pytest.approx(13e9) and c.rc == pytest.approx(11.5e9)


def test_hyper_increase_needs_both_counters_past_f():
    c = rc(byte_counter=1000, rhai_bps=2e9)
    c.rc, c.rt = 10e9, 10e9
    c.t = 7
    fired = c.on_bytes_sent(7 * 1000)                    # BC 1..7; each event increases
    assert fired == 7
    # BC 1..5: max(T, BC) = 7 > F and min <= F: additive (RT += 5G each);
    # BC 6, 7: min(T=7, BC) > F: hyper with (min - F) * R_HAI = 1 * 2G, then 2 * 2G.
    assert c.events == {"fast_recovery": 0, "additive": 5, "hyper": 2}
    assert c.rt == pytest.approx(10e9 + 5 * 5e9 + 1 * 2e9 + 2 * 2e9)
    rc_expected, rt = 10e9, 10e9
    for step in [5e9] * 5 + [2e9, 4e9]:
        rt += step
        rc_expected = (rt + rc_expected) / 2
    assert c.rc == pytest.approx(rc_expected)


def test_hyper_halving_runs_the_counters_twice_as_fast_in_hyper_as_ns3_rdma_does():
    """ns3-rdma rpr_hyper_time/rpr_hyper_byte: an event that finds the flow in hyper increase
    re-arms the timer for RP_TIMER / 2 and the byte counter for B / 2; the event that moves the
    flow into hyper, and a CNP, leave or restore the full values."""
    c = rc(byte_counter=1000, fast_recovery_steps=1, rate_timer_ns=60_000, hyper_halving=True)
    c.rc = c.rt = 10e9
    c.on_cnp()
    assert c.on_bytes_sent(2000) == 2                    # BC 1: fast recovery, BC 2: additive
    c.on_rate_timer()                                    # T 1: max(T, BC) > F, min = 1: additive
    assert (c.hyper, c.rate_period_ns, c.byte_threshold) == (False, 60_000, 1000)
    c.on_rate_timer()                                    # T 2: min(2, 2) > F: enters hyper
    assert c.hyper and c.events["hyper"] == 1
    assert c.rate_period_ns == 60_000                    # this event found the flow in additive
    c.on_rate_timer()                                    # T 3, already hyper: half the period
    assert c.rate_period_ns == 30_000
    assert c.on_bytes_sent(1000) == 1 and c.byte_threshold == 500
    assert c.on_bytes_sent(500) == 1 and c.bc == 4       # now every 500 bytes
    c.on_cnp()
    assert (c.hyper, c.rate_period_ns, c.byte_threshold) == (False, 60_000, 1000)
    plain = rc(byte_counter=1000, fast_recovery_steps=1, rate_timer_ns=60_000)
    plain.on_cnp()
    plain.on_bytes_sent(2000)
    for _ in range(3):
        plain.on_rate_timer()
    assert plain.hyper and (plain.rate_period_ns, plain.byte_threshold) == (60_000, 1000)


def test_timer_stages_without_a_byte_counter_as_hpccs_mellanox_model():
    """HPCC rdma-hw.cc RateIncEventMlx: T alone picks the phase; F fast-recovery steps, one
    additive step, then hyper steps of a constant R_HAI (not scaled by the count)."""
    c = rc(byte_counter=None, fast_recovery_steps=1, increase_stages="timer", rai_bps=1e9, rhai_bps=3e9)
    c.rc = c.rt = 40e9
    c.on_cnp()                                           # alpha 1: RC 20G, RT 40G
    assert c.on_bytes_sent(10**9) == 0 and c.bc == 0     # no byte counter
    rt, rate = 40e9, 20e9
    for step in (0.0, 1e9, 3e9, 3e9):                    # T 1 FR, T 2 AI, T 3 and T 4 hyper
        c.on_rate_timer()
        rt += step
        rate = (rt + rate) / 2
        assert (c.rt, c.rc) == (pytest.approx(rt), pytest.approx(rate))
    assert c.events == {"fast_recovery": 1, "additive": 1, "hyper": 2}
    with pytest.raises(ValueError):
        DcqcnParams(increase_stages="bytes")


def test_byte_counter_counts_bytes_between_events():
    c = rc(byte_counter=10_000)
    c.on_cnp()
    assert c.on_bytes_sent(9_999) == 0 and c.bc == 0
    assert c.on_bytes_sent(1) == 1 and c.bc == 1 and c.byte_acc == 0
    assert c.on_bytes_sent(25_000) == 2 and c.bc == 3 and c.byte_acc == 5_000
    c.on_cnp()
    assert c.bc == 0 and c.byte_acc == 0


def test_rate_is_capped_at_line_rate_and_floored_at_min_rate():
    c = rc(min_rate_bps=1e9)
    for _ in range(20):
        c.on_cnp()
    assert c.rc == 1e9
    c.alpha = 0.0
    for _ in range(200):
        c.on_rate_timer()
    assert c.rc == LINE and c.rt == LINE
    before = dict(c.events)
    c.on_rate_timer()                                    # at line rate nothing more happens
    assert c.events == before and c.rc == LINE


def test_initial_rate_and_overrides():
    c = rc(initial_rate_bps=25e9, rai_bps=123.0, rhai_bps=456.0)
    assert (c.rc, c.rt, c.rai, c.rhai) == (25e9, 25e9, 123.0, 456.0)
    assert DcqcnParams().with_(g=1 / 16).g == 1 / 16
    with pytest.raises(ValueError):
        DcqcnRateControl(0)


# ---- on hosts ----------------------------------------------------------------------------------

def data_payload(qp: int, psn: int = 0, size: int = 64) -> bytes:
    import struct
    return struct.pack("!BBHII", OP_SEND_ONLY, 0, 0xFFFF, qp, psn) + bytes(size) + bytes(4)


def test_cnp_wire_format():
    p = cnp_payload(0x123456)
    assert len(p) == 12 + 16 + 4
    assert parse_bth(p) == (OP_CNP, 0x123456, 0)
    assert parse_bth(b"\x81") is None
    assert data_frame_len(1024) == 14 + 20 + 8 + 12 + 1024 + 4


def test_np_sends_at_most_one_cnp_per_interval_per_flow(pair):
    sim, h1, h2, _ = pair(static_arp=True, rate_bps=100_000_000_000)
    rx = DcqcnReceiver(h2, qpn=1)
    frames = []
    h1.on_receive(lambda f, t: frames.append((t, f)) and False)
    RoceEndpoint.of(h1)
    # CE-marked packets from two flows (source ports 5000, 5001) every 10 us for 200 us.
    for i in range(21):
        for sport in (5000, 5001):
            sim.at(i * 10_000, h1.send_udp, h2.ip, sport, ROCE_PORT, data_payload(1, i), pk.ECN_CE)
    sim.run(1_000_000)
    assert rx.stats["ce_marked"] == 42
    # One CNP at the first mark, then one whenever a mark arrives >= 50 us after the last CNP.
    assert [f.cnps_sent for f in rx.flows.values()] == [5, 5]
    cnps = [(t, f) for t, f in frames if f[12:14] == b"\x08\x00"]
    assert len(cnps) == 10
    ip = pk.parse_ipv4(cnps[0][1][14:])
    udp = pk.parse_udp(ip.payload)
    assert ip.tos == CNP_TOS and ip.tos & 3 == pk.ECN_NOT_ECT
    assert (udp.dst_port, parse_bth(udp.payload)[:2]) == (ROCE_PORT, (OP_CNP, 5000))
    times = sorted(t for t, f in cnps if parse_bth(pk.parse_udp(pk.parse_ipv4(f[14:]).payload).payload)[1] == 5000)
    assert all(b - a >= 50_000 for a, b in zip(times, times[1:]))


def test_np_deferred_cnp_mode(pair):
    """With cnp_defer (htsim's sink), marks inside the interval send one CNP when it ends."""
    sim, h1, h2, _ = pair(static_arp=True, rate_bps=100_000_000_000)
    rx = DcqcnReceiver(h2, qpn=1, params=DcqcnParams(cnp_defer=True))
    RoceEndpoint.of(h1)
    for t in (0, 10_000, 20_000):
        sim.at(t, h1.send_udp, h2.ip, 5000, ROCE_PORT, data_payload(1), pk.ECN_CE)
    sim.run(1_000_000)
    assert rx.stats["cnps_sent"] == 2                    # at the first mark, and at +50 us for the others


def test_no_cnp_without_ce_or_when_notification_is_off(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    rx = DcqcnReceiver(h2, qpn=1, notify=False)
    for tos in (pk.ECN_ECT0, pk.ECN_CE):
        h1.send_udp(h2.ip, 5000, ROCE_PORT, data_payload(1), tos)
    sim.run(1_000_000)
    assert rx.stats["received"] == 2 and rx.stats["ce_marked"] == 1 and rx.stats["cnps_sent"] == 0


def test_sender_paces_at_line_rate_and_delivers_everything(pair):
    sim, h1, h2, _ = pair(static_arp=True, rate_bps=100_000_000_000, capacity=1000)
    rx = DcqcnReceiver(h2)
    tx = DcqcnSender(h1, h2.ip, 1_000_000, payload_bytes=1000)
    sim.run(10_000_000)
    flow = rx.flows[tx.key]
    assert tx.done and flow.packets == tx.n_packets == 1000 and flow.bytes == 1_000_000
    assert flow.max_psn == 999 and flow.lost == 0
    # Back to back: 1000 frames of data_frame_len(1000) bytes, each with its FCS (4), preamble +
    # SFD (8) and gap (12) on the wire, at 100 Gb/s.
    wire_ns = (data_frame_len(1000) + 4 + 8 + 12) * 8 / 100
    assert flow.last_ns - flow.first_ns == pytest.approx(999 * wire_ns, rel=0.01)
    assert tx.rate_log == [(0, 100e9)]


def test_cnps_cut_the_senders_pacing_and_rate_recovers(pair):
    sim, h1, h2, _ = pair(static_arp=True, rate_bps=100_000_000_000, capacity=1000)
    rx = DcqcnReceiver(h2)
    tx = DcqcnSender(h1, h2.ip, 5_000_000, payload_bytes=1000)
    # Two CNPs from the receiver host (as its NP would send them) at 10 us and 12 us.
    for t in (10_000, 12_000):
        sim.at(t, h2.send_udp, h1.ip, ROCE_PORT, ROCE_PORT, cnp_payload(tx.qpn), CNP_TOS)
    sim.run(60_000)
    assert tx.stats["cnps"] == 2 and tx.cc.cnps == 2
    assert tx.rate_bps == pytest.approx(25e9, rel=0.01)  # 100 -> 50 -> 25 Gb/s (alpha stays ~1)
    arrivals = rx.flows[tx.key].arrivals
    late = [b - a for a, b in zip(arrivals, arrivals[1:]) if a > 30_000]
    assert sum(late) / len(late) == pytest.approx((data_frame_len(1000) + 4 + 8 + 12) * 8 / 25, rel=0.02)
    sim.run(2_000_000)                                   # 55 us timers: fast recovery, then additive
    assert tx.cc.events["fast_recovery"] == 5 and tx.cc.events["additive"] >= 1
    assert tx.rate_log[-1][1] > 50e9


def test_fixed_rate_sender_ignores_cnps(pair):
    sim, h1, h2, _ = pair(static_arp=True, rate_bps=100_000_000_000, capacity=1000)
    DcqcnReceiver(h2)
    tx = DcqcnSender(h1, h2.ip, 100_000, payload_bytes=1000, cc=False, ect=False)
    sim.at(1_000, h2.send_udp, h1.ip, ROCE_PORT, ROCE_PORT, cnp_payload(tx.qpn), CNP_TOS)
    sim.run(1_000_000)
    assert tx.stats["ignored_cnps"] == 1 and tx.rate_bps == 100e9 and tx.tos == pk.ECN_NOT_ECT


def test_unknown_qp_is_counted(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    DcqcnReceiver(h2, qpn=7)
    h1.send_udp(h2.ip, 5000, ROCE_PORT, data_payload(8), pk.ECN_ECT0)
    h1.send_udp(h2.ip, 5000, ROCE_PORT, b"\x04", pk.ECN_ECT0)
    sim.run(1_000_000)
    ep = RoceEndpoint.of(h2)
    assert ep.stats["unknown_qp"] == 1 and ep.stats["malformed"] == 1
    with pytest.raises(ValueError):
        DcqcnReceiver(h2, qpn=7)


def test_sender_rearms_its_rate_timer_with_the_halved_period_in_hyper(pair):
    sim, h1, h2, _ = pair(static_arp=True, rate_bps=100_000_000_000, capacity=1000)
    DcqcnReceiver(h2)
    params = DcqcnParams(rate_timer_ns=60_000, alpha_timer_ns=10**9, fast_recovery_steps=1, byte_counter=None,
                         increase_stages="timer", hyper_halving=True, rai_bps=1e9, rhai_bps=1e9)
    tx = DcqcnSender(h1, h2.ip, 5_000_000, payload_bytes=1000, params=params)
    sim.at(10_000, h2.send_udp, h1.ip, ROCE_PORT, ROCE_PORT, cnp_payload(tx.qpn), CNP_TOS)
    sim.run(400_000)
    times = [t for t, _ in tx.rate_log if t > 10_000]     # the cut, then each timer event
    # FR, AI, the event entering hyper and the first one in it come a full period apart; that one
    # found the flow in hyper, so from there on every half period.
    assert [b - a for a, b in zip(times, times[1:])][:6] == [60_000] * 4 + [30_000] * 2



def test_periodic_decrease_and_alpha_ticks_as_hpccs_mellanox_model(pair):
    """rate_decrease_interval_ns (HPCC rdma-hw.cc cnp_received_mlx / CheckRateDecreaseMlx /
    UpdateAlphaMlx): CNPs only set flags; the first starts an alpha tick and a decrease check
    (1 ns after it) from its arrival; each check cuts once if a CNP came since the last one,
    with alpha as its own tick left it."""
    sim, h1, h2, _ = pair(static_arp=True, rate_bps=100_000_000_000, capacity=1000)
    DcqcnReceiver(h2)
    params = DcqcnParams(g=1 / 16, alpha_timer_ns=10_000, rate_decrease_interval_ns=10_000, rate_timer_ns=10**9)
    tx = DcqcnSender(h1, h2.ip, 5_000_000, payload_bytes=1000, params=params)
    for t in (10_000, 22_000, 24_000):
        sim.at(t, h2.send_udp, h1.ip, ROCE_PORT, ROCE_PORT, cnp_payload(tx.qpn), CNP_TOS)
    sim.run(70_000)
    (t0, r0), *cuts = tx.rate_log
    arrival = cuts[0][0] - 10_001                        # the first CNP's arrival (just after 10 us)
    assert (t0, r0) == (0, 100e9) and 10_000 < arrival < 12_000
    # Rate unchanged until the first check; it cuts for the first CNP, the next for the CNPs at
    # 22/24 us; the checks after that find no CNP and cut nothing.
    assert [t - arrival for t, _ in cuts] == [10_001, 20_001] and tx.cc.cnps == 2
    g = 1 / 16
    alpha = 1 - g                                        # set to 1 at the first CNP, no CNP in its first tick
    rate = 100e9 * (1 - alpha / 2)
    assert cuts[0][1] == pytest.approx(rate)
    alpha = (1 - g) * alpha + g                          # the second tick saw the CNPs at 22/24 us
    assert cuts[1][1] == pytest.approx(rate * (1 - alpha / 2))


def test_a_flows_bins_are_its_bytes_by_arrival_bin_and_follow_new_arrivals():
    """``RoceFlowStats.bins`` (made when read) sums each packet's bytes into bin arrival // bin_ns,
    bins in arrival order, and a read after more packets arrived counts them too."""
    from dataplane.net.apps.dcqcn_np import RoceFlowStats

    rec = RoceFlowStats(1, 2, bin_ns=100)
    for t, n in ((0, 10), (99, 5), (100, 7), (250, 1)):
        rec.arrivals.append(t)
        rec.sizes.append(n)
    assert rec.bins == {0: 15, 1: 7, 2: 1} and list(rec.bins) == [0, 1, 2]
    rec.arrivals.append(299)
    rec.sizes.append(4)
    rec.arrivals.append(300)
    rec.sizes.append(2)
    assert rec.bins == {0: 15, 1: 7, 2: 5, 3: 2}
