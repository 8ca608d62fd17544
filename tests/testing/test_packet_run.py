"""run-packet's replay of a capture to per-port pcaps: the batch engine's bulk writer (records of
one length laid out at once, sorted by port) gives the per-packet engine's files byte for byte."""
from __future__ import annotations

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.pcap import PcapWriter
from dataplane.resources import builtin_program
from dataplane.testing.packet_run import run_packets


def test_same_length_capture_to_three_ports_is_byte_identical_on_both_engines(tmp_path):
    program = builtin_program("ipv4_router")
    # Interleaved destinations (ports 1, 2, 3 and a drop), one length, distinct times and payloads.
    dsts = ["10.0.1.1", "10.0.2.2", "10.0.3.3", "11.0.0.1", "10.0.2.2", "10.0.1.1", "10.0.3.3"] * 5
    capture = tmp_path / "in.pcap"
    with PcapWriter(capture) as w:
        for i, dst in enumerate(dsts):
            frame = Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01") / IP(src="192.0.2.1", dst=dst) \
                / UDP(sport=1000 + i, dport=2000) / (bytes([i]) * 4)
            w.write(bytes(frame), 1_000_000_007 * i)
    files = {}
    for engine in ("packet", "batch"):
        sw = Switch.from_file(program)
        load_entries(sw, program.with_suffix(".json"))
        out = tmp_path / engine
        summary = run_packets(sw, 0, pcap=capture, out=out, engine=engine, echo=lambda _: None)
        assert summary == {"packets_in": 35, "packets_out": {"1": 10, "2": 10, "3": 10}, "drops": 5}
        files[engine] = {p.name: p.read_bytes() for p in sorted(out.glob("*.pcap"))}
    assert len(files["batch"]) == 3 and files["batch"] == files["packet"]
