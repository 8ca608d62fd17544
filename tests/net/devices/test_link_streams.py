"""A link's loss and corruption streams (one per direction, seeded ``SEED/NAME`` and
``SEED/NAME/b``) are made when first drawn from, not when the link is built (issue 36's memory):
a lossless link never makes them, and what a lossy link loses and corrupts is what those streams,
drawn from their start, decide, including a link made lossy only after it carried frames."""
from __future__ import annotations

import random

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Link
from dataplane.net.devices.node import Node


class Sink(Node):
    def __init__(self, sim: Simulator, name: str):
        super().__init__(sim, name)
        self.got: list[bytes] = []

    def receive(self, port, data):
        self.got.append(bytes(data))


def pair(seed: int, loss: float = 0.0, corruption: float = 0.0):
    sim = Simulator(seed)
    a, b = Sink(sim, "a"), Sink(sim, "b")
    pa, pb = a.add_port(0, "a:p0"), b.add_port(0, "b:p0")
    pa.capacity = pb.capacity = 10_000
    link = Link(sim, pa, pb, 10_000_000_000, 100, loss=loss, corruption=corruption)
    return sim, a, b, link


def frames(n: int) -> list[bytes]:
    return [i.to_bytes(4, "big") * 16 for i in range(n)]


def expected(stream: random.Random, sent: list[bytes], loss: float, corruption: float) -> list[bytes]:
    """What arrives, drawn as the link's rule says: a loss draw, then (if kept) a corruption draw
    and a bit for a corrupted frame (the bit's MSB-first position in the frame)."""
    out = []
    for data in sent:
        if loss and stream.random() < loss:
            continue
        if corruption and stream.random() < corruption:
            bit = stream.randrange(len(data) * 8)
            buf = bytearray(data)
            buf[bit // 8] ^= 0x80 >> (bit % 8)
            data = bytes(buf)
        out.append(data)
    return out


def test_a_lossless_link_never_makes_its_streams() -> None:
    sim, a, b, link = pair(3)
    for data in frames(50):
        a.transmit(0, data)
        b.transmit(0, data)
    sim.run()
    assert len(a.got) == len(b.got) == 50
    assert link._rng is None and link._rng_b is None


def test_each_direction_draws_from_its_own_stream_from_its_start() -> None:
    sim, a, b, link = pair(7, loss=0.3, corruption=0.2)
    sent = frames(200)
    for data in sent:
        a.transmit(0, data)
    for data in sent[:120]:
        b.transmit(0, data)
    sim.run()
    name = "a:p0<->b:p0"
    assert b.got == expected(random.Random(f"7/{name}"), sent, 0.3, 0.2)
    assert a.got == expected(random.Random(f"7/{name}/b"), sent[:120], 0.3, 0.2)
    assert 0 < len(b.got) < 200 and b.got != [d for d in sent if d in b.got]   # some lost, some corrupted


def test_a_link_made_lossy_after_carrying_frames_starts_its_stream_then() -> None:
    sim, a, b, link = pair(11)
    first = frames(30)
    for data in first:
        a.transmit(0, data)
    sim.run()
    assert link._rng is None
    link.loss = 0.5
    later = frames(100)[30:]
    for data in later:
        a.transmit(0, data)
    sim.run()
    assert b.got == first + expected(random.Random("11/a:p0<->b:p0"), later, 0.5, 0.0)
    assert link._rng_b is None
