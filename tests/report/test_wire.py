"""dataplane.report.wire: a port's utilisation over its own window (first to last arrival of its
frames), and the frames arriving at hosts per flow, in bins that widen with the run and merge
across ranks into what one process keeps."""
from __future__ import annotations

import random

import pytest

from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.fabric.network import Network
from dataplane.net.topology.load import load_topology
from dataplane.report.record import Recorder
from dataplane.report.wire import FIRST_BIN_NS, FLOW_BINS, Arrivals, flow_key, utilisation
from dataplane.resources import data_dir

# basic.yaml: 10 Gb/s Ethernet links, 1 us latency. A UDP payload of 1000 B is a 1042 B frame
# (Ethernet 14 + IPv4 20 + UDP 8), 1066 B of line time with FCS, preamble and gap: 852.8 ns.
LINE_NS = (1000 + 42 + 24) * 8 / 10


def _send(packets: int, rate_bps: int) -> tuple[Network, Recorder]:
    net = Network.from_spec(load_topology(data_dir("topologies") / "basic.yaml"), seed=1)
    UdpSink(net.host("h2"), 5001)
    UdpFlow(net.host("h1"), "10.0.2.2", rate_bps, size_bytes=1000, total_bytes=1000 * packets)
    rec = Recorder(net)
    net.run(1_000_000)
    rec.stop()
    return net, rec


@pytest.mark.parametrize("packets", [1, 2, 50])
def test_a_port_reads_its_frames_line_time_over_the_gaps_between_their_arrivals(packets):
    """Frames every 1600 ns (1000 B of payload at 5 Gb/s) on a 10 Gb/s line: 852.8 / 1600 of
    the window between the first and the last arrival; one frame bounds no gap (no window)."""
    net, rec = _send(packets, 5_000_000_000)
    port = net.host("h1").port
    window, util = utilisation(rec.line_facts[rec.ports.index(port)])
    if packets == 1:
        assert (window, util) == (None, None)
        return
    # each frame alone on the line: sent at k * 1600 ns, whole ns of serialization, then 1 us
    assert window == [int(LINE_NS) + 1000, (packets - 1) * 1600 + int(LINE_NS) + 1000]
    assert util == round(LINE_NS / 1600, 4)


def test_a_port_sending_back_to_back_reads_fully_used():
    """Offered above the line rate, the host's port sends back to back: 100 %, not the 99.9 %
    whole nanoseconds per frame would make of 852.8 ns frames."""
    net, rec = _send(400, 20_000_000_000)
    _, util = utilisation(rec.line_facts[rec.ports.index(net.host("h1").port)])
    assert util == 1.0


def _frame(src: int, dst: int, sport: int, dport: int, size: int = 100, vlan: bool = False) -> bytes:
    eth = bytes(12) + (b"\x81\x00\x00\x05" if vlan else b"") + b"\x08\x00"
    ip = bytes([0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0]) + src.to_bytes(4, "big") + dst.to_bytes(4, "big")
    return (eth + ip + sport.to_bytes(2, "big") + dport.to_bytes(2, "big")).ljust(size, b"\0")


def test_flow_key_reads_ipv4_through_vlan_tags_and_leaves_other_frames():
    assert flow_key(_frame(1, 2, 3, 4)) == (1, 2, 17, 3, 4)
    assert flow_key(_frame(1, 2, 3, 4, vlan=True)) == (1, 2, 17, 3, 4)
    assert flow_key(bytes(12) + b"\x08\x06" + bytes(28)) is None                  # ARP
    icmp = bytearray(_frame(1, 2, 3, 4))
    icmp[23] = 1
    assert flow_key(bytes(icmp)) == (1, 2, 1, None, None)


def test_flow_bins_widen_when_their_span_reaches_the_limit():
    """Arrivals FLOW_BINS - 1 bins apart keep the first width; one bin further doubles it,
    and the bytes stay with their flow."""
    arrivals = Arrivals([])
    a, b = _frame(1, 2, 3, 4, 100), _frame(5, 2, 3, 4, 60)
    arrivals.frame(a, 0)
    arrivals.frame(b, (FLOW_BINS - 1) * FIRST_BIN_NS)
    assert arrivals.bin_ns == FIRST_BIN_NS
    arrivals.frame(a, FLOW_BINS * FIRST_BIN_NS)
    assert arrivals.bin_ns == 2 * FIRST_BIN_NS
    assert arrivals.flows == {(1, 2, 17, 3, 4): {0: 100, FLOW_BINS // 2: 100}, (5, 2, 17, 3, 4): {(FLOW_BINS - 1) // 2: 60}}
    series = arrivals.series({1: "h1", 2: "h2"})
    assert set(series) == {"h1 → h2 UDP 3→4", "0.0.0.5 → h2 UDP 3→4"}
    assert sum(g * arrivals.bin_ns / 8 for _, g in series["h1 → h2 UDP 3→4"]) == 200


def test_arrivals_kept_on_two_ranks_merge_into_what_one_process_keeps():
    """Each rank sees its own hosts' arrivals and widens its bins on its own; merged on rank 0
    they hold the bins and width of one process that saw them all."""
    rng = random.Random(7)
    # hosts 0 and 2 (rank 0) receive over 3 ms, 1 and 3 (rank 1) over 0.5 ms: finer bins there
    events = sorted((rng.randrange(3_000_000 if host % 2 == 0 else 500_000), host, rng.randrange(40, 1500))
                    for host in (rng.randrange(4) for _ in range(2000)))
    one, ranks = Arrivals([]), [Arrivals([]), Arrivals([])]
    for t, host, size in events:
        frame = _frame(10 + host % 3, host, 100 + host, 4791, size)
        one.frame(frame, t)
        ranks[host % 2].frame(frame, t)      # hosts 0 and 2 on rank 0, 1 and 3 on rank 1
    assert ranks[1].bin_ns < ranks[0].bin_ns
    merged = Arrivals([])
    merged.merge([r.part() for r in ranks])
    assert (merged.bin_ns, merged.lo, merged.hi, merged.flows) == (one.bin_ns, one.lo, one.hi, one.flows)
