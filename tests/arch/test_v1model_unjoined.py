"""A cache hit leaves a long frame unjoined and a short one as bytes, either way the bytes the
pipeline makes; a frame it left unjoined, or a host's (a longer head over a shared body), is
read as the bytes it stands for (``dataplane.engine.decision.frame``)."""
from __future__ import annotations

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.arch.v1model_decisions import V1Decisions
from dataplane.arch.work import CachedEgress
from dataplane.control.switch import Switch
from dataplane.engine.decision import byte_find
from dataplane.engine.decision.frame import UNJOINED_MIN, Frame
from dataplane.resources import builtin_program

LPM = "MyIngress.ipv4_lpm"


@pytest.fixture(params=["big integers", "bytes"], autouse=True)
def lookup_form(request, monkeypatch):
    """Every rule here holds for both forms of a one-shape lookup: the big-integer one (CPython's)
    and the byte-indexed one (``byte_find``, PyPy's)."""
    monkeypatch.setattr(byte_find, "ENABLED", request.param == "bytes")
    return request.param


def switch() -> tuple[Switch, V1Decisions]:
    """ecmp_router routing 10.0.1.0/24 out of port 1, with its cache."""
    sw = Switch.from_file(builtin_program("ecmp_router"))
    sw.table_add(LPM, "set_nhop", ["10.0.1.0/24"], ["0a:00:00:00:01:01", 1])
    found = V1Decisions.for_switch(sw.dp, {1: None, 2: None})
    assert isinstance(found, V1Decisions), found
    return sw, found


def frame(length: int, ident: int = 1) -> bytes:
    """An Ethernet/IPv4/UDP frame of ``length`` bytes (payload bytes counting up, so a misplaced
    byte shows)."""
    head = Ether(src="0a:0a:0a:0a:0a:0a", dst="0b:0b:0b:0b:0b:0b") / IP(src="10.0.9.9", dst="10.0.1.5", id=ident) \
        / UDP(sport=7, dport=4791)
    size = length - len(head)
    return bytes(head / bytes(i & 0xFF for i in range(size)))


def pipeline(sw: Switch, data: bytes) -> bytes:
    out = sw.dp.process(2, data).outputs
    assert len(out) == 1 and out[0].port == 1
    return out[0].data


def hit(dec: V1Decisions, data: bytes | Frame) -> bytes | Frame:
    """What a cache hit makes of ``data``: the first look makes the flow's decision (a miss)."""
    dec.decide(2, data)
    hits = dec.cache.hits
    got = dec.decide(2, data)
    assert got.__class__ is CachedEgress and got.out is not None and dec.cache.hits == hits + 1
    return got.out


def test_long_frames_leave_unjoined_and_short_ones_as_bytes():
    sw, dec = switch()
    for length, kind in ((UNJOINED_MIN - 1, bytes), (UNJOINED_MIN, Frame), (UNJOINED_MIN + 1, Frame)):
        data = frame(length, ident=length)
        out = hit(dec, data)
        assert type(out) is kind, length
        assert bytes(out) == pipeline(sw, data) and len(out) == length


def test_an_unjoined_frame_is_read_as_its_bytes():
    """The output of one switch fed to the next as it is, and a host's frame (its headers over a
    body whose first bytes are stale), give what their bytes give."""
    sw, dec = switch()
    data = frame(UNJOINED_MIN + 64, ident=5)
    once = hit(dec, data)
    twice = hit(dec, once)
    assert type(twice) is Frame and bytes(twice) == pipeline(sw, pipeline(sw, data))
    host = Frame(data[:60], bytes(60) + data[60:])           # 60 bytes of head: longer than the region
    out = hit(dec, host)
    assert type(out) is Frame and bytes(out) == pipeline(sw, data)
