"""HPCC on the RDMA transport (``TransportConfig(hpcc=...)``): two queue pairs into one
receiver through hpcc.p4 switches deliver their messages intact, every ACK brings back the
three hops' records, and HPCC's window closes below the bandwidth-delay product while the
bottleneck queue stays far below what the same queue pairs build without it."""
from __future__ import annotations

import os

import pytest

from dataplane.net.rdma import QueuePair, RdmaNic, TransportConfig
from dataplane.net.rdma.hpcc import PROFILES, with_base_rtt
from dataplane.net.rdma.hpcc_flow import hpcc_frame_len
from dataplane.scenarios.incast import IncastConfig, build_network
from dataplane.scenarios.incast_hpcc import path_times

SIZE = 2_000_000


def incast(hpcc: bool):
    cfg = IncastConfig(senders=2, mode="ecn", cc="hpcc")
    net, receiver, senders, bottleneck = build_network(cfg)
    rtt, _ = path_times(cfg, hpcc_frame_len(4096))
    tc = TransportConfig(ack_every=1, hpcc=with_base_rtt(PROFILES["hpcc-paper"], rtt) if hpcc else None)
    rx, got, qps, peak, least = RdmaNic.of(receiver), {}, [], [0], [float("inf")]
    for i, host in enumerate(senders):
        nic = RdmaNic.of(host)
        qps.append(nic.add(QueuePair(nic, 10 + i, receiver.ip, 20 + i, tc, src_port=50000 + i)))
        rx.add(QueuePair(rx, 20 + i, host.ip, 10 + i, tc, src_port=50100 + i, keep_data=True,
                         on_message=lambda qp, data, n: got.__setitem__(qp.qpn, data)))
    data = [os.urandom(SIZE) for _ in qps]
    for qp, d in zip(qps, data):
        qp.post_send(SIZE, d)

    def sample():
        peak[0] = max(peak[0], bottleneck.queue_bytes)
        if hpcc:
            least[0] = min([least[0]] + [qp.hpcc.window.window for qp in qps])
        if len(got) < len(qps):
            net.sim.schedule(1_000, sample)
    net.sim.schedule(0, sample)
    net.run(50_000_000)
    assert [got.get(20 + i) for i in range(len(qps))] == data
    return qps, peak[0], least[0]


def test_hpcc_queue_pairs_deliver_and_hold_the_queue_down():
    qps, peak, least = incast(hpcc=True)
    plain_peak = incast(hpcc=False)[1]
    for qp in qps:
        w = qp.hpcc.window
        assert qp.hpcc.bad_acks == 0 and len(w.hops) == 3 and w.updates["per_rtt"] > 10
        assert qp.stats.retransmitted == 0
    # two flows into one link: each window goes down to about half the BDP (eta / 2)
    assert least < 0.6 * qps[0].hpcc.window.w_init
    assert peak * 4 < plain_peak
    with pytest.raises(ValueError):
        TransportConfig(hpcc=PROFILES["hpcc-paper"])           # no base RTT


def test_hpcc_takes_the_go_back_n_receiver_only():
    """The selective receiver's blocks and HPCC's echoed records would share the ACK's tail."""
    params = with_base_rtt(PROFILES["hpcc-paper"], 10_000)
    assert TransportConfig(hpcc=params, receiver="gbn").hpcc is params
    with pytest.raises(ValueError, match="go-back-N"):
        TransportConfig(hpcc=params, receiver="sack")
