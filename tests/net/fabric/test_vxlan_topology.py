"""The shipped topologies/vxlan-dpu.yaml: two tenants on a VXLAN overlay, the VTEPs on DPUs
running programs/vxlan_dpu.p4, a leaf-spine of ecmp_router.p4 underneath.

Run as `dataplane run` runs it (pingall): same-tenant pings are answered over the tunnels
(ARP included), cross-tenant pings are dropped by the sender's DPU, the DPUs' counters say
so, nothing of one tenant reaches the other's host, and the leaf-spine links carry only
VXLAN that scapy and tshark dissect.
"""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from click.testing import CliRunner
from scapy.all import ARP, IP, UDP, Ether, rdpcap
from scapy.layers.vxlan import VXLAN

from dataplane.cli import main
from dataplane.net.apps.traffic import Traffic
from dataplane.net.fabric.network import Network
from dataplane.net.hosts.packets import ip_str
from dataplane.net.topology.load import load_topology
from dataplane.resources import data_dir

TOPOLOGY = data_dir("topologies") / "vxlan-dpu.yaml"
DURATION_NS = 10_000_000          # `dataplane run`'s default --duration

# host -> (inner IP, VNI, its DPU, the DPU's VTEP address), as the YAML and its entries set them.
HOSTS = {
    "h1": ("10.0.0.1", 100, "d1", "192.168.1.1"),
    "h2": ("10.0.0.2", 200, "d2", "192.168.1.2"),
    "h3": ("10.0.0.3", 100, "d3", "192.168.2.3"),
    "h4": ("10.0.0.4", 200, "d4", "192.168.2.4"),
}
VNI_OF_IP = {ip: vni for ip, vni, _, _ in HOSTS.values()}
VNI_OF_VTEP = {vtep: vni for _, vni, _, vtep in HOSTS.values()}
FABRIC_PORTS = ("leaf1-p3", "leaf1-p4", "leaf2-p3", "leaf2-p4", "spine1-p1", "spine1-p2", "spine2-p1", "spine2-p2")
DROP_COUNTERS = ("dropped_unconfigured", "dropped_unknown_tenant", "dropped_malformed", "dropped_not_vxlan",
                 "dropped_not_for_vtep", "dropped_no_i_flag", "dropped_unknown_vni")


