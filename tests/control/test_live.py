"""``LiveSwitch``: packets from other threads through one lock, outputs to every listener."""
from __future__ import annotations

import threading

from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

from dataplane.control.live import LiveSwitch
from dataplane.control.switch import Switch
from dataplane.resources import builtin_program


def _router() -> Switch:
    sw = Switch.from_file(builtin_program("ipv4_router"))
    sw.table_add("ipv4_lpm", "ipv4_forward", ["10.0.2.0/24"], ["00:00:00:00:02:02", 2])
    return sw


def _packet() -> bytes:
    return bytes(Ether(dst="00:00:00:00:01:01") / IP(src="10.0.1.1", dst="10.0.2.2", ttl=64))


def test_inject_hands_outputs_to_every_listener():
    live = LiveSwitch(_router())
    seen_a, seen_b = [], []
    live.listen(lambda port, data: seen_a.append(port))
    stop_b = live.listen(lambda port, data: seen_b.append((port, data)))
    live.inject(1, _packet())
    stop_b()
    live.inject(1, _packet())
    assert seen_a == [2, 2]
    assert len(seen_b) == 1 and IP(seen_b[0][1][14:]).ttl == 63


def test_packets_without_a_pipeline_or_on_a_missing_port_are_counted_drops():
    live = LiveSwitch(None)
    out = []
    live.listen(lambda port, data: out.append(port))
    live.inject(1, _packet())
    live.replace(_router())
    live.inject(100000, _packet())
    assert (out, live.drops) == ([], 2)


def test_a_listener_may_inject_again_from_its_callback():
    live = LiveSwitch(_router())
    ports = []

    def echo(port, data):
        ports.append(port)
        if len(ports) < 3:
            live.inject(1, data)   # a reentrant call: the lock is not held here
    live.listen(echo)
    worker = threading.Thread(target=live.inject, args=(1, _packet()))
    worker.start()
    worker.join(timeout=10)
    assert ports == [2, 2, 2]
