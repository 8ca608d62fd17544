"""Built-in apps: CBR rate and delay, bulk transfer FCT by hand and over loss, CC hooks, incast,
and determinism (same seed, same frames at the same nanoseconds)."""
from __future__ import annotations

import pytest

from dataplane.net.apps.basic import BulkReceiver, BulkTransfer, Ping, UdpFlow, UdpSink, incast
from dataplane.net.hosts import packets as pk

RATE, LAT = 10_000_000_000, 1_000
IP2 = pk.parse_ip("10.0.0.2")


def wire(nbytes: int) -> int:
    """Line time in bytes of a captured frame on an Ethernet link: FCS (4) with the frame padded
    to 64, then preamble + SFD (8) and the inter-frame gap (12)."""
    return max(nbytes + 4, 64) + 8 + 12


def ser(nbytes: int, rate: int = RATE) -> int:
    return wire(nbytes) * 8 * 1_000_000_000 // rate


def train(n: int, nbytes: int, rate: int = RATE) -> int:
    """Time to serialize ``n`` frames back to back: the link carries sub-ns remainders from
    frame to frame, so a train takes its exact time, rounded down once."""
    return n * wire(nbytes) * 8 * 1_000_000_000 // rate


def test_cbr_flow_rate_and_delay(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    sink = UdpSink(h2, 5001, bin_ns=100_000)
    flow = UdpFlow(h1, IP2, rate_bps=1_000_000_000, size_bytes=1000, start_ns=10_000, duration_ns=1_000_000)
    sim.run()
    assert flow.stats["sent"] == 125                        # one packet per 8 us for 1 ms
    rec = sink.flows[flow.key]
    assert rec.packets == 125 and rec.bytes == 125_000 and rec.lost == 0
    assert rec.rate_bps() == pytest.approx(1e9, rel=1e-12)
    assert set(rec.delays) == {ser(14 + 20 + 8 + 1000) + LAT}   # no queueing at 1 Gb/s on a 10 Gb/s link
    series = sink.throughput_series()
    assert sum(bps for _, bps in series) * 100_000 / 8e9 == 125_000
    full = [bps for t, bps in series if 100_000 <= t < 1_000_000]   # bins the flow covers entirely
    assert all(abs(b - 1e9) <= 0.08e9 for b in full)         # 12 or 13 packets per 100 us bin


def test_cbr_total_bytes_and_rate_rounding(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    sink = UdpSink(h2, 6000)
    flow = UdpFlow(h1, IP2, rate_bps=3_000_000_000, size_bytes=700, total_bytes=7_001, dst_port=6000)
    sim.run()
    assert flow.stats["sent"] == 11                          # rounded up to whole packets
    rec = sink.flows[flow.key]
    # 700 B every 1866.67 ns: send times come from the index, so no drift accumulates.
    assert rec.last_ns - rec.first_ns == 10 * 700 * 8 * 10**9 // 3_000_000_000
    with pytest.raises(ValueError):
        UdpFlow(h1, IP2, 1e9, size_bytes=8)


def test_bulk_transfer_fct_by_hand(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    rx = BulkReceiver(h2, 5002)
    bt = BulkTransfer(h1, IP2, total_bytes=100_000, window_packets=8, mss=1000)
    sim.run()
    data, ack = 14 + 20 + 8 + 16 + 1000, ser(60)             # 865.6 ns and 67.2 ns on the wire
    # The window (8 x 865.6 ns) covers the RTT, so the link never idles: the last segment ends
    # serializing at 100 x 865.6 ns, then one latency there and an ACK back.
    fct = train(100, data) + LAT + ack + LAT
    assert bt.done and bt.stats["fct_ns"] == fct
    assert bt.stats["goodput_bps"] == 100_000 * 8e9 / fct
    assert (bt.stats["sent"], bt.stats["retransmits"], bt.stats["timeouts"]) == (100, 0, 0)
    assert rx.flows[bt.key].bytes == 100_000 and rx.flows[bt.key].done_ns == fct - ack - LAT
    # In steady state a segment waits behind the rest of the window in h1's NIC queue, so the
    # RTT is the window's serialization time, not the bare path RTT (866 + 1000 + 67 + 1000).
    assert train(8, data) <= bt.last_rtt_ns <= train(8, data) + 1


def test_bulk_transfer_stop_and_wait(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    BulkReceiver(h2)
    bt = BulkTransfer(h1, IP2, total_bytes=10_500, window_packets=1, mss=1000, start_ns=5_000)
    sim.run()
    rtt_full = ser(1058) + LAT + ser(60) + LAT
    assert bt.stats["fct_ns"] == 10 * rtt_full + ser(14 + 20 + 8 + 16 + 500) + LAT + ser(60) + LAT


def test_bulk_transfer_over_lossy_link(pair):
    lossless = None
    for loss in (0.0, 0.05):
        sim, h1, h2, link = pair(static_arp=True, loss=loss, seed=7)
        rx = BulkReceiver(h2)
        bt = BulkTransfer(h1, IP2, total_bytes=300_000, window_packets=16, mss=1000, rto_ns=50_000)
        sim.run()
        st = bt.stats
        assert bt.done and rx.flows[bt.key].bytes == 300_000          # everything, in order, exactly once
        assert st["goodput_bps"] == 300_000 * 8e9 / st["fct_ns"]
        if loss == 0:
            lossless = st["fct_ns"]
            assert st["retransmits"] == 0
        else:
            lost = link.a.stats.lost + link.b.stats.lost
            assert lost > 0 and st["timeouts"] > 0 and st["retransmits"] >= link.a.stats.lost
            assert st["fct_ns"] > lossless + st["timeouts"] * 50_000 * 0.5
            assert rx.flows[bt.key].out_of_order > 0               # go-back-N discards what follows a hole


def test_bulk_cc_hooks(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    calls = []

    class Halving(BulkTransfer):
        def on_ack(self, acked, ecn_marked):
            calls.append((acked, ecn_marked))
            if ecn_marked:
                self.window = max(1.0, self.window / 2)

    BulkReceiver(h2)
    bt = Halving(h1, IP2, total_bytes=20_000, window_packets=16, mss=1000, tos=pk.ECN_CE)  # every packet "marked"
    sim.run()
    assert bt.done and bt.window == 1.0
    assert len(calls) == 20 and all(e for _, e in calls) and sum(a for a, _ in calls) == 20
    assert bt.stats["ecn_echoes"] == 20


def test_bulk_timeout_hook_and_dead_receiver(pair):
    sim, h1, h2, _ = pair(static_arp=True)
    timeouts = []

    class Counting(BulkTransfer):
        def on_timeout(self):
            timeouts.append(self.sim.now)
            if len(timeouts) == 3:
                BulkReceiver(h2)                             # the receiver appears late

    bt = Counting(h1, IP2, total_bytes=5_000, window_packets=4, mss=1000, rto_ns=10_000)
    sim.run()
    assert bt.done and len(timeouts) == 3
    # Each timeout fires one RTO after the (re)send of the window started it.
    assert timeouts[1] - timeouts[0] == timeouts[2] - timeouts[1] == 10_000
    assert h2.stats.dropped_no_listener == 12                # 3 windows of 4 before anyone listened


def test_incast_udp_overflows_bottleneck(star):
    sim, sw, hosts = star(4, capacity=64)
    ic = incast(hosts[1:], hosts[0], bytes_per_sender=100_000)
    sim.run()
    drops = sw.ports[0].stats.drops
    assert drops > 0 and sw.ports[0].stats.max_qdepth == 64
    assert ic.stats["received"] == 400 - drops and ic.stats["completion_ns"] is None


def test_incast_udp_completion_by_hand(star):
    sim, sw, hosts = star(4, capacity=10_000)
    ic = incast(hosts[1:], hosts[0], bytes_per_sender=100_000, start_ns=2_000)
    sim.run()
    frame = 14 + 20 + 8 + 1000                              # 852.8 ns on the wire
    # All four bursts meet at the switch one frame time plus latency after the start, and the
    # bottleneck port then sends 400 frames back to back.
    assert ic.stats["completion_ns"] == ser(frame) + LAT + train(400, frame) + LAT
    assert ic.stats["bytes_received"] == 400_000 and sw.ports[0].stats.drops == 0


def test_incast_bulk_completes_despite_drops(star):
    sim, sw, hosts = star(8, capacity=32)
    ic = incast(hosts[1:], hosts[0], bytes_per_sender=50_000, transport="bulk", window_packets=16,
                rto_ns=200_000, jitter_ns=1_000)
    sim.run()
    s = ic.stats
    assert s["bytes_received"] == 8 * 50_000 and s["completion_ns"] is not None
    assert sw.ports[0].stats.drops > 0 and sum(f.stats["timeouts"] for f in ic.flows) > 0
    with pytest.raises(ValueError):
        incast(hosts[1:], hosts[0], 1, transport="tcp", dst_port=7)


def _trace(star, seed: int):
    sim, sw, hosts = star(4, seed=seed, capacity=16, loss=0.01)
    frames = []

    class Tap:
        def __init__(self, name):
            self.name = name

        def write(self, t, data):
            frames.append((t, self.name, data))

    for node in [sw, *hosts]:
        for port in node.ports.values():
            port.capture = Tap(port.name)
    incast(hosts[2:], hosts[0], 30_000, transport="bulk", rto_ns=100_000, jitter_ns=5_000)
    Ping(hosts[1], hosts[0].ip, count=5, interval_ns=20_000)
    UdpFlow(hosts[1], hosts[0].ip, 2_000_000_000, 500, duration_ns=200_000, dst_port=9000)
    UdpSink(hosts[0], 9000)
    sim.run()
    return frames, sim.events_run, sim.now


def test_same_seed_same_events(star):
    a, b, c = _trace(star, 1), _trace(star, 1), _trace(star, 2)
    assert a == b and len(a[0]) > 700
    assert a[0] != c[0]                                      # the seed drives loss and jitter
