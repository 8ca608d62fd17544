"""PacketOuts without gRPC: streams with packets waiting are served one packet a turn, and a
stream holding its whole share waits before it may queue more."""
from __future__ import annotations

import threading

from dataplane.control.p4runtime.streams import PacketOuts


class GatedHandler:
    """Records each packet and holds the packet-out thread until the test lets it go on."""

    def __init__(self):
        self.order: list[str] = []
        self.entered = threading.Semaphore(0)
        self.gate = threading.Event()

    def __call__(self, stream, packet):
        self.order.append(packet)
        self.entered.release()
        self.gate.wait(5)


def test_waiting_streams_take_turns_one_packet_each():
    handler = GatedHandler()
    outs = PacketOuts(handler, per_stream=32)
    outs.open("a")
    outs.open("b")
    try:
        outs.submit("a", "a0")
        assert handler.entered.acquire(timeout=5)       # a0 is being handled, the rest waits
        for i in range(1, 10):
            outs.submit("a", f"a{i}")
        for i in range(4):
            outs.submit("b", f"b{i}")
        handler.gate.set()
        outs.drain("a")
        outs.drain("b")
    finally:
        outs.close()
    assert handler.order == ["a0", "a1", "b0", "a2", "b1", "a3", "b2", "a4", "b3",
                             "a5", "a6", "a7", "a8", "a9"]


def test_a_stream_with_its_share_waiting_blocks_until_one_is_handled():
    handler = GatedHandler()
    outs = PacketOuts(handler, per_stream=3)
    outs.open("a")
    try:
        outs.submit("a", "p0")
        assert handler.entered.acquire(timeout=5)
        for i in range(1, 4):
            outs.submit("a", f"p{i}")                   # exactly the share: none blocks
        fourth = threading.Thread(target=outs.submit, args=("a", "p4"))
        fourth.start()
        fourth.join(0.3)
        assert fourth.is_alive()                        # one past the share waits
        handler.gate.set()
        fourth.join(5)
        assert not fourth.is_alive()
        outs.drain("a")
    finally:
        outs.close()
    assert handler.order == ["p0", "p1", "p2", "p3", "p4"]
