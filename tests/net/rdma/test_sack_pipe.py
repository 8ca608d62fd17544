"""The selective sender's window counted as the pipe (TransportConfig(window_counts="pipe"), RFC
6675's pipe: packets sent and acknowledged neither cumulatively nor selectively) against the PSN
span (the default): a packet the receiver already holds frees a slot, a packet still on its
way holds one, the span never passes the responder's reorder window, and the packet that fills
either bound asks for an ACK."""
from __future__ import annotations

import os

import pytest

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.node import Node
from dataplane.net.rdma import TransportConfig, wire
from dataplane.testing.rdma_pair import IP2, qp_pair

NOTHING = 0xFFFFFF            # the cumulative PSN of an ACK before PSN 0 arrived (-1 in 24 bits)


class Holder(Node):
    """A wire between h1 (port 1) and h2 (port 2) that holds h1's data packets whose PSN is in
    ``held`` for ``delay_ns`` the first time they pass (resends go at once)."""

    kind = "switch"

    def __init__(self, sim, held: set[int], delay_ns: int):
        super().__init__(sim, "w")
        self.held, self.delay_ns = set(held), delay_ns

    def receive(self, port, data):
        if port.number == 2:
            self.transmit(1, data)
            return
        # Ethernet 14 + IPv4 20 + UDP 8: the BTH, its opcode first and its PSN in bytes 9..11
        psn = int.from_bytes(data[51:54], "big")
        if data[42] <= wire.OP_SEND_ONLY and psn in self.held:
            self.held.discard(psn)
            self.sim.schedule(self.delay_ns, self.transmit, 2, data)
            return
        self.transmit(2, data)


def network(config: TransportConfig, held: set[int] = frozenset(), delay_ns: int = 0):
    """h1 -- w -- h2 at 100 Gb/s, 500 ns a link; QP 10 on h1 sends to QP 20 on h2, which keeps
    the messages it delivers in ``got``."""
    sim = Simulator(0)
    net = qp_pair(sim, config, Holder(sim, held, delay_ns), record=lambda now, data, n: data)
    return sim, net.a, net.b, net.got


def sender(config: TransportConfig, packets: int = 200):
    """A requester with ``packets`` packets posted whose sends are recorded (PSN, AckReq), not
    put on the wire, so that the test plays the responder's ACKs itself."""
    _, a, _, _ = network(config)
    sent: list[tuple[int, bool]] = []
    a.host.send_udp = lambda ip, sport, dport, head, tos, tail=b"": sent.append(
        (int.from_bytes(head[9:12], "big"), bool(head[8] & 0x80)))
    a.post_send(packets * config.mtu)
    return a, sent


def pump(a) -> None:
    """Send while the queue pair says it may (what the NIC does while the wire is free)."""
    for _ in range(10_000):
        if not a.has_work():
            return
        a.send_one()
    raise AssertionError("the sender never stopped")


def ack(a, psn: int, bitmap: int) -> None:
    """The responder's selective ACK: every PSN up to ``psn`` (24 bits), bit i of ``bitmap`` PSN psn + 1 + i."""
    a.on_data(IP2, 4791, psn, wire.sack_payload(10, psn, bitmap), 0, 0)


W = 8


@pytest.mark.parametrize("sacked", [0, 1, 2])
def test_each_packet_sacked_past_a_hole_frees_one_slot_of_the_pipe(sacked):
    """Window 8: PSNs 0..7 go, 7 asking for an ACK. The ACK says PSN 0 has not arrived and PSNs
    1..s have: the pipe is 8 - s, so with s = 0 (pipe = window) nothing more goes, with s = 1
    (pipe = window - 1) one packet, with s = 2 two, the span reaching window + s; the packet
    that brings the pipe back to 8 asks for an ACK. Counting the span, the same ACK lets none go."""
    a, sent = sender(TransportConfig(receiver="sack", window=W, window_counts="pipe"))
    pump(a)
    assert sent == [(p, p == W - 1) for p in range(W)]
    assert a._sack_tx.in_flight() == W
    ack(a, NOTHING, ((1 << sacked) - 1) << 1)
    assert a._sack_tx.in_flight() == W - sacked
    pump(a)
    assert sent[W:] == [(W + i, i == sacked - 1) for i in range(sacked)]
    assert a._next - a._una == W + sacked and a._sack_tx.in_flight() == W

    b, sent_span = sender(TransportConfig(receiver="sack", window=W))
    pump(b)
    ack(b, NOTHING, ((1 << sacked) - 1) << 1)
    pump(b)
    assert sent_span == [(p, p == W - 1) for p in range(W)]


