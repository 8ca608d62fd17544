"""Selective repeat (TransportConfig(receiver="sack")): packets that arrive out of order are placed,
messages still reach the application whole and in order, only holes are resent, and a reordering
path costs go-back-N retransmissions but the sack receiver none."""
from __future__ import annotations

import os

import pytest

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.node import Node
from dataplane.net.rdma import TransportConfig, wire
from dataplane.testing.rdma_pair import qp_pair

SACK = TransportConfig(receiver="sack")


class Reorderer(Node):
    """A wire between port 1 (h1) and port 2 (h2) that holds back every ``every``-th data packet
    from h1 for ``delay_ns`` (ACKs and everything else pass at once): reordering without loss."""

    kind = "switch"

    def __init__(self, sim, every: int, delay_ns: int, first: int = 0):
        super().__init__(sim, "r")
        self.every, self.delay_ns, self.first = every, delay_ns, first
        self.data_seen = 0

    def receive(self, port, data):
        if port.number == 2:
            self.transmit(1, data)
            return
        is_data = len(data) > 42 and data[36:38] == (4791).to_bytes(2, "big") and data[42] <= wire.OP_SEND_ONLY
        if is_data:
            self.data_seen += 1
            if self.data_seen > self.first and self.data_seen % self.every == 0:
                self.sim.schedule(self.delay_ns, self.transmit, 2, data)
                return
        self.transmit(2, data)


def network(config: TransportConfig, every: int = 5, delay_ns: int = 3_000, loss: float = 0.0, seed: int = 0,
            first: int = 0):
    """h1 -- r -- h2 at 100 Gb/s, 500 ns per link; QP 10 on h1 sends to QP 20 on h2, which keeps
    what arrives (time, bytes, size) in ``got``."""
    sim = Simulator(seed)
    r = Reorderer(sim, every, delay_ns, first)
    net = qp_pair(sim, config, r, loss=loss)
    for port in r.ports.values():
        port.capacity = 10_000
    return sim, net.a, net.b, net.got


MESSAGES = [os.urandom(n) for n in (1, 4095, 4096, 4097, 100_000, 40_000)] + [b"", os.urandom(300_000)]


def send_all(a, msgs=MESSAGES):
    for m in msgs:
        a.post_send(len(m), m)


def test_reordered_packets_are_placed_and_messages_arrive_whole_in_order_without_resends():
    """Every fifth data packet overtaken by the next ones: the sack receiver holds the early ones,
    the application gets every message intact in posting order, and nothing is sent twice."""
    sim, a, b, got = network(SACK)
    send_all(a)
    sim.run()
    assert [d for _, d, _ in got] == MESSAGES
    assert b.stats.reordered > 0
    assert a.stats.retransmitted == 0 and b.stats.duplicates == 0 and a.stats.timeouts == 0
    assert b.stats.naks_sent == 0 and b.stats.out_of_window == 0
    assert a.pending == 0


def test_go_back_n_pays_for_the_same_reordering_in_resends():
    """The same path with the in-order receiver: every overtaken packet is a NAK and a resend of
    what had already arrived, yet the data still arrives intact."""
    sim, a, b, got = network(TransportConfig())
    send_all(a)
    sim.run()
    assert [d for _, d, _ in got] == MESSAGES
    assert b.stats.naks_sent > 0 and b.stats.out_of_sequence > 0 and a.stats.retransmitted > 0
    assert b.stats.reordered == 0


@pytest.mark.parametrize("window, dropped", [(8, True), (64, False)])
def test_a_packet_past_the_reorder_window_is_dropped_and_resent(window, dropped):
    """Packets 30 and 60 held back while 20 others pass: a window of 8 cannot hold them all (those past it
    are dropped and resent as holes); a window of 64 can."""
    cfg = TransportConfig(receiver="sack", reorder_window=window, reorder_ns=50_000)
    sim, a, b, got = network(cfg, every=30, delay_ns=20 * 340)
    msg = os.urandom(4096 * 60)
    a.post_send(len(msg), msg)
    sim.run()
    assert [d for _, d, _ in got] == [msg]
    assert (b.stats.out_of_window > 0) is dropped
    assert (a.stats.retransmitted > 0) is dropped


