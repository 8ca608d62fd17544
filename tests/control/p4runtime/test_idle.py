"""Idle timeout notifications as BMv2's ageing monitor sends them (behavioral-model
src/bm_sim/ageing.cpp): a sweep every second from the pipeline's start, an entry expired when
it has been idle for at least its timeout in whole milliseconds, and notified again every
second sweep while it stays idle (never in two sweeps in a row).

The server's device clock is held by the test, so each sweep happens at a chosen instant."""
from __future__ import annotations

import queue
import time

import pytest

grpc = pytest.importorskip("grpc")  # no grpcio on PyPy
from p4.v1 import p4runtime_pb2 as pb  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

from dataplane.control.live import LiveSwitch  # noqa: E402

from .conftest import CPU_PORT  # noqa: E402

T_EXACT, SET_PORT = 33554433, 16777218
MS = 1000       # µs


class HeldClock(LiveSwitch):
    """A live switch whose device clock moves only when the test says."""

    def __init__(self):
        super().__init__(None, device_id=1, cpu_port=CPU_PORT)
        self.t_us = 0

    def now_us(self) -> int:
        return self.t_us


def _entry(mac: int, timeout_ms: int) -> pb.Update:
    e = pb.TableEntry(table_id=T_EXACT, idle_timeout_ns=timeout_ms * 1_000_000)
    e.match.add(field_id=1).exact.value = mac.to_bytes(6, "big").lstrip(b"\x00") or b"\x00"
    e.action.action.action_id = SET_PORT
    e.action.action.params.add(param_id=1, value=b"\x02")
    return pb.Update(type=pb.Update.INSERT, entity=pb.Entity(table_entry=e))


@pytest.fixture
def held(start_server, connect):
    live = HeldClock()
    server = start_server(live=live)
    client = connect(server)
    client.arbitrate((0, 1))
    client.set_pipeline()
    return live, server, client


def _sweep_at(live, server, t_us: int) -> None:
    """Move the clock to ``t_us`` and wait until the poller has run the sweep due then."""
    live.t_us = t_us
    deadline = time.monotonic() + 5
    while True:
        state = server.service.pipelines.current
        if state.ageing is not None and state.ageing.next_sweep_us > t_us:
            return
        assert time.monotonic() < deadline, "the poller ran no sweep"
        time.sleep(0.005)


def _notified(client, wait: float = 0.3) -> list[list[int]]:
    """The idle notifications the stream holds now, each as its entries' MACs."""
    out = []
    while True:
        try:
            note = client.next("idle_timeout_notification", timeout=wait)
        except queue.Empty:
            return out
        out.append(sorted(int.from_bytes(e.match[0].exact.value, "big") for e in note.table_entry))
        wait = 0.05


def test_an_idle_entry_is_notified_every_second_sweep_from_its_timeout_in_whole_ms(held):
    """Timeouts of 999, 1000 and 1001 ms written at t=0: at the 1 s sweep the first two have been
    idle their timeout (>=) and the third 1 ms short. Each then comes back two sweeps (2 s) after
    its last notification while it stays idle, and never in two sweeps in a row."""
    live, server, c = held
    _sweep_at(live, server, 0)          # the pipeline's first sweep
    c.write(_entry(0x999, 999), _entry(0x1000, 1000), _entry(0x1001, 1001))
    _sweep_at(live, server, 500 * MS)   # no sweep is due: nothing happens between sweeps
    assert _notified(c) == []
    _sweep_at(live, server, 1000 * MS)
    assert _notified(c) == [[0x999, 0x1000]]
    _sweep_at(live, server, 2000 * MS)
    assert _notified(c) == [[0x1001]]
    _sweep_at(live, server, 3000 * MS)
    assert _notified(c) == [[0x999, 0x1000]]
    _sweep_at(live, server, 4000 * MS)
    assert _notified(c) == [[0x1001]]


def test_a_hit_restarts_the_idle_time_and_a_deleted_entry_is_not_notified(held):
    """A hit at 1.5 s: the entry (timeout 1000 ms) is idle 500 ms at the 2 s sweep and exactly
    1000 ms at the 2.5 s mark, but sweeps only come each second, so it is next notified at 3 s;
    a deleted entry is never notified again."""
    live, server, c = held
    _sweep_at(live, server, 0)
    c.write(_entry(0x10, 1000), _entry(0x20, 1000))
    _sweep_at(live, server, 1000 * MS)
    assert _notified(c) == [[0x10, 0x20]]
    live.t_us = 1500 * MS
    server.live.inject(1, bytes(Ether(dst="00:00:00:00:00:10", type=0x9000) / (b"\x00" * 20)))
    gone = _entry(0x20, 1000)
    gone.type = pb.Update.DELETE
    c.write(gone)
    _sweep_at(live, server, 2000 * MS)
    assert _notified(c) == []
    _sweep_at(live, server, 3000 * MS)
    assert _notified(c) == [[0x10]]


def test_a_timeout_under_a_millisecond_never_expires_as_on_bmv2(held):
    """PI hands BMv2 the TTL in whole milliseconds (ttl_ns / 1000000): 999,999 ns is 0, no ageing."""
    live, server, c = held
    _sweep_at(live, server, 0)
    e = _entry(0x30, 1)
    e.entity.table_entry.idle_timeout_ns = 999_999
    c.write(e)
    for t in (1000, 2000, 3000):
        _sweep_at(live, server, t * MS)
    assert _notified(c) == []
