"""run-packet's replay of a capture to per-port pcaps: the batch engine's bulk writer (records of
one length laid out at once, sorted by port) gives the per-packet engine's files byte for byte."""
from __future__ import annotations

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.pcap import PcapWriter
from dataplane.replay.run import run_packets
from dataplane.resources import builtin_program


@pytest.mark.parametrize("case", ["with drops", "all forwarded", "microseconds", "mixed lengths"])
def test_capture_to_three_ports_is_byte_identical_on_both_engines(tmp_path, case, monkeypatch):
    """All forwarded: the outputs are the inputs' records with their fields rewritten (in
    place); with drops or mixed lengths they are laid out from the outputs; a microsecond
    capture's records are not what the writer writes, so they are laid out too."""
    program = builtin_program("ipv4_router")
    # Interleaved destinations (ports 1, 2, 3 and a drop), distinct times and payloads.
    dsts = ["10.0.1.1", "10.0.2.2", "10.0.3.3", "11.0.0.1", "10.0.2.2", "10.0.1.1", "10.0.3.3"] * 5
    if case != "with drops":
        dsts = [d for d in dsts if d != "11.0.0.1"]
    capture = tmp_path / "in.pcap"
    with PcapWriter(capture, nanosecond=case != "microseconds") as w:
        for i, dst in enumerate(dsts):
            size = 4 if case != "mixed lengths" else i % 7
            frame = Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01") / IP(src="192.0.2.1", dst=dst) \
                / UDP(sport=1000 + i, dport=2000) / (bytes([i]) * size)
            w.write(bytes(frame), 1_000_000_007 * i)
    if case == "all forwarded":    # the records are copied, not laid out again
        from dataplane.pcap import writer
        monkeypatch.setattr(writer, "record_block", lambda *a, **k: pytest.fail("records laid out again"))
    files = {}
    for engine in ("packet", "batch"):
        sw = Switch.from_file(program)
        load_entries(sw, program.with_suffix(".json"))
        out = tmp_path / engine
        summary = run_packets(sw, 0, pcap=capture, out=out, engine=engine, echo=lambda _: None)
        assert summary == {"packets_in": len(dsts), "packets_out": {"1": 10, "2": 10, "3": 10},
                           "drops": len(dsts) - 30}
        files[engine] = {p.name: p.read_bytes() for p in sorted(out.glob("*.pcap"))}
    assert len(files["batch"]) == 3 and files["batch"] == files["packet"]
