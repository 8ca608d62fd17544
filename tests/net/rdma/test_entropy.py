"""Entropy spraying (TransportConfig(entropy=...)): every data packet's UDP source port is its
entropy; the selective receiver echoes each one with its CE mark; the sender keeps reusing the
ones that came back clean and stops using the marked ones."""
from __future__ import annotations

import os

import pytest

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.node import Node
from dataplane.net.hosts import packets as pk
from dataplane.net.rdma import TransportConfig, wire
from dataplane.net.rdma.entropy import (
    EV_COUNT,
    EV_FIRST,
    MAX_ECHO,
    EntropyEcho,
    EntropyParams,
    EntropySender,
    echo_bytes,
    parse_echo,
)
from dataplane.testing.rdma_pair import qp_pair

UDP_SPORT, TOS = 34, 15          # offsets in an Ethernet + IPv4 frame


class Marker(Node):
    """A wire between h1 (port 1) and h2 (port 2) that marks CE on h1's data packets whose UDP
    source port is a multiple of 4 (a congested quarter of the paths), and notes every data
    packet's source port and whether it marked it."""

    kind = "switch"

    def __init__(self, sim):
        super().__init__(sim, "m")
        self.seen: list[tuple[int, bool]] = []
        self.ack_ports: list[int] = []          # h2's packets (its ACKs): their UDP source ports

    def receive(self, port, data):
        if port.number == 2:
            self.ack_ports.append(int.from_bytes(data[UDP_SPORT:UDP_SPORT + 2], "big"))
            self.transmit(1, data)
            return
        if len(data) > 42 and data[36:38] == (4791).to_bytes(2, "big") and data[42] <= wire.OP_SEND_ONLY:
            sport = int.from_bytes(data[UDP_SPORT:UDP_SPORT + 2], "big")
            mark = sport % 4 == 0
            self.seen.append((sport, mark))
            if mark:
                frame = bytearray(data)
                frame[TOS] |= pk.ECN_CE
                frame[24:26] = b"\0\0"                      # the IPv4 checksum again
                frame[24:26] = pk.checksum(bytes(frame[14:34])).to_bytes(2, "big")
                data = bytes(frame)
        self.transmit(2, data)


def network(config: TransportConfig):
    """h1 -- m -- h2 at 100 Gb/s; QP 10 on h1 sends to QP 20 on h2; the ACK payloads h1 gets
    are kept in ``acks``."""
    sim = Simulator(0)
    m = Marker(sim)
    net = qp_pair(sim, config, m, record=lambda now, data, n: data)
    a, b, got = net.a, net.b, net.got
    acks: list[bytes] = []
    on_ack = a.entropy.on_ack

    def keep(payload: bytes) -> None:
        acks.append(payload)
        on_ack(payload)

    a.entropy.on_ack = keep
    return sim, a, b, m, got, acks


def test_every_data_packet_is_echoed_once_with_its_mark():
    """The ACKs echo exactly the data packets' source ports, in arrival order, each with the CE
    flag the path gave it; the message arrives whole."""
    sim, a, b, m, got, acks = network(TransportConfig(receiver="sack", entropy=EntropyParams(explore=8)))
    msg = os.urandom(200 * 4096)
    a.post_send(len(msg), msg)
    sim.run()
    assert got == [msg]
    echoed = []
    for payload in acks:
        evs, marked = parse_echo(payload)
        echoed += [(ev, bool(marked >> i & 1)) for i, ev in enumerate(evs)]
    assert echoed == m.seen and len(echoed) == 200
    assert all(EV_FIRST <= ev < EV_FIRST + EV_COUNT for ev, _ in echoed)


def test_marked_entropies_are_dropped_and_clean_ones_reused():
    """A quarter of the entropies lead to a marking queue. After the first round trip the sender
    sends on them only when it draws a fresh one to replace a marked one: far fewer than the
    quarter that drawing every packet at random would put there, and every clean entropy is
    used again. Without the recycling (on_ack ignoring echoes), a quarter of the packets go there."""
    def marked_share(recycle: bool) -> tuple[float, int]:
        sim, a, b, m, got, acks = network(TransportConfig(receiver="sack", entropy=EntropyParams(explore=32)))
        if not recycle:
            a.entropy.on_ack = lambda payload: None
        a.post_send(2000 * 4096)
        sim.run()
        later = m.seen[500:]
        reused = len(later) - len({ev for ev, _ in later})
        return sum(mark for _, mark in later) / len(later), reused

    share, reused = marked_share(True)
    assert share < 0.05 and reused > 1000
    share, _ = marked_share(False)
    assert 0.2 < share < 0.3


@pytest.mark.parametrize("explore", [0, 1, 40])
def test_the_first_explore_packets_draw_fresh_entropies(explore):
    """``explore`` packets draw at random before any echo is used, then the good ones come back."""
    sim, a, b, m, got, acks = network(TransportConfig(receiver="sack", entropy=EntropyParams(explore=explore)))
    a.post_send(300 * 4096)
    sim.run()
    assert a.entropy.fresh >= explore
    first = {ev for ev, _ in m.seen[:explore]}
    assert len(first) == explore            # 16,384 values: no two of 40 draws alike with this seed
    assert a.entropy.fresh < 300


