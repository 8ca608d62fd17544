"""Frames left unjoined between switches (``dataplane.engine.decision.frame``) change nothing.

A switch whose decision cache rewrites a frame hands the next switch the new header over the
payload it came with, and a host keeps a sender's body shared under each packet's headers; the
bytes are joined where something needs them whole. Here the two RDMA workloads of
``tools/bench_sim.py`` (at a small size, without captures, so the unjoined path is the one
taken) run with the cache and the hosts' shared bodies on, and both off (every host and switch
making bytes, as before), and every frame that reaches every port (time, port, bytes), every port's counters and
the hop count must be equal; the run with the cache must have carried unjoined frames. Only
switches whose cache reads them receive one: hosts, captures and a switch whose ``receive`` was
replaced get bytes.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any

import pytest

from dataplane.engine.decision import byte_find
from dataplane.engine.decision.frame import Frame
from dataplane.net.devices.link import Port
from dataplane.net.devices.switch_node import SwitchNode
from dataplane.net.hosts.host import Host

TOOLS = Path(__file__).resolve().parents[3] / "tools"


def bench_sim() -> Any:
    sys.path.insert(0, str(TOOLS))
    try:
        import bench_sim
    finally:
        sys.path.remove(str(TOOLS))
    return bench_sim


def run(workload: str, monkeypatch: Any, cache: bool) -> dict[str, Any]:
    """The workload's arrivals (a digest), port counters, hop count and the unjoined frames seen."""
    digest = hashlib.sha256()
    seen = {"frames": 0, "to_hosts": 0}
    arrive = Port._arrive

    def recording(port: Port, data: Any) -> None:
        if data.__class__ is Frame:
            seen["frames"] += 1
            if not isinstance(port.node, SwitchNode):
                seen["to_hosts"] += 1
        digest.update(f"{port.sim.now} {port.name} ".encode() + bytes(data))
        arrive(port, data)

    monkeypatch.setattr(Port, "_arrive", recording)
    monkeypatch.setattr(SwitchNode, "decision_cache", cache)
    monkeypatch.setattr(Host, "share_tails", cache)
    bs = bench_sim()
    net = bs.BUILDERS[workload](256 * 1024)
    net.run(None)
    stats = {p.name: (p.stats.tx_packets, p.stats.tx_bytes, p.stats.rx_packets, p.stats.rx_bytes, p.stats.pause_tx,
                      p.stats.drops, p.stats.max_qdepth, tuple(p.stats.qdepth_flat))
             for node in [*net.switches.values(), *net.hosts.values()] for p in node.ports.values()}
    hosts = {name: repr(host.stats) for name, host in net.hosts.items()}
    return {"arrivals": digest.hexdigest(), "stats": stats, "hosts": hosts, "hops": bs.hops(net), "now": net.sim.now, **seen}


@pytest.mark.parametrize("form", ["big integers", "bytes"])
@pytest.mark.parametrize("workload", ["rdma-perm", "incast"])
def test_unjoined_frames_deliver_the_bytes_the_pipeline_makes(workload, form, monkeypatch):
    """Either form of the lookup (``byte_find``'s on PyPy) gives every port the pipeline's frames."""
    monkeypatch.setattr(byte_find, "ENABLED", form == "bytes")
    cached = run(workload, monkeypatch, True)
    piped = run(workload, monkeypatch, False)
    assert cached["frames"] > cached["hops"] // 4     # the path under test was taken
    assert piped["frames"] == 0 and cached["to_hosts"] == 0
    for key in ("arrivals", "stats", "hosts", "hops", "now"):
        assert cached[key] == piped[key], key


def test_a_replaced_receive_gets_bytes():
    """A switch whose ``receive`` a user replaced is handed bytes, as before the frames."""
    bs = bench_sim()
    net = bs.build_rdma_perm(64 * 1024)
    got: list[type] = []
    for node in net.switches.values():
        node.receive = lambda port, data, _inner=node.receive: (got.append(type(data)), _inner(port, data))
    net.run(None)
    assert len(got) > 100 and set(got) == {bytes}


def test_a_capture_gets_bytes(monkeypatch):
    """A port between two switches that captures writes bytes; the others still carry frames."""
    bs = bench_sim()
    net = bs.build_rdma_perm(64 * 1024)
    types: list[type] = []

    class Capture:
        def write(self, time_ns: int, data: Any) -> None:
            types.append(type(data))

    unjoined = [0]
    arrive = Port._arrive

    def counting(port: Port, data: Any) -> None:
        unjoined[0] += data.__class__ is Frame
        arrive(port, data)

    for node in net.switches.values():
        for port in node.ports.values():
            if isinstance(port.peer.node, SwitchNode) and port.number % 2:
                port.capture = Capture()
            port._arrival = counting.__get__(port)
    net.run(None)
    assert len(types) > 100 and set(types) == {bytes}
    assert unjoined[0] > 100


@pytest.mark.parametrize("where", ["class receive", "class _ingress", "node _ingress"])
def test_a_receive_or_ingress_replaced_anywhere_gets_bytes(where, monkeypatch):
    """``unjoined_ok`` asks the node's own attributes and the class's without binding methods: a
    ``receive`` or ``_ingress`` replaced on the class, or ``_ingress`` on one node, is handed bytes."""
    bs = bench_sim()
    net = bs.build_rdma_perm(64 * 1024)
    got: list[type] = []
    name = where.split()[1]
    original = getattr(SwitchNode, name)

    def spy(node: SwitchNode, port: Any, data: Any) -> None:
        got.append(type(data))
        original(node, port, data)

    if where.startswith("class"):
        monkeypatch.setattr(SwitchNode, name, spy)
    else:
        for node in net.switches.values():
            node._ingress = spy.__get__(node)
    net.run(None)
    assert len(got) > 100 and set(got) == {bytes}