def same_tenant(a: str, b: str) -> bool:
    return HOSTS[a][1] == HOSTS[b][1]


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """`dataplane run topologies/vxlan-dpu.yaml --traffic pingall-parallel --out DIR --json`: (summary, DIR)."""
    out = tmp_path_factory.mktemp("vxlan-dpu")
    res = CliRunner().invoke(main, ["run", str(TOPOLOGY), "--traffic", "pingall-parallel", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output), out


def test_pingall_reaches_the_own_tenant_only():
    net = Network.from_spec(load_topology(TOPOLOGY))
    heard: dict[str, set[str]] = {h: set() for h in HOSTS}     # source addresses each host received

    def listen(name):
        def on_frame(frame: bytes, _t: int) -> bool:
            pkt = Ether(frame)
            src = pkt[ARP].psrc if ARP in pkt else pkt[IP].src if IP in pkt else "?"
            heard[name].add(src)
            return False                      # let the host's stack have it
        return on_frame

    for h in HOSTS:
        net.host(h).on_receive(listen(h))
    tr = Traffic(net)
    tr.pattern("pingall-parallel", DURATION_NS)
    net.run(DURATION_NS)

    assert len(tr.pings) == 12
    for src, ping in tr.pings:
        dst = next(h for h, (ip, *_) in HOSTS.items() if ip == ip_str(ping.dst_ip))
        want = 1 if same_tenant(src, dst) else 0
        assert (ping.stats["sent"], ping.stats["received"]) == (1, want), (src, dst)
    assert tr.host_results() == {h: {"sent": 3, "delivered": 1, "lost": 2, "received": 2} for h in HOSTS}

    for h, (ip, vni, dpu, _) in HOSTS.items():
        # No frame of the other tenant reached the host; its peer's did (ARP, then ICMP).
        peer_ip = next(p for p, v in VNI_OF_IP.items() if v == vni and p != ip)
        assert heard[h] == {peer_ip}, h
        stats = net.host(h).stats
        assert stats.arp_requests_sent == 1 + 2 * 3           # peer once; each cross-tenant address 3 tries
        assert stats.dropped_no_arp == 2                      # the two cross-tenant pings
        api = net.dpu(dpu).api
        # Both ways per pair: ARP request, ARP reply, echo request, echo reply.
        assert api.counter_read("encapsulated", 0)[0] == 4, dpu
        assert api.counter_read("decapsulated", 0)[0] == 4, dpu
        assert api.counter_read("dropped_unknown_dest", 0)[0] == 6, dpu      # the cross-tenant ARPs
        assert [api.counter_read(c, 0)[0] for c in DROP_COUNTERS] == [0] * len(DROP_COUNTERS), dpu
        assert net.dpu(dpu).stats.dropped == 6
    for name, sw in net.switches.items():
        assert not sw.drops, name


def test_cli_summary(cli_run):
    data, _ = cli_run
    assert data["hosts"] == {h: {"sent": 3, "delivered": 1, "lost": 2, "received": 2} for h in HOSTS}
    assert {name: m["drops"] for name, m in data["switches"].items()} == {s: {} for s in data["switches"]}
    # 16 VXLAN frames cross from leaf to leaf; the outer UDP source port spreads them over both spines.
    spines = {s: data["switches"][s]["packets_in"] for s in ("spine1", "spine2")}
    assert sum(spines.values()) == 16 and min(spines.values()) > 0, spines
    for _h, (_, _, dpu, _) in HOSTS.items():
        assert data["dpus"][dpu]["processed"] == 14 and data["dpus"][dpu]["outputs"] == 8
        assert sum(data["dpus"][dpu]["drops"].values()) == 6


def test_human_summary():
    res = CliRunner().invoke(main, ["run", str(TOPOLOGY)])
    assert res.exit_code == 0, res.output
    assert "topology vxlan-dpu: 4 switches, 4 DPUs, 4 hosts, 12 links; traffic pingall" in res.output
    for h in HOSTS:
        assert any(line.split() == [h, "3", "1", "2", "2"] for line in res.output.splitlines()), res.output


def test_fabric_links_carry_only_vxlan(cli_run):
    _, out = cli_run
    frames = [p for port in FABRIC_PORTS for p in rdpcap(str(out / "pcap" / f"{port}.pcap"))]
    assert len(frames) == 32            # 16 frames, each on a leaf->spine and a spine->leaf link
    vnis = set()
    for pkt in frames:
        layers = [type(layer).__name__ for layer in pkt.iterpayloads()][:5]
        assert layers == ["Ether", "IP", "UDP", "VXLAN", "Ether"], pkt.summary()
        vx, outer_ip = pkt[VXLAN], pkt[IP]
        assert (pkt[UDP].dport, int(vx.flags)) == (4789, 0x08)
        assert 49152 <= pkt[UDP].sport <= 65535
        # Outer addresses are the tunnel's two VTEPs, both of the VNI's tenant; so is the inner frame.
        assert VNI_OF_VTEP[outer_ip.src] == VNI_OF_VTEP[outer_ip.dst] == vx.vni
        inner = vx.payload
        inner_src = inner[ARP].psrc if ARP in inner else inner[IP].src
        inner_dst = inner[ARP].pdst if ARP in inner else inner[IP].dst
        assert VNI_OF_IP[inner_src] == VNI_OF_IP[inner_dst] == vx.vni
        vnis.add(vx.vni)
    assert vnis == {100, 200}


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_decodes_the_fabric_capture_as_vxlan(cli_run):
    _, out = cli_run
    pcaps = [str(out / "pcap" / f"{port}.pcap") for port in ("leaf1-p3", "leaf1-p4")]
    rows = []
    for pcap in pcaps:
        done = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-E", "separator=|", "-e", "udp.dstport",
                               "-e", "vxlan.flags", "-e", "vxlan.vni"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        rows += done.stdout.strip().splitlines()
    assert len(rows) == 8
    assert {row for row in rows} == {"4789|0x0800|100", "4789|0x0800|200"}
