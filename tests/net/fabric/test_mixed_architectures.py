"""One network, three architectures (tests/net/data/mixed_arch.yaml): h1 - s1 (v1model) -
s2 (PSA) - h2, whose NIC runs an XDP program. Each device does its part to the same packets."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scapy.layers.inet import IP
from scapy.layers.l2 import Ether
from scapy.utils import rdpcap

from dataplane.net.fabric.network import Network
from dataplane.net.hosts.xdp_host import XdpHost
from dataplane.net.topology.load import load_topology

TOPOLOGY = Path(__file__).parents[1] / "data" / "mixed_arch.yaml"


def test_v1model_and_psa_switches_route_to_a_host_whose_xdp_program_filters(tmp_path):
    """UDP 9 is dropped by h2's program, UDP 7 is echoed by it (back through s2 and s1 to h1),
    UDP 6000 reaches h2's stack; s1 (failover.p4) forwards without touching the TTL, s2
    (psa_router.p4) decrements it."""
    net = Network.from_spec(load_topology(TOPOLOGY))
    h1, h2, s1, s2 = net.host("h1"), net.host("h2"), net.switch("s1"), net.switch("s2")
    assert (s1.dp.architecture, s2.dp.architecture) == ("v1model", "psa") and isinstance(h2, XdpHost)
    at_h2, at_h1 = [], []
    h2.bind_udp(6000, lambda ip, sport, payload, tos, t: at_h2.append(payload))
    h1.bind_udp(40000, lambda ip, sport, payload, tos, t: at_h1.append((sport, payload)))
    net.capture(tmp_path)
    for i, (dport, payload) in enumerate([(9, b"a"), (9, b"b"), (7, b"echo"), (6000, b"data")]):
        net.sim.at(i * 10_000, h1.send_udp, h2.ip, 40000, dport, payload)
    net.run(until_ns=200_000)

    assert s1.packets_in == 5 and s2.packets_in == 5 and not s1.drops and not s2.drops
    st = h2.xdp_stats
    assert (st.processed, st.passed, st.tx) == (4, 1, 1) and st.drops == {"XDP_DROP": 2}
    assert at_h2 == [b"data"] and at_h1 == [(7, b"echo")]
    def toward_h2(pcap: str) -> list:
        return [p for p in rdpcap(str(tmp_path / pcap)) if p[Ether].dst == "02:00:00:00:00:02"]

    assert [p[IP].ttl for p in toward_h2("s1-p2.pcap")] == [64] * 4
    assert [p[IP].ttl for p in toward_h2("s2-p2.pcap")] == [63] * 4


def test_dataplane_run_reports_every_architecture():
    out = subprocess.run([sys.executable, "-m", "dataplane", "run", str(TOPOLOGY), "--duration", "1ms", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["xdp"]["h2"]["passed"] == 2
    assert all(h["lost"] == 0 for h in summary["hosts"].values())
