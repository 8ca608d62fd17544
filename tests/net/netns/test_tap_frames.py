"""Frames between a namespace host's TAP device and the network, without root: the TAP is
stood in for by a Unix SEQPACKET socket pair (one read, one frame; one write, one frame, as a
TAP device is).

* A frame shorter than Ethernet's minimum (60 bytes without the FCS) enters the network
  padded with zeros to 60 bytes, as a NIC pads it; 60 bytes and longer go as they are.
* A frame read from the TAP enters the network at the simulated time of the wall clock when
  it was read, not at the time the simulator last stepped to.
"""
from __future__ import annotations

import socket
import time

import pytest

from dataplane.net.fabric.network import Network
from dataplane.net.netns.host import NetnsHost
from dataplane.net.netns.realtime import run_realtime
from dataplane.net.topology.load import load_yaml_topology

TOPOLOGY = """
name: tap
defaults: {bandwidth: 1Gbps, latency: 1us}
topology:
  nodes:
    h1: {kind: host, netns: true, ip: 10.0.0.1/24, mac: "02:00:00:00:00:01"}
    h2: {kind: host, ip: 10.0.0.2/24, mac: "02:00:00:00:00:02"}
  links:
    - endpoints: ["h1", "h2"]
"""


@pytest.fixture
def tap_net():
    """(network, h1 the namespace host on one end of a socket pair, the other end: its kernel's side)."""
    net = Network.from_spec(load_yaml_topology(TOPOLOGY), netns_hosts=NetnsHost)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ours.setblocking(False)
    h1 = net.host("h1")
    assert isinstance(h1, NetnsHost)
    h1.fd = ours.fileno()
    yield net, h1, theirs
    h1.fd = None
    ours.close()
    theirs.close()


@pytest.mark.parametrize("length, on_the_wire", [(14, 60), (59, 60), (60, 60), (61, 61)])
def test_short_frames_are_padded_to_60_bytes(tap_net, length, on_the_wire):
    """The frame h2 receives is h1's bytes followed by zeros up to 60 bytes."""
    net, h1, _ = tap_net
    got = []
    net.host("h2").on_receive(lambda data, now: got.append(data) or True)
    frame = bytes.fromhex("020000000002" "020000000001" "88b5") + bytes(range(1, length - 13))
    frame = frame[:length]
    h1.send(frame)
    net.run(100_000)
    assert got == [frame + bytes(on_the_wire - length)]
    assert h1.stats.tx_bytes == on_the_wire and h1.ports[0].stats.tx_bytes == on_the_wire


@pytest.mark.no_pypy      # wall-clock bound
@pytest.mark.realtime
def test_a_frame_from_the_tap_enters_at_the_time_it_was_read(tap_net):
    """Once the paced run is past 20 ms, a frame is written to the TAP right after a step and
    the test then holds the loop 5 ms: the frame is read when the loop next waits, so it enters
    the network at least 5 ms after the time that step ran to (and before the run's end)."""
    net, h1, theirs = tap_net
    entered = []
    send = h1.send

    def stamped(frame: bytes) -> None:
        entered.append(net.sim.now)
        send(frame)

    h1.send = stamped
    written = []

    def after_step(sim_ns: int) -> None:
        if not written and sim_ns > 20_000_000:
            theirs.send(bytes.fromhex("020000000002" "020000000001" "88b5") + bytes(46))
            written.append(sim_ns)
            time.sleep(0.005)

    reached, report = run_realtime(net, 60_000_000, on_progress=after_step)
    assert reached and len(written) == 1
    assert len(entered) == 1 and written[0] + 5_000_000 <= entered[0] <= 60_000_000
    assert h1.stats.sent == 1
