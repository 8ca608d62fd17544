"""tools/bench_pcap.py's workload: 64-byte IPv4/UDP packets with valid checksums, every one to an
address the routes cover, so the benchmark times forwarding rather than drops."""
from __future__ import annotations

import random

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether


def test_packets_are_valid_and_routed(tmp_path, load_tool):
    bench = load_tool("bench_pcap")
    routes = bench.make_routes(random.Random(1))
    data = bench.make_batch(routes, 300)
    assert data.shape == (300, 64)
    for row in data:
        frame = Ether(row.tobytes())
        ip = frame[IP]
        stored = ip.chksum
        del ip.chksum
        assert IP(bytes(ip)).chksum == stored and frame[UDP].dport == 2000
        dst = int.from_bytes(row[30:34].tobytes(), "big")
        assert any(dst >> (32 - plen) == prefix >> (32 - plen) for prefix, plen, _, _ in routes)
    entries = tmp_path / "routes.txt"
    bench.write_entries(entries, routes)
    first = entries.read_text().splitlines()[0].split()
    assert first[:3] == ["table_add", "ipv4_lpm", "ipv4_forward"] and first[4] == "=>" and len(first) == 7