def test_a_cumulative_ack_frees_the_slots_it_covers_and_the_bitmap_moves_with_it():
    """Window 8, PSNs 1, 2 and 5 SACKed (pipe 5, then 3 more sent: 0..10 out). An ACK of 0..2
    with 5 still marked leaves 3, 4, 6..10 in the pipe (7): one more packet, PSN 11, asking."""
    a, sent = sender(TransportConfig(receiver="sack", window=W, window_counts="pipe"))
    pump(a)
    ack(a, NOTHING, 0b100110)
    pump(a)
    assert [p for p, _ in sent] == list(range(11))
    ack(a, 2, 0b100)                                  # bit i: PSN 3 + i; 5 arrived
    assert a._una == 3 and a._sack_tx.in_flight() == 7
    pump(a)
    assert sent[11:] == [(11, True)]


def test_the_span_stays_inside_the_responder_s_reorder_window():
    """reorder_window 16 (the responder holds PSNs up to its expected one + 15), a window of 64
    in the pipe: PSNs 0..15 go, 15 asking for an ACK; with 1..15 SACKed (pipe 1) PSN 16 still
    waits, as the responder may expect 0 yet; an ACK of 0..3 lets exactly 16..19 go."""
    a, sent = sender(TransportConfig(receiver="sack", window=64, window_counts="pipe", reorder_window=16))
    pump(a)
    assert sent == [(p, p == 15) for p in range(16)]
    ack(a, NOTHING, 0xFFFF & ~1)
    assert a._sack_tx.in_flight() == 1 and not a.has_work()
    ack(a, 3, 0xFFF)
    pump(a)
    assert sent[16:] == [(16, False), (17, False), (18, False), (19, True)]


@pytest.mark.parametrize("counts", ["pipe", "span"])
def test_a_held_hole_never_makes_the_responder_drop_with_pipe_counting(counts):
    """PSN 0 held 30 us on the wire, window 64, reorder_window 16. Counting the pipe the sender
    stops at PSN 15, the last the responder can hold: 15 held, nothing dropped, nothing resent.
    Counting the span (no bound but the window) it sends 0..63 and the responder drops at least
    16..63, which are resent."""
    cfg = TransportConfig(receiver="sack", window=64, window_counts=counts, reorder_window=16)
    sim, a, b, got = network(cfg, held={0}, delay_ns=30_000)
    msg = os.urandom(4096 * 100)
    a.post_send(len(msg), msg)
    sim.run()
    assert got == [msg] and b.stats.reordered == 15
    if counts == "pipe":
        assert b.stats.out_of_window == 0 and a.stats.retransmitted == 0
    else:
        assert b.stats.out_of_window >= 48 and a.stats.retransmitted >= 48


@pytest.mark.parametrize("counts", ["pipe", "span"])
def test_a_packet_held_on_a_slow_path_holds_one_slot_of_the_pipe_but_the_whole_span(counts):
    """PSN 0 held 20 us, window 8. Counting the span the sender stops at PSN 7 until it
    arrives: the responder holds 7 packets past the hole. Counting the pipe the packets that
    arrive past it are SACKed and the sender goes on, 7 packets a round trip (about 3 us with
    the ACK's wait): in 20 us the responder holds more than 3 windows (31 here), fewer than
    the line's 58 (0.34 us a packet), and the message arrives whole."""
    cfg = TransportConfig(receiver="sack", window=W, window_counts=counts)
    sim, a, b, got = network(cfg, held={0}, delay_ns=20_000)
    msg = os.urandom(4096 * 100)
    a.post_send(len(msg), msg)
    sim.run()
    assert got == [msg] and a.stats.retransmitted == 0 and a.stats.timeouts == 0
    if counts == "span":
        assert b.stats.reordered == W - 1
    else:
        assert 3 * W < b.stats.reordered <= 20_000 // 340


@pytest.mark.parametrize("window", [1, 4, 15])
def test_a_pipe_smaller_than_the_ack_coalescing_does_not_wait_for_the_timer(window):
    """The responder ACKs every 16 packets or when asked: a pipe of fewer packets must ask on
    the packet that fills it, else each full pipe waits rto_ns (1 ms) for the timer. 100
    packets, PSN 3 held 5 us: even one at a time (about 2.7 us a round trip) all are
    acknowledged within one rto_ns, with no timeout and nothing resent."""
    cfg = TransportConfig(receiver="sack", window=window, window_counts="pipe")
    sim, a, b, got = network(cfg, held={3}, delay_ns=5_000)
    done: list[int] = []
    a.post_send(4096 * 100, on_complete=done.append)
    sim.run()
    assert len(done) == 1 and done[0] < cfg.rto_ns
    assert a.stats.timeouts == 0 and a.stats.retransmitted == 0


def test_the_window_counting_is_checked():
    """Only span or pipe; the pipe needs the selective receiver's bitmap."""
    with pytest.raises(ValueError, match="window_counts must be one of span, pipe"):
        TransportConfig(receiver="sack", window_counts="bytes")
    with pytest.raises(ValueError, match="needs the selective receiver"):
        TransportConfig(window=8, window_counts="pipe")
    assert TransportConfig().window_counts == "span"
