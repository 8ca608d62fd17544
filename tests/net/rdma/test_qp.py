"""The RDMA-style reliable connection: in-order delivery over loss (go-back-N), acknowledgements
and NAKs as RoCE sends them, line-rate pacing through the NIC, timeouts, windows, DCQCN."""
from __future__ import annotations

import os

import pytest

from dataplane.net.apps.dcqcn_rate import DcqcnParams
from dataplane.net.core.sim import Simulator
from dataplane.net.rdma import QueuePair, TransportConfig, wire
from dataplane.testing.rdma_pair import IP1, RATE, qp_pair


def pair(loss: float = 0.0, seed: int = 0, config: TransportConfig | None = None, keep_data: bool = True):
    """h1 -- h2 back to back at 100 Gb/s, 1 us; QP 10 on h1 to QP 20 on h2; h2 keeps what arrives."""
    net = qp_pair(Simulator(seed), config or TransportConfig(), latency_ns=1_000, loss=loss, keep_data=keep_data)
    return net.sim, net.links[0], net.a, net.b, net.got


def line_ns(payload: int) -> float:
    """Line time of one data frame: payload + BTH 12 + ICRC 4 + UDP 8 + IPv4 20 + Ethernet 14, then
    FCS 4, preamble 8, gap 12 (IEEE 802.3; RoCEv2 annex A17)."""
    return (payload + 12 + 4 + 8 + 20 + 14 + 4 + 8 + 12) * 8e9 / RATE


def test_messages_arrive_whole_and_in_order_and_complete_when_acknowledged():
    sim, _, a, b, got = pair()
    msgs = [os.urandom(n) for n in (1, 4095, 4096, 4097, 100_000)] + [b""]
    done: list[int] = []
    for m in msgs:
        a.post_send(len(m), m, on_complete=done.append)
    sim.run()
    assert [d for _, d, _ in got] == msgs
    assert len(done) == len(msgs) and done == sorted(done)
    # a message completes after its last packet arrived (one ACK's way back later)
    assert all(t_done > t_got for t_done, (t_got, _, _) in zip(done, got))
    assert a.stats.retransmitted == 0 and b.stats.out_of_sequence == 0


def test_a_long_message_leaves_at_line_rate():
    """1,000 full packets back to back: the last arrives one train of line times after the first left."""
    sim, _, a, _, got = pair(keep_data=False)
    a.post_send(4096 * 1000)
    sim.run()
    t, _, n = got[0]
    assert n == 4096 * 1000
    ideal = 1000 * line_ns(4096) + 1_000
    assert ideal <= t <= ideal + 1000 * 0.01 + 20       # the NIC adds no gap between frames


def test_go_back_n_recovers_every_loss_and_keeps_order():
    sim, _, a, b, got = pair(loss=0.05, seed=3, config=TransportConfig(mtu=1000))
    msgs = [os.urandom(k * 997) for k in range(1, 60)]
    for m in msgs:
        a.post_send(len(m), m)
    sim.run()
    assert [d for _, d, _ in got] == msgs
    assert a.stats.retransmitted > 0 and a.stats.naks_received > 0
    # one NAK per gap: never more NAKs than out-of-sequence arrivals, and fewer when gaps run long
    assert b.stats.naks_sent <= b.stats.out_of_sequence
    assert b.stats.naks_sent == a.stats.naks_received or a.stats.timeouts > 0


def test_a_lost_last_packet_is_sent_again_after_the_timeout():
    """With nothing after it, a lost last packet draws no NAK: only the timer recovers it."""
    sim, link, a, b, got = pair(config=TransportConfig(rto_ns=50_000))
    drops = {"left": 1}
    send = a.host.send_udp

    def lose_first(*args):        # the packet is lost on the wire: the sender thinks it left
        if drops["left"]:
            drops["left"] -= 1
            return True
        return send(*args)
    a.host.send_udp = lose_first
    a.post_send(100)
    sim.run()
    assert len(got) == 1 and a.stats.timeouts == 1
    # the resend leaves when the timer fires, 50 us after the first try
    assert 50_000 < got[0][0] < 50_000 + 2_000


