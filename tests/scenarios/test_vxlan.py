"""``dataplane scenario vxlan`` (dataplane/scenarios/vxlan.py + dataplane/net/apps/vxlan.py) at small sizes.

Servers as the scenario lays them out: with 4 hosts and 2 tenants, servers 1-2 sit on leaf1
and 3-4 on leaf2; tenant 0 is servers 1 and 3, tenant 1 servers 2 and 4, and both tenants'
VMs are 10.0.0.1 and 10.0.0.2 with the same MACs.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import zlib
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.layers.vxlan import VXLAN
from scapy.packet import raw
from scapy.utils import rdpcap

from dataplane.cli import main
from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_file
from dataplane.net.apps import vxlan as vx
from dataplane.net.capture.pcap import read_pcap
from dataplane.net.core.sim import Simulator
from dataplane.net.hosts.host import Host
from dataplane.net.topology.spec import HostSpec
from dataplane.resources import builtin_program
from dataplane.scenarios.vxlan import JSON_KEYS, VNI_BASE, VxlanConfig, build_fabric, run_mode, run_vxlan

pytestmark = pytest.mark.simulation      # runs in the PyPy re-run only, when there is one (tests/conftest.py)

SMALL = dict(hosts=4, tenants=2, duration_ns=10_000, stray_packets=5)


@lru_cache(maxsize=None)
def small_row() -> dict:
    return run_vxlan(VxlanConfig(**SMALL))


@pytest.fixture(scope="module")
def pcaps(tmp_path_factory) -> Path:
    """Both modes of the small run, captured: <dir>/<mode>/spine1-p1.pcap, h1-eth0.pcap (, dpu1-p0.pcap)."""
    root = tmp_path_factory.mktemp("vxlan")
    for mode in ("offload", "software"):
        run_mode(VxlanConfig(**SMALL), mode, root / mode)
    return root


# ---- isolation and delivery -----------------------------------------------------------------------------

def test_tenants_share_inner_addresses_and_nothing_leaks_between_them():
    cfg = VxlanConfig(**SMALL)
    for t in range(cfg.tenants):
        members = [i for i in range(cfg.hosts) if cfg.tenant(i) == t]
        assert [(cfg.inner_ip(i), cfg.inner_mac(i)) for i in members] == \
               [(0x0A000001, 0x020000000001), (0x0A000002, 0x020000000002)]
    row = small_row()
    assert row["cross_tenant_leaks"] == 0
    for mode in ("offload", "software"):
        assert row["modes"][mode]["misdelivered"] == 0


def test_a_vni_wired_to_the_wrong_tenant_shows_up_as_leaks():
    """The leak counter works: point tenant 1's 10.0.0.1 at server 1's DPU (tenant 0) and let
    that DPU hand VNI 5001 to its VM; tenant 1's packets then land in tenant 0."""
    fab = build_fabric(VxlanConfig(**SMALL), "offload")
    dpu1, dpu4 = fab.net.dpu("dpu1").api, fab.net.dpu("dpu4").api
    (entry,) = dpu4.table_entries("remote_vtep")          # (5001, 10.0.0.1) -> server 2's VTEP
    dpu4.table_modify("remote_vtep", entry.handle, "set_remote_vtep", [fab.vtep_ips[0], fab.gateways[3], 0])
    dpu1.table_add("vni_to_port", "to_host", [VNI_BASE + 1], [1])
    fab.net.run()
    leaks = fab.sinks[0].stats["cross_tenant_leaks"]
    assert leaks > 0 and leaks == fab.senders[3].sent_to[1]
    assert fab.sinks[1].stats["delivered"] == 0            # tenant 1's 10.0.0.1 got nothing from server 4