def test_the_echo_rides_behind_the_sack_bitmap_and_is_bounded():
    """The echo sits between the SACK bitmap and the ICRC; the bitmap still reads the same; a
    receiver holds at most MAX_ECHO entries, the oldest dropped."""
    ack = wire.sack_payload(7, 100, 0b1010, duplicate=True)
    rec = EntropyEcho()
    for i in range(MAX_ECHO + 3):
        rec.received(EV_FIRST + i, pk.ECN_CE if i % 3 == 0 else pk.ECN_ECT0)
    out = rec.append_to(ack)
    assert wire.sack_bitmap(out) == (0b1010, True)
    evs, marked = parse_echo(out)
    assert evs == [EV_FIRST + i for i in range(3, MAX_ECHO + 3)]
    assert [marked >> j & 1 for j in range(len(evs))] == [int((j + 3) % 3 == 0) for j in range(len(evs))]
    assert parse_echo(ack) == ([], 0) and parse_echo(out[:-6]) == ([], 0)
    assert parse_echo(echo_bytes_ack([])) == ([], 0)
    with pytest.raises(ValueError):
        echo_bytes(list(range(MAX_ECHO + 1)), 0)


def echo_bytes_ack(evs: list[int]) -> bytes:
    ack = wire.sack_payload(1, 1, 0)
    return ack[:-4] + echo_bytes(evs, 0) + ack[-4:]


@pytest.mark.parametrize("spray", [False, True])
def test_spray_acks_sends_each_ack_on_a_fresh_entropy(spray):
    """Without ``spray_acks`` every ACK leaves on the responder's own source port (one path
    back); with it each ACK draws an EV of its own in 0xC000..0xFFFF, and the message still
    arrives whole, every packet echoed once."""
    sim, a, b, m, got, acks = network(TransportConfig(receiver="sack", entropy=EntropyParams(spray_acks=spray)))
    msg = os.urandom(400 * 4096)
    a.post_send(len(msg), msg)
    sim.run()
    assert got == [msg] and len(m.ack_ports) >= 25
    assert sum(len(parse_echo(p)[0]) for p in acks) == 400
    if spray:
        assert all(EV_FIRST <= port < EV_FIRST + EV_COUNT for port in m.ack_ports)
        assert len(set(m.ack_ports)) >= len(m.ack_ports) - 1      # 16,384 values: alike at most once
        assert b.src_port not in m.ack_ports
    else:
        assert set(m.ack_ports) == {b.src_port}


def test_the_ack_ports_repeat_from_the_seed_and_differ_per_queue_pair():
    """The draws come from the seed, the host and the queue pair, so a run repeats on any number
    of MPI ranks; two queue pairs draw differently."""
    one = EntropyEcho(EntropyParams(spray_acks=True, seed=3), "h2/20")
    again = EntropyEcho(EntropyParams(spray_acks=True, seed=3), "h2/20")
    other = EntropyEcho(EntropyParams(spray_acks=True, seed=3), "h2/21")
    ports = [one.ack_port(4791) for _ in range(20)]
    assert ports == [again.ack_port(4791) for _ in range(20)]
    assert ports != [other.ack_port(4791) for _ in range(20)]
    assert EntropyEcho(EntropyParams(), "h2/20").ack_port(50000) == 50000 == EntropyEcho().ack_port(50000)


def test_entropy_needs_the_selective_receiver_and_sane_settings():
    with pytest.raises(ValueError, match="selective receiver"):
        TransportConfig(receiver="gbn", entropy=EntropyParams())
    with pytest.raises(ValueError):
        EntropyParams(pool=0)
    with pytest.raises(ValueError):
        EntropyParams(explore=-1)


class _Qp:
    """What EntropySender reads of its queue pair."""

    class host:
        name = "h1"

    qpn = 7


@pytest.mark.parametrize("explore, every, fresh_at", [
    (0, 0, []),                                   # only when the ring is empty (never here)
    (0, 4, [4, 8, 12]),                           # every 4th EV handed out
    (2, 4, [1, 2, 4, 8, 12]),                     # the first two, then every 4th, counted from the first
    (0, 1, list(range(1, 13))),                   # every one
    (0, 13, []),                                  # past the last of the 12
])
def test_explore_every_draws_a_fresh_ev_every_nth_packet_and_keeps_the_ring_for_the_rest(explore, every, fresh_at):
    sender = EntropySender(_Qp(), EntropyParams(explore=explore, explore_every=every))
    sender.good.extend(range(1, 101))             # kept EVs, all below the drawn range
    evs = [sender.next_ev() for _ in range(12)]
    assert [i for i, ev in enumerate(evs, 1) if ev >= EV_FIRST] == fresh_at
    kept = [ev for ev in evs if ev < EV_FIRST]
    assert kept == list(range(1, len(kept) + 1))  # the ring's oldest first, none skipped
    assert sender.fresh == len(fresh_at)


@pytest.mark.parametrize("every", [-1, (1 << 20) + 1])
def test_explore_every_is_checked(every):
    with pytest.raises(ValueError, match="explore_every"):
        EntropyParams(explore_every=every)