def test_duplicates_are_dropped_and_acknowledged_again_when_asked():
    sim, _, a, b, got = pair()
    # the same PSN twice (as after a timeout whose ACK was lost): the second is a duplicate
    payload = wire.data_header(wire.OP_SEND_ONLY, 20, 0, True) + b"xyz" + wire.ICRC
    b.on_data(IP1, 50000, 0, payload, 0, 0)
    b.on_data(IP1, 50000, 0, payload, 0, 0)
    assert len(got) == 1 and b.stats.duplicates == 1 and b.stats.acks_sent == 2


def test_the_window_bounds_packets_in_flight():
    sim, _, a, b, got = pair(config=TransportConfig(window=4))
    a.post_send(4096 * 40)
    peak = 0

    def watch():
        nonlocal peak
        peak = max(peak, a._next - a._una)
        if not got:
            sim.schedule(100, watch)
    sim.schedule(0, watch)
    sim.run()
    assert got and peak == 4


def test_psn_serial_arithmetic_across_the_wrap():
    assert wire.psn_delta(0, (1 << 24) - 1) == 1            # 0 follows 2^24 - 1
    assert wire.psn_delta((1 << 24) - 1, 1 << 24) == -1     # one behind, across the wrap
    assert wire.psn_delta(5, 5) == 0
    assert wire.psn_delta((5 + (1 << 23) - 1) & wire.PSN_MASK, 5) == (1 << 23) - 1
    assert wire.psn_delta((5 + (1 << 23)) & wire.PSN_MASK, 5) == -(1 << 23)


@pytest.mark.parametrize("defer, cnps", [(False, 1), (True, 2)])
def test_ce_marks_draw_one_cnp_per_interval_and_cnps_cut_the_rate(defer, cnps):
    """Three CE marks inside one interval: one CNP at once, and (deferring, as htsim) one more when
    the interval ends; each CNP cuts the sender's rate, which then recovers to line rate."""
    params = DcqcnParams(cnp_interval_ns=50_000, cnp_defer=defer)
    sim, _, a, b, _ = pair(config=TransportConfig(dcqcn=params))
    ce = 3
    for k in range(3):
        payload = wire.data_header(wire.OP_SEND_MIDDLE, 20, k, False) + bytes(10) + wire.ICRC
        b.on_data(IP1, 50000, k, payload, ce, 0)
    assert b.stats.cnps_sent == 1
    cut = []
    sim.schedule(40_000, lambda: cut.append(a.cc.rc))
    sim.run()
    assert b.stats.cnps_sent == cnps and a.stats.cnps_received == cnps
    assert cut[0] < RATE                       # cut by the first CNP
    assert a.cc.rc == RATE                     # the timers ran until the rate came back, then stopped


def test_data_is_ect_with_dcqcn_and_not_ect_without():
    assert QueuePair.__init__  # noqa: B018  (the two configurations below)
    for dcqcn, ecn in ((None, 0), (DcqcnParams(), 2)):
        sim, _, a, _, _ = pair(config=TransportConfig(dcqcn=dcqcn))
        assert a.tos & 3 == ecn


@pytest.mark.parametrize("ack_dscp, acks", [(None, 10), (48, 48), (0, 0), (63, 63)])
def test_acks_take_ack_dscp_and_data_keeps_dscp(ack_dscp, acks):
    sim, _, a, b, _ = pair(config=TransportConfig(dscp=10, ack_dscp=ack_dscp))
    sent: dict[str, set[int]] = {"data": set(), "acks": set()}
    for qp, kind in ((a, "data"), (b, "acks")):
        send = qp.host.send_udp

        def spy(*args, _send=send, _kind=kind):
            sent[_kind].add(args[4] >> 2)        # the ToS's DSCP
            return _send(*args)
        qp.host.send_udp = spy
    a.post_send(100_000, b"\0" * 100_000)
    sim.run()
    assert sent == {"data": {10}, "acks": {acks}}


@pytest.mark.parametrize("bad", [dict(mtu=0), dict(ack_every=0), dict(rto_ns=0), dict(window=0), dict(dscp=64),
                                 dict(ack_dscp=64), dict(ack_dscp=-1)])
def test_transport_settings_are_checked(bad):
    with pytest.raises(ValueError):
        TransportConfig(**bad)