def test_every_packet_is_delivered_in_both_modes():
    row = small_row()
    off, sw = row["modes"]["offload"], row["modes"]["software"]
    assert off["sent"] > 0 and off["sent"] == sw["sent"]
    assert off["delivered"] == off["sent"] and sw["delivered"] == sw["sent"]
    assert off["every_pair_complete"] and sw["every_pair_complete"]
    assert row["delivered"] == row["delivered_software"] == row["sent"]


def test_unknown_vni_drops_equal_the_injected_packets():
    row = small_row()
    for mode in ("offload", "software"):
        m = row["modes"][mode]
        assert m["injected_unknown_vni"] == 5 and m["dropped_unknown_vni"] == 5
        other = {k: v for k, v in m["counters"].items()
                 if k.startswith("dropped_") and k != "dropped_unknown_vni"}
        assert not any(other.values()), other
    assert row["modes"]["offload"]["dpu_drops"] == 0


# ---- ECMP entropy ---------------------------------------------------------------------------------------

def test_the_flows_of_one_vtep_pair_spread_over_both_spines():
    """Two servers on different leaves, 8 flows each way: only the outer source port differs
    between a direction's flows, so a balanced split needs it (one port per direction could
    use at most 2 ports in all)."""
    r = run_mode(VxlanConfig(hosts=2, tenants=1, flows_per_pair=8, duration_ns=2_000, stray_packets=0), "software")
    assert sum(r["spine_share"].values()) == pytest.approx(1.0)
    for spine, share in r["spine_share"].items():
        assert 0.3 <= share <= 0.7, r["spine_share"]
        assert r["spine_sports"][spine] >= 4
    assert sum(r["spine_sports"].values()) == 16


def test_software_and_dpu_vteps_put_the_same_frames_on_the_spine(pcaps):
    """Same outer bytes (hence the same ECMP paths) from the software VTEP and vxlan_dpu.p4."""
    frames = {m: sorted(d for _, d in read_pcap(pcaps / m / "spine1-p1.pcap")) for m in ("offload", "software")}
    assert len(frames["offload"]) > 10
    assert frames["offload"] == frames["software"]


# ---- cost model ----------------------------------------------------------------------------------------

def test_software_host_cores_are_packets_times_cpu_time_over_the_duration():
    cfg = VxlanConfig(**SMALL, host_ns_per_packet=800, offload_ns_per_packet=50)
    row = run_vxlan(cfg)
    sent, injected = row["sent"], row["injected_unknown_vni"]
    # Each packet is encapsulated once and decapsulated once; each stray packet inspected once.
    assert row["host_cores_software"] == pytest.approx((2 * sent + injected) * 800 / cfg.duration_ns, abs=1e-3)
    # Offload: only the frames the VMs exchange with their DPUs, at the driver cost.
    assert row["host_cores_offload"] == pytest.approx(2 * sent * 50 / cfg.duration_ns, abs=1e-3)
    assert row["host_cores_offload"] < row["host_cores_software"]


def test_dpu_load_is_the_pipeline_time_of_its_packets():
    """400 Gb/s, 150 Mpps: a 1042-byte inner frame holds the pipeline 20.84 ns, its 1092-byte
    outer frame 21.84 ns, both above the 6.67 ns packet slot; a 180-byte stray frame 6.67 ns.
    Utilisation counts only the busy time inside the sending window, so it is a little less."""
    row = small_row()
    inner, outer = 1042 * 8 / 400, 1092 * 8 / 400
    stray = max(1000 / 150, (vx.pk.udp_frame_len(vx.STAMP.size + 64) + vx.OVERHEAD) * 8 / 400)
    busy = row["sent"] * (inner + outer) + row["injected_unknown_vni"] * stray
    assert row["dpu_load_mean"] == pytest.approx(busy / (4 * SMALL["duration_ns"]), abs=1e-4)
    assert 0.3 < row["dpu_utilisation_mean"] <= row["dpu_load_mean"] < 1
    assert row["dpu_utilisation_mean"] <= row["dpu_utilisation_max"] < 1


# ---- the wire format -------------------------------------------------------------------------------------

