"""The load-balancing programs' ECN marking by sojourn time (lb_common.p4h's ecn_delay, what
``--lb reps`` runs): a packet leaves CE-marked by how long it waited in its egress queue
(deq_timedelta, whole microseconds), whatever the bytes around it or the port's rate."""
from __future__ import annotations

from dataplane.net.hosts import packets as pk
from dataplane.net.loadbalance.schemes import LbConfig
from dataplane.net.rdma import RdmaNic, TransportConfig
from dataplane.net.rdma.entropy import EntropyParams
from dataplane.net.rdma.qp import QueuePair
from dataplane.scenarios.fabric import FabricConfig, build_fabric

K_US = 6


def test_a_packet_is_marked_exactly_when_it_waited_kmax_microseconds():
    """Leaf-spine, 2 leaves x 1 spine, the leaf1-spine1 link at 40G: leaf1's two hosts send at
    line rate (100G each) to leaf2's, so that queue grows. With kmin = K - 1 and kmax = K the
    ramp is a step at K us of wait: every data packet that waited K us or more is marked, none
    that waited less, and both kinds occur (marking by the bytes waiting, K - 1 and K would be
    bytes, and every packet behind another would be marked)."""
    lb = LbConfig("reps", mark_us=(K_US - 1, K_US))
    fabric = build_fabric(FabricConfig(topology="leaf-spine", leaves=2, spines=1, hosts_per_leaf=2, lb=lb))
    net = fabric.net
    link = net.link("leaf1", "spine1")
    link.rate_bps = 40_000_000_000
    leaf1 = net.switch("leaf1")
    seen = []
    inner = leaf1.dequeue

    def spy(port, item, enq_time, enq_depth):
        wait_us = (net.sim.now - enq_time) // 1000
        data = inner(port, item, enq_time, enq_depth)
        if data is not None and port.peer.node.name == "spine1" and data[23] == pk.PROTO_UDP and len(data) > 1000:
            seen.append((wait_us, data[15] & 3 == pk.ECN_CE))
        return data

    leaf1.dequeue = spy
    config = TransportConfig(receiver="sack", entropy=EntropyParams())
    hosts = fabric.hosts
    for i, (a, b) in enumerate(((0, 2), (1, 3))):
        src, dst = hosts[a], hosts[b]
        tx, rx = RdmaNic.of(src), RdmaNic.of(dst)
        qp = tx.add(QueuePair(tx, 100 + i, dst.ip, 100 + i, config, src_port=50000))
        rx.add(QueuePair(rx, 100 + i, src.ip, 100 + i, config, src_port=50001))
        qp.post_send(400 * 4096)
    net.run()
    assert len(seen) >= 800
    assert all(marked == (wait >= K_US) for wait, marked in seen)
    assert any(marked for _, marked in seen) and any(not marked for _, marked in seen)
