"""programs/ecn.p4 beyond its STF tests: the RED ramp's probability inside the band, and the
queue depth in bytes that dataplane.net.devices.queue_bytes publishes to it inside a fabric."""
from __future__ import annotations

import math

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.switch import Switch
from dataplane.net.apps.dcqcn import DcqcnReceiver, DcqcnSender
from dataplane.net.devices.queue_bytes import QueueSampler, attach_queue_bytes, find_register, percentile
from dataplane.net.hosts import packets as pk
from dataplane.resources import builtin_program
from dataplane.scenarios.incast import IncastConfig, build_network

KMIN, KMAX = 100_000, 300_000


def red_switch(pmax: float) -> Switch:
    sw = Switch.from_file(builtin_program("ecn"), seed=7)
    sw.table_add("ipv4_lpm", "set_nhop", ["10.0.1.0/24"], {"dmac": "08:00:00:00:01:11", "port": 1})
    sw.table_set_default("ecn_profile", "ecn_red", {"kmin": KMIN, "kmax": KMAX, "pmax": round(pmax * 65536)})
    return sw


def marked_fraction(sw: Switch, q: int, n: int, tos: int = pk.ECN_ECT0) -> float:
    sw.register_write("queue_bytes", 1, q)
    frame = bytes(Ether() / IP(dst="10.0.1.5", tos=tos) / UDP())
    marks = 0
    for _ in range(n):
        (out,) = sw.send(0, frame)
        marks += out.data[15] & 3 == pk.ECN_CE
    return marks / n


@pytest.mark.parametrize("pmax,frac", [(0.2, 0.5), (1.0, 0.25), (1.0, 0.75), (0.01, 0.9)])
def test_red_marks_with_pmax_times_position_in_the_band(pmax, frac):
    n = 4000
    p = pmax * frac
    got = marked_fraction(red_switch(pmax), int(KMIN + frac * (KMAX - KMIN)), n)
    assert abs(got - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-9


def test_red_never_marks_not_ect_and_counts_its_marks():
    sw = red_switch(1.0)
    assert marked_fraction(sw, KMAX * 10, 50, tos=pk.ECN_NOT_ECT) == 0.0
    assert marked_fraction(sw, KMAX * 10, 50, tos=pk.ECN_ECT1) == 1.0
    assert sw.counter_read("ce_marked", 1)[0] == 50


def test_fabric_publishes_the_egress_byte_depth_and_marks_from_it():
    """Two line-rate ECT senders (no congestion control) into one 100 Gb/s port with a DCTCP
    step at K: the register the egress pipeline reads is the port's byte backlog at that
    dequeue, and a packet leaves CE-marked exactly when that backlog is >= K."""
    K = 40_000
    cfg = IncastConfig(senders=2, mode="ecn", kmin_bytes=K, kmax_bytes=K, buffer_bytes=4_000_000)
    net, receiver, senders, bottleneck = build_network(cfg)
    leaf1 = net.switch("leaf1")
    reg = find_register(leaf1, "queue_bytes")
    assert reg is not None and attach_queue_bytes(net) == []   # build_network attached it already
    seen = []
    inner = leaf1.dequeue

    def spy(port, item, enq_time, enq_depth):
        backlog = port.queue_bytes
        data = inner(port, item, enq_time, enq_depth)
        if port is bottleneck and data is not None and data[23] == pk.PROTO_UDP:
            seen.append((backlog, reg.values[port.number], data[15] & 3))
        return data

    leaf1.dequeue = spy
    rx = DcqcnReceiver(receiver, notify=False)
    for h in senders:
        DcqcnSender(h, receiver.ip, 400_000, payload_bytes=1024, cc=False)
    sampler = QueueSampler(net.sim, bottleneck, 1_000)
    net.run(10_000_000)
    assert len(seen) == sum(f.packets for f in rx.flows.values()) == 2 * 391
    assert all(backlog == value for backlog, value, _ in seen)
    assert all((ecn == pk.ECN_CE) == (value >= K) for _, value, ecn in seen)
    marked = sum(ecn == pk.ECN_CE for _, _, ecn in seen)
    assert 0 < marked < len(seen) and rx.stats["ce_marked"] == marked
    # Two 100 Gb/s senders into one 100 Gb/s port: the backlog grows to about one transfer.
    peak = max(v for _, v, _ in seen)
    assert 350_000 < peak < 450_000
    # The 1 us sampler sees the same queue, to within what 100 Gb/s moves in 1 us (12.5 KB) and a frame.
    assert abs(max(sampler.bytes) - peak) <= 12_500 + 1_100
    assert percentile([1, 2, 3, 4], 50) == 2 and percentile([], 99) == 0