def test_the_window_holds_exactly_reorder_window_minus_one_packets_past_the_hole():
    """The hole is PSN p; PSNs p+1 .. p+W-1 fit in a window of W, PSN p+W does not."""
    cfg = TransportConfig(receiver="sack", reorder_window=16)
    sim, a, b, _ = network(cfg)
    rx = b._sack_rx
    payload = wire.data_header(wire.OP_SEND_MIDDLE, 20, 0, False) + bytes(8) + wire.ICRC
    for psn in range(1, 16):
        rx.on_data(psn, wire.OP_SEND_MIDDLE, payload, False)
    assert b.stats.reordered == 15 and b.stats.out_of_window == 0
    rx.on_data(16, wire.OP_SEND_MIDDLE, payload, False)
    assert b.stats.out_of_window == 1
    rx.on_data(5, wire.OP_SEND_MIDDLE, payload, False)
    assert b.stats.duplicates == 1
    rx.on_data(0, wire.OP_SEND_MIDDLE, payload, False)
    assert b._epsn == 16 and rx.mask == 0 and b.stats.packets_received == 16


def test_sack_resends_only_holes_after_loss():
    """5% loss each way: every message arrives intact and in order; selective repeat resends far
    fewer packets than go-back-N on the same losses, and never goes back over what arrived."""
    msgs = [os.urandom(k * 997) for k in range(1, 60)]
    results = {}
    for receiver in ("sack", "gbn"):
        cfg = TransportConfig(mtu=1000, receiver=receiver, reorder_ns=20_000)
        sim, a, b, got = network(cfg, every=10**9, loss=0.05, seed=3)
        send_all(a, msgs)
        sim.run()
        assert [d for _, d, _ in got] == msgs
        results[receiver] = (a.stats.retransmitted, b.stats.duplicates)
    sack_resent, sack_dups = results["sack"]
    assert 0 < sack_resent < results["gbn"][0] / 2
    # a resend that arrives as a duplicate is one whose ACK was lost: a few, not go-back-N's many
    assert sack_dups < sack_resent


@pytest.mark.parametrize("reorder_ns, spurious", [(2_000, True), (20_000, False)])
def test_holes_younger_than_reorder_ns_are_not_resent(reorder_ns, spurious):
    """Packets overtaken by 8 us: with reorder_ns 2 us the sender takes them for lost and resends
    them (duplicates at the receiver); with 20 us it waits and resends nothing."""
    cfg = TransportConfig(receiver="sack", reorder_ns=reorder_ns)
    sim, a, b, got = network(cfg, every=7, delay_ns=8_000)
    send_all(a)
    sim.run()
    assert [d for _, d, _ in got] == MESSAGES
    assert (b.stats.duplicates > 0) is spurious
    assert (a.stats.retransmitted > 0) is spurious


def test_a_spurious_resend_doubles_the_reordering_allowed_until_resends_stop():
    """reorder_ns 2 us against packets overtaken by 8 us: the duplicates the receiver reports
    (D-SACK) double it to 4, 8, then 16 us, past the reordering, and then no packet is resent;
    never beyond rto_ns. Without the doubling every overtaken packet would be resent (one in 7
    of some 1,100)."""
    cfg = TransportConfig(receiver="sack", reorder_ns=2_000)
    sim, a, b, got = network(cfg, every=7, delay_ns=8_000)
    send_all(a)
    sim.run()
    assert [d for _, d, _ in got] == MESSAGES
    assert a._sack_tx.reorder_ns == 16_000
    assert 0 < a.stats.retransmitted < 20
    cfg = TransportConfig(receiver="sack", reorder_ns=2_000, rto_ns=12_000)
    sim, a, b, got = network(cfg, every=7, delay_ns=8_000)
    send_all(a)
    sim.run()
    assert [d for _, d, _ in got] == MESSAGES and a._sack_tx.reorder_ns == 12_000


def test_a_plain_ack_and_a_sack_bitmap_round_trip_on_the_wire():
    """The extension is D(1) + length(15) + bitmap, least significant bit first; a plain ACK has none."""
    p = wire.sack_payload(7, 99, 0b1010_0000_0110)
    assert len(p) == wire.ACK_PAYLOAD_BYTES + 2 + 2
    assert p[16:18] == b"\x00\x02" and p[18:20] == bytes([0b0000_0110, 0b1010])
    assert wire.sack_bitmap(p) == (0b1010_0000_0110, False)
    d = wire.sack_payload(7, 99, 0b110, duplicate=True)
    assert d[16:18] == b"\x80\x01" and wire.sack_bitmap(d) == (0b110, True)
    assert wire.sack_bitmap(wire.ack_payload(7, 99, wire.SYNDROME_ACK)) == (0, False)
    assert wire.sack_bitmap(p[:19] + wire.ICRC) == (0, False)      # cut short: no bitmap


def test_transport_config_refuses_an_unknown_receiver_and_bad_windows():
    for bad in ({"receiver": "sr"}, {"reorder_window": 1}, {"reorder_window": 70_000}, {"reorder_ns": 0}):
        with pytest.raises(ValueError):
            TransportConfig(**bad)
