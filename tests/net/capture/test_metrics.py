"""The text summary of ``dataplane run``: every number says what it counts, nothing is left out
silently; a port's utilisation is the share of the run its line was busy, never more than all of it."""
from types import SimpleNamespace

import pytest

from dataplane.net.capture.metrics import format_table, port_metrics
from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Link
from dataplane.net.devices.node import Node


def _port(tx: int = 0, rx: int = 0, drops: int = 0) -> dict:
    return {"tx_packets": tx, "tx_bytes": tx * 100, "rx_packets": rx, "drops": drops, "lost": 0,
            "max_qdepth": 0, "p99_qdepth": 0, "pause_tx": 0, "pause_rx": 0, "paused_ns": 0, "utilisation": 0.0}


def _data(n_hosts: int, ports: dict, switches: dict) -> dict:
    hosts = {f"h{i}": {"sent": i, "delivered": i, "lost": 0, "received": 10 * i} for i in range(n_hosts, 0, -1)}
    return {"sim_time_ns": 1_000_000, "events": 5, "hosts": hosts, "ports": ports, "switches": switches}


def test_hosts_in_natural_order_with_received_and_units():
    out = format_table(_data(10, {}, {})).splitlines()
    header = next(line for line in out if line.startswith("host"))
    assert header.split() == ["host", "sent", "pkts", "delivered", "lost", "received", "pkts"]
    rows = [line.split() for line in out if line.startswith("h")][1:]
    assert [r[0] for r in rows] == [f"h{i}" for i in range(1, 11)]
    assert rows[1] == ["h2", "2", "2", "0", "20"]


def test_port_table_says_how_many_ports_it_left_out():
    ports = {f"s1:p{i}": _port(tx=i) for i in range(1, 6)}
    ports.update({f"s2:p{i}": _port() for i in range(1, 4)})
    out = format_table(_data(1, ports, {}), top_ports=4)
    assert "tx bytes" in out and "max q pkts" in out
    assert [line.split()[0] for line in out.splitlines() if line.startswith(("s1:", "s2:"))] == \
        ["s1:p5", "s1:p4", "s1:p3", "s1:p2"]
    assert "... 4 more ports not shown (3 of them idle)" in out
    assert "more ports" not in format_table(_data(1, ports, {}), top_ports=0)


def test_program_drops_listed_by_switch_and_reason():
    switches = {"s10": {"packets_in": 3, "drops": {"mark_to_drop": 3}}, "s2": {"packets_in": 1, "drops": {}},
                "s9": {"packets_in": 2, "drops": {"mark_to_drop": 1, "no port 7": 1}}}
    out = format_table(_data(1, {}, switches)).splitlines()
    assert [line for line in out if line.startswith("switch")] == [
        "switch s9 dropped: mark_to_drop: 1, no port 7: 1", "switch s10 dropped: mark_to_drop: 3"]
    quiet = format_table(_data(1, {}, {"s1": {"packets_in": 1, "drops": {}}}))
    assert "switches dropped no packets" in quiet


# 1,000-byte frames (1,024 B of line time with FCS, preamble, SFD and gap) at 1 Gb/s: 8,192 ns each.
FRAME_NS = 1024 * 8


class _Sink(Node):
    def receive(self, port, data):
        pass


def _utilisation(start_ns: int, frames: int, end_ns: int, size: int = 1000, rate_bps: int = 1_000_000_000) -> float:
    """Port a's utilisation when it sends ``frames`` of ``size`` bytes back to back from
    ``start_ns`` and the run stops at ``end_ns``."""
    sim = Simulator()
    a, b = _Sink(sim, "a"), _Sink(sim, "b")
    pa, pb = a.add_port(0, "a:p0"), b.add_port(0, "b:p0")
    pa.capacity = 100
    Link(sim, pa, pb, rate_bps, 0)
    for _ in range(frames):
        sim.at(start_ns, a.transmit, 0, bytes(size))
    sim.run(until_ns=end_ns)
    assert sim.now == end_ns
    return port_metrics(SimpleNamespace(sim=sim, switches={"a": a, "b": b}, hosts={}))["a:p0"]["utilisation"]


@pytest.mark.parametrize("end_frames, expected", [
    (9.5, 1.0),            # the 10th frame is half sent when the run ends: half of it lies outside
    (10, 1.0),             # the run ends as the last frame's gap ends
    (11, round(10 / 11, 4)),   # one frame time idle at the end
])
def test_a_line_busy_to_the_end_of_the_run_reads_100_percent_never_more(end_frames, expected):
    """The frame on the wire when the run ends counts only up to the end (it was counted whole when
    it started: a k=8 fat-tree's summary read 100.2%)."""
    assert _utilisation(0, 10, int(end_frames * FRAME_NS)) == expected


def test_a_frame_cut_by_the_end_counts_the_part_inside_the_run():
    """Idle for 5 frame times, then busy: the run ends 4.5 frames later, mid-frame, so the line was
    busy 4.5 of its 9.5 frame times (counting the cut frame whole would read 5 of 9.5)."""
    assert _utilisation(5 * FRAME_NS, 10, int(9.5 * FRAME_NS)) == round(4.5 / 9.5, 4)


def test_frame_times_rounded_down_to_whole_ns_never_lift_it_past_100_percent():
    """Three 64-byte frames at 100 Gb/s take 3 x 7.04 = 21.12 ns of line time, which the port
    serializes in 21 whole ns: a run that ends at 21 ns was busy all of it, not 21.12 / 21."""
    assert _utilisation(0, 3, 21, size=64, rate_bps=100_000_000_000) == 1.0
    assert _utilisation(0, 3, 22, size=64, rate_bps=100_000_000_000) == round(21.12 / 22, 4)