def _entropy(inner_ip: IP) -> int:
    """49152 + CRC-32 % 16384 of (src, dst, proto, sport, dport), computed apart from the code under test."""
    data = (bytes(map(int, inner_ip.src.split("."))) + bytes(map(int, inner_ip.dst.split("."))) + bytes([17])
            + inner_ip[UDP].sport.to_bytes(2, "big") + inner_ip[UDP].dport.to_bytes(2, "big"))
    return 49152 + zlib.crc32(data) % 16384


def test_outer_packets_on_a_spine_link_dissect_as_vxlan_in_scapy(pcaps):
    packets = rdpcap(str(pcaps / "offload" / "spine1-p1.pcap"))
    assert len(packets) > 10
    vnis = set()
    for p in packets:
        assert p.haslayer(VXLAN), p.summary()
        outer_ip, outer_udp, vxlan = p[IP], p[UDP], p[VXLAN]
        assert outer_udp.dport == 4789 and outer_udp.chksum == 0
        assert vxlan.flags == 0x08 and raw(vxlan)[:4] == b"\x08\x00\x00\x00"
        assert outer_ip.len == len(p) - 14 and outer_udp.len == len(p) - 34
        header = IP(raw(outer_ip)[:20])
        header.chksum = None                              # scapy recomputes it
        assert raw(header)[10:12] == raw(outer_ip)[10:12] and outer_ip.id == 0 and outer_ip.ttl < 64
        inner = vxlan.payload
        assert isinstance(inner, Ether) and inner.haslayer(IP)
        vnis.add(vxlan.vni)
        if inner[UDP].dport == vx.APP_PORT and vxlan.vni in (VNI_BASE, VNI_BASE + 1):
            assert outer_udp.sport == _entropy(inner[IP])
    assert vnis <= {VNI_BASE, VNI_BASE + 1, VNI_BASE + 2} and {VNI_BASE, VNI_BASE + 1} <= vnis


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_decodes_the_spine_capture_as_vxlan(pcaps):
    out = subprocess.run(["tshark", "-r", str(pcaps / "offload" / "spine1-p1.pcap"), "-T", "fields",
                          "-e", "vxlan.vni", "-e", "udp.dstport", "-e", "ip.dst"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) > 10
    for line in out:
        vni, ports, dsts = line.split("\t")
        assert int(vni) in (VNI_BASE, VNI_BASE + 1, VNI_BASE + 2)
        assert ports.split(",")[0] == "4789"
        assert dsts.split(",")[1].startswith("10.0.0.")      # the inner packet, decoded too


# ---- the software VTEP against vxlan_dpu.p4 ----------------------------------------------------------------

VTEP_IP, VTEP_MAC, LEAF_MAC, PEER_IP = 0x0A000102, 0x02000A000102, 0x02FE00030001, 0x0A000202
VM_MAC, PEER_MAC = 0x020000000001, 0x020000000002


@lru_cache(maxsize=1)
def _program():
    return compile_file(builtin_program("vxlan_dpu")).program


def _dpu() -> Switch:
    sw = Switch(_program(), name="dpu", net_ports=(0,))
    sw.table_set_default("vtep_config", "set_vtep", {"vtep_ip": VTEP_IP, "vtep_mac": VTEP_MAC,
                                                     "gateway_mac": LEAF_MAC, "uplink_port": 0})
    sw.table_add("tenant_of_port", "set_tenant", [1], [VNI_BASE])
    sw.table_add("vni_to_port", "to_host", [VNI_BASE], [1])
    sw.table_add("remote_vtep", "set_remote_vtep", [VNI_BASE, 0x0A000002], [PEER_IP, LEAF_MAC, 0])
    return sw


def _software():
    host = Host(Simulator(0), HostSpec("server", VTEP_MAC, VTEP_IP, 24))
    vtep = vx.SoftwareVtep(host, LEAF_MAC, 1000)
    vm = vtep.add_vm(HostSpec("vm", VM_MAC, 0x0A000001, 24, None, {0x0A000002: PEER_MAC}), VNI_BASE)
    vtep.add_remote(VNI_BASE, 0x0A000002, PEER_IP)
    sent, got = [], []
    host.send_raw = sent.append               # catch what would go on the wire
    vm.receive = lambda port, frame: got.append(frame)
    return vtep, vm, sent, got


def _counters(sw: Switch) -> dict[str, int]:
    return {name: sw.counter_read(name, 0)[0] for name in vx.COUNTERS}


def _inner(src: str = "10.0.0.1", dst: str = "10.0.0.2", **ip) -> bytes:
    """A VM's UDP frame exactly as the Host stack builds it (id 1, TTL 64, UDP checksum 0)."""
    return raw(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP(src=src, dst=dst, id=1, **ip)
               / UDP(sport=1234, dport=5678, chksum=0) / (b"x" * 100))


def test_software_encapsulation_is_byte_identical_to_the_dpu():
    vtep, vm, sent, _ = _software()
    vm.send_udp("10.0.0.2", 1234, 5678, b"x" * 100, tos=0x2A)
    vm.send_echo_request("10.0.0.2", 7, 1, b"ping")
    vm.send_raw(Ether(src="02:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.0.0.1", pdst="10.0.0.2"))
    vm.send_udp("10.0.0.9", 1, 2, b"x")     # ARPs for 10.0.0.9 first: no remote_vtep entry for it
    assert sent[0][vx.OVERHEAD:] == _inner(tos=0x2A)
    assert len(sent) == 3
    for frame in sent:                      # the DPU, given the same inner frame, sends the same bytes
        assert [(o.port, o.data) for o in _dpu().send(1, frame[vx.OVERHEAD:])] == [(0, frame)]
    assert {k: v for k, v in vtep.counters.items() if v} == {"encapsulated": 3, "dropped_unknown_dest": 1}
    assert vtep.cpu_ns == 4 * 1000


INNER = raw(Ether(src="02:00:00:00:00:02", dst="02:00:00:00:00:01") / IP(src="10.0.0.2", dst="10.0.0.1", tos=2)
            / UDP(sport=9, dport=vx.APP_PORT) / (b"y" * 40))


def _outer(inner: bytes = INNER, *, flags: int = 0x08, vni: int = VNI_BASE, dst: str = "10.0.1.2",
           more_fragments: bool = False) -> bytes:
    """A VXLAN packet from another VTEP as it reaches this one (scapy, flags always explicit)."""
    return raw(Ether(src="02:fe:00:03:00:01", dst="02:00:0a:00:01:02")
               / IP(src="10.0.2.2", dst=dst, id=0, flags=1 if more_fragments else 0)
               / UDP(sport=50000, dport=4789, chksum=0) / VXLAN(flags=flags, vni=vni) / inner)


def _bad_checksum() -> bytes:
    f = _outer()
    return f[:24] + bytes([f[24] ^ 0xFF]) + f[25:]


@pytest.mark.parametrize("frame", [
    pytest.param(_outer, id="good"),
    pytest.param(lambda: _outer(vni=VNI_BASE + 9), id="unknown-vni"),
    pytest.param(lambda: _outer(flags=0x04), id="no-i-flag"),
    pytest.param(lambda: _outer(flags=0x0C), id="gpe-bits-ignored"),
    pytest.param(lambda: _outer(dst="10.0.1.3"), id="other-vtep"),
    pytest.param(lambda: _outer(more_fragments=True), id="more-fragments"),
    pytest.param(_bad_checksum, id="bad-checksum"),
    pytest.param(lambda: _outer() + bytes(4), id="trailing-bytes"),
    pytest.param(lambda: _outer()[:70], id="truncated-inner"),
    pytest.param(lambda: _outer()[:46], id="truncated-vxlan"),
])
def test_software_decapsulation_counts_and_delivers_what_the_dpu_does(frame):
    frame = frame()
    dpu = _dpu()
    outputs = dpu.send(0, frame)
    vtep, _, _, got = _software()
    assert vtep._on_frame(frame, 0) is True
    assert {k: v for k, v in vtep.counters.items() if v} == {k: v for k, v in _counters(dpu).items() if v}
    assert got == [o.data for o in outputs]


def test_the_host_stack_keeps_what_is_not_vxlan():
    """The DPU drops other traffic for itself (dropped_not_vxlan); the software VTEP leaves it
    to the host stack, unseen and uncharged."""
    frame = raw(Ether(dst="02:00:0a:00:01:02") / IP(dst="10.0.1.2") / UDP(dport=53) / b"dns")
    dpu = _dpu()
    assert dpu.send(0, frame) == [] and _counters(dpu)["dropped_not_vxlan"] == 1
    vtep, _, _, _ = _software()
    assert vtep._on_frame(frame, 0) is False and vtep.cpu_ns == 0


@pytest.mark.parametrize("tos, chksum, inner_ecn", [
    (2, None, 3), (1, None, 3),            # ECT(0), ECT(1): marked CE
    (0, None, 0),                          # Not-ECT: delivered unchanged
    (2, 0x1234, 3),                        # a wrong inner checksum is updated, not repaired
])
def test_outer_ce_reaches_the_inner_packet_as_the_dpu_does_it(tos, chksum, inner_ecn):
    inner = raw(Ether(src="02:00:00:00:00:02", dst="02:00:00:00:00:01")
                / IP(src="10.0.0.2", dst="10.0.0.1", tos=tos, chksum=chksum) / UDP(sport=9, dport=4000) / b"z")
    frame = raw(Ether(src="02:fe:00:03:00:01", dst="02:00:0a:00:01:02") / IP(src="10.0.2.2", dst="10.0.1.2", tos=3)
                / UDP(sport=50000, dport=4789, chksum=0) / VXLAN(flags=0x08, vni=VNI_BASE) / inner)
    want = [o.data for o in _dpu().send(0, frame)]
    vtep, _, _, got = _software()
    vtep._on_frame(frame, 0)
    assert got == want and got[0][15] & 3 == inner_ecn


# ---- the command ----------------------------------------------------------------------------------------

def test_cli_json_has_the_documented_keys():
    res = CliRunner().invoke(main, ["scenario", "vxlan", "--hosts", "4", "--duration", "3us", "--stray", "2", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["results"]
    assert len(rows) == 1 and set(JSON_KEYS) <= set(rows[0])
    r = rows[0]
    assert r["tenants"] == 2 and r["delivered"] > 0 and r["cross_tenant_leaks"] == 0
    assert r["dropped_unknown_vni"] == 2 and set(r["spine_share"]) == {"spine1", "spine2"}
    assert r["host_cores_software"] > r["host_cores_offload"] == 0


def test_cli_table_and_out_dir(tmp_path, plots_drawn):
    res = CliRunner().invoke(main, ["scenario", "vxlan", "--hosts", "4", "--tenants", "1,2", "--duration", "2us", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "software" in res.output and "offload" in res.output
    saved = json.loads((tmp_path / "results.json").read_text())
    assert [r["tenants"] for r in saved["results"]] == [1, 2]
    assert (tmp_path / "pcap-2t-offload" / "spine1-p1.pcap").stat().st_size > 24
    assert (tmp_path / "pcap-2t-software" / "h1-eth0.pcap").stat().st_size > 24
    assert (tmp_path / "vxlan.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_rejects_a_tenant_with_one_host():
    res = CliRunner().invoke(main, ["scenario", "vxlan", "--hosts", "3", "--tenants", "2"])
    assert res.exit_code == 2 and "2 hosts per tenant" in res.output
