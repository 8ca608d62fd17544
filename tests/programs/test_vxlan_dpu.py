"""programs/vxlan_dpu.p4: a VXLAN VTEP on a PNA DPU (RFC 7348 encap host->net, decap net->host).

The two-DPU example: dpu1 is configured by the shipped programs/vxlan_dpu.json, dpu2 (its
mirror image) through the Switch API below. Ports 0-1 are network ports, 2-3 host ports.

    tenant A, VNI 7:  a1 10.0.0.1 on dpu1 port 2      a2 10.0.0.2 on dpu2 port 2
    tenant B, VNI 8:  b1 10.0.0.1 on dpu1 port 3      b2 10.0.0.2 on dpu2 port 3   (same IPs)
    dpu1 VTEP 192.168.0.1 / 02:00:00:00:01:00, leaf1 02:00:00:00:0a:01 on port 0
    dpu2 VTEP 192.168.0.2 / 02:00:00:00:02:00, leaf2 02:00:00:00:0a:02 on port 0

Expected packets are written out field by field here (checksums with an RFC 1071 sum written
independently of the engine) and cross-checked against scapy, always with VXLAN(flags=0x08):
scapy's VXLAN(vni=...) alone builds GPE-style flags 0x0c.
"""
from __future__ import annotations

import shutil
import subprocess
import zlib
from functools import lru_cache

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.layers.vxlan import VXLAN
from scapy.packet import Raw, raw
from scapy.utils import wrpcap

from dataplane.control.loader import load_entries
from dataplane.control.switch import Switch
from dataplane.lang.frontend import compile_file
from dataplane.resources import data_dir

PROGRAM = data_dir("programs") / "vxlan_dpu.p4"
CONFIG = data_dir("programs") / "vxlan_dpu.json"

DPU1_IP, DPU1_MAC, LEAF1_MAC = "192.168.0.1", "02:00:00:00:01:00", "02:00:00:00:0a:01"
DPU2_IP, DPU2_MAC, LEAF2_MAC = "192.168.0.2", "02:00:00:00:02:00", "02:00:00:00:0a:02"
A1_MAC, A2_MAC, B1_MAC, B2_MAC = ("02:00:00:00:00:a1", "02:00:00:00:00:a2",
                                  "02:00:00:00:00:b1", "02:00:00:00:00:b2")
NET, TENANT_A, TENANT_B = 0, 2, 3
VNI_A, VNI_B = 7, 8

COUNTERS = ["encapsulated", "decapsulated", "dropped_unconfigured", "dropped_unknown_tenant",
            "dropped_unknown_dest", "dropped_malformed", "dropped_not_vxlan", "dropped_not_for_vtep",
            "dropped_no_i_flag", "dropped_unknown_vni"]


@lru_cache(maxsize=1)
def program():
    return compile_file(PROGRAM).program


def dpu1() -> Switch:
    sw = Switch(program(), name="dpu1")
    assert load_entries(sw, CONFIG) == []
    return sw


def dpu2() -> Switch:
    sw = Switch(program(), name="dpu2")
    sw.table_set_default("vtep_config", "set_vtep", {"vtep_ip": DPU2_IP, "vtep_mac": DPU2_MAC,
                                                     "gateway_mac": LEAF2_MAC, "uplink_port": NET})
    for port, vni in ((TENANT_A, VNI_A), (TENANT_B, VNI_B)):
        sw.table_add("tenant_of_port", "set_tenant", [port], [vni])
        sw.table_add("vni_to_port", "to_host", [vni], [port])
        sw.table_add("remote_vtep", "set_remote_vtep", [vni, "10.0.0.1"], [DPU1_IP, LEAF2_MAC, NET])
    return sw


def counters(sw: Switch) -> dict[str, int]:
    return {name: sw.counter_read(name, 0)[0] for name in COUNTERS}


def only(counter: str, n: int = 1) -> dict[str, int]:
    return {name: (n if name == counter else 0) for name in COUNTERS}


# ---- packets ---------------------------------------------------------------------------------------
def _csum(data: bytes) -> int:
    """RFC 1071 one's-complement sum, written out independently of the engine."""
    s = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _ip(text: str) -> bytes:
    return bytes(int(x) for x in text.split("."))


def _mac(text: str) -> bytes:
    return bytes.fromhex(text.replace(":", ""))


def entropy_port(src: str, dst: str, proto: int, sport: int, dport: int) -> int:
    """49152 + hash % 16384 of the inner 5-tuple; the hash is PNA TARGET_DEFAULT, CRC-32 here."""
    data = _ip(src) + _ip(dst) + bytes([proto]) + sport.to_bytes(2, "big") + dport.to_bytes(2, "big")
    return 49152 + zlib.crc32(data) % 16384


def outer_headers(inner: bytes, *, src_mac: str, dst_mac: str, src_ip: str, dst_ip: str, sport: int,
                  vni: int, tos: int = 0) -> bytes:
    """The 50 bytes a VTEP pushes, field by field (RFC 7348 section 5)."""
    eth = _mac(dst_mac) + _mac(src_mac) + b"\x08\x00"
    ip = bytearray(bytes([0x45, tos]) + (len(inner) + 36).to_bytes(2, "big") + b"\x00\x00" + b"\x00\x00"
                   + bytes([64, 17]) + b"\x00\x00" + _ip(src_ip) + _ip(dst_ip))
    ip[10:12] = _csum(bytes(ip)).to_bytes(2, "big")
    udp = sport.to_bytes(2, "big") + (4789).to_bytes(2, "big") + (len(inner) + 16).to_bytes(2, "big") + b"\x00\x00"
    vxlan = b"\x08\x00\x00\x00" + vni.to_bytes(3, "big") + b"\x00"
    return eth + bytes(ip) + udp + vxlan


def a1_to_a2(sport: int = 1234, dport: int = 5678, payload: bytes = b"hello", **ip) -> bytes:
    return raw(Ether(src=A1_MAC, dst=A2_MAC) / IP(src="10.0.0.1", dst="10.0.0.2", **ip)
               / UDP(sport=sport, dport=dport) / payload)


def a2_to_a1(**ip) -> bytes:
    return raw(Ether(src=A2_MAC, dst=A1_MAC) / IP(src="10.0.0.2", dst="10.0.0.1", **ip)
               / TCP(sport=80, dport=40000, flags="SA") / b"reply")


def from_dpu2(inner: bytes, vni: int = VNI_A, *, flags: int = 0x08, dport: int = 4789,
              dst_ip: str = DPU1_IP, tos: int = 0) -> bytes:
    """A VXLAN packet from dpu2 as it arrives at dpu1 (built by scapy, flags given explicitly)."""
    return raw(Ether(src=LEAF1_MAC, dst=DPU1_MAC) / IP(src=DPU2_IP, dst=dst_ip, tos=tos, id=0)
               / UDP(sport=50000, dport=dport, chksum=0) / VXLAN(flags=flags, vni=vni) / Raw(inner))


# ---- the program ------------------------------------------------------------------------------------
def test_program_is_pna_and_the_shipped_config_fills_every_lookup_table():
    """vxlan_dpu.p4 runs on a PnaNic; the shipped config sets the VTEP and two tenants."""
    sw = dpu1()
    assert sw.program.architecture == "pna" and type(sw.dp).__name__ == "PnaNic"
    assert sw.table("vtep_config").default.name == "set_vtep"
    for table, n in (("tenant_of_port", 2), ("remote_vtep", 2), ("vni_to_port", 2), ("mac_learn", 0)):
        assert len(sw.table_entries(table)) == n, table


# ---- encapsulation ----------------------------------------------------------------------------------
def test_encap_pushes_rfc7348_header():
    """Host->net: the whole output is outer Eth/IPv4/UDP/VXLAN + the unchanged inner frame, to the leaf."""
    sw = dpu1()
    inner = a1_to_a2()
    assert len(inner) == 47
    sport = entropy_port("10.0.0.1", "10.0.0.2", 17, 1234, 5678)
    assert 49152 <= sport <= 65535
    # Written out by hand for this frame: IPv4 total length 47 + 36 = 0x0053, checksum 0xf946
    # (0x4500 + 0x0053 + 0x4011 + 0xc0a8 + 0x0001 + 0xc0a8 + 0x0002 = 0x206b7 -> 0x06b9 -> ~ = 0xf946),
    # UDP length 47 + 16 = 0x003f, checksum 0, VXLAN flags 0x08 and VNI 7.
    golden = bytes.fromhex("02000000 0a01 0200 00000100 0800"
                           "4500 0053 0000 0000 4011 f946 c0a80001 c0a80002"
                           + f"{sport:04x}" + "12b5 003f 0000"
                           "08000000 00000700")
    assert golden == outer_headers(inner, src_mac=DPU1_MAC, dst_mac=LEAF1_MAC, src_ip=DPU1_IP,
                                   dst_ip=DPU2_IP, sport=sport, vni=VNI_A)
    scapy_built = raw(Ether(src=DPU1_MAC, dst=LEAF1_MAC) / IP(src=DPU1_IP, dst=DPU2_IP, id=0, ttl=64)
                      / UDP(sport=sport, dport=4789, chksum=0) / VXLAN(flags=0x08, vni=VNI_A) / Raw(inner))
    assert scapy_built == golden + inner

    out = sw.send(TENANT_A, inner)
    assert [(o.port, o.data) for o in out] == [(NET, golden + inner)]
    assert out[0].data[42:50] == bytes.fromhex("0800000000000700")
    assert counters(sw) == only("encapsulated")
    assert sw.counter_read("encapsulated", 0) == (1, 47)


def test_encap_source_port_is_flow_entropy_in_dynamic_range():
    """The outer UDP source port hashes the inner 5-tuple into 49152-65535: per flow, not per packet."""
    sw = dpu1()
    ports = {}
    for sport in range(1000, 1016):
        out = sw.send(TENANT_A, a1_to_a2(sport=sport))[0].data
        ports[sport] = int.from_bytes(out[34:36], "big")
        assert ports[sport] == entropy_port("10.0.0.1", "10.0.0.2", 17, sport, 5678)
    assert all(49152 <= p <= 65535 for p in ports.values())
    assert len(set(ports.values())) == len(ports)          # 16 flows, 16 source ports
    # The same flow keeps its port whatever the payload, TTL or IP id.
    again = sw.send(TENANT_A, a1_to_a2(sport=1003, payload=b"x" * 300, ttl=5, id=77))[0].data
    assert int.from_bytes(again[34:36], "big") == ports[1003]
    # TCP ports count too, and a different protocol with the same ports is another flow.
    tcp = raw(Ether(src=A1_MAC, dst=A2_MAC) / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=1003, dport=5678))
    tcp_port = int.from_bytes(sw.send(TENANT_A, tcp)[0].data[34:36], "big")
    assert tcp_port == entropy_port("10.0.0.1", "10.0.0.2", 6, 1003, 5678) != ports[1003]


@pytest.mark.parametrize("inner_len", [60, 47 + 1400, 1450])
def test_encap_lengths_follow_the_inner_frame(inner_len):
    """Outer IPv4 total length = inner + 36, UDP length = inner + 16, 50 bytes of overhead in all."""
    sw = dpu1()
    inner = a1_to_a2(payload=b"p" * (inner_len - 42))
    assert len(inner) == inner_len
    out = sw.send(TENANT_A, inner)[0].data
    assert len(out) == inner_len + 50 and out[50:] == inner
    assert int.from_bytes(out[16:18], "big") == inner_len + 36
    assert int.from_bytes(out[38:40], "big") == inner_len + 16
    assert _csum(out[14:34]) == 0


def test_encap_copies_inner_dscp_and_ecn_to_the_outer_header():
    """Outer TOS = inner IPv4 TOS (uniform DSCP, RFC 6040 ECN copy), with the checksum to match."""
    sw = dpu1()
    inner = a1_to_a2(tos=0xB9)
    out = sw.send(TENANT_A, inner)[0].data
    sport = entropy_port("10.0.0.1", "10.0.0.2", 17, 1234, 5678)
    assert out == outer_headers(inner, src_mac=DPU1_MAC, dst_mac=LEAF1_MAC, src_ip=DPU1_IP, dst_ip=DPU2_IP,
                                sport=sport, vni=VNI_A, tos=0xB9) + inner


def test_arp_request_is_tunnelled_to_the_vtep_that_owns_the_target_address():
    """A broadcast ARP request (padded to 60 bytes) is keyed by its target IP and sent whole to dpu2."""
    sw = dpu1()
    arp = raw(Ether(src=A1_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=A1_MAC, psrc="10.0.0.1",
                                                                 pdst="10.0.0.2") / Raw(b"\x00" * 18))
    assert len(arp) == 60
    sport = entropy_port("10.0.0.1", "10.0.0.2", 0, 0, 0)
    out = sw.send(TENANT_A, arp)
    assert [(o.port, o.data) for o in out] == [(NET, outer_headers(
        arp, src_mac=DPU1_MAC, dst_mac=LEAF1_MAC, src_ip=DPU1_IP, dst_ip=DPU2_IP, sport=sport, vni=VNI_A) + arp)]


def test_tenants_with_overlapping_addresses_are_kept_apart_by_vni():
    """The same inner 10.0.0.1 -> 10.0.0.2 from tenant B's port leaves with VNI 8, and decaps to port 3."""
    sw1, sw2 = dpu1(), dpu2()
    inner = raw(Ether(src=B1_MAC, dst=B2_MAC) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1234, dport=5678)
                / b"hello")
    out = sw1.send(TENANT_B, inner)
    assert [o.port for o in out] == [NET]
    assert out[0].data[42:50] == bytes.fromhex("0800000000000800")
    assert [(o.port, o.data) for o in sw2.send(NET, out[0].data)] == [(TENANT_B, inner)]


# ---- decapsulation ------------------------------------------------------------------------------------
def test_decap_delivers_the_exact_inner_frame_on_the_tenant_port():
    """Net->host: the 50 outer bytes go, the inner frame leaves unchanged on the VNI's host port."""
    sw = dpu1()
    inner = a2_to_a1()
    pkt = from_dpu2(inner)
    assert len(pkt) == len(inner) + 50
    assert [(o.port, o.data) for o in sw.send(NET, pkt)] == [(TENANT_A, inner)]
    inner_b = raw(Ether(src=B2_MAC, dst=B1_MAC) / IP(src="10.0.0.2", dst="10.0.0.1") / ICMP())
    assert [(o.port, o.data) for o in sw.send(1, from_dpu2(inner_b, VNI_B))] == [(TENANT_B, inner_b)]
    assert counters(sw) == only("decapsulated", 2)
    assert sw.counter_read("decapsulated", 0) == (2, len(pkt) + len(inner_b) + 50)


def test_decap_ignores_vxlan_flag_and_reserved_bits_other_than_i():
    """RFC 7348: reserved bits are ignored on receipt; scapy's GPE-style 0c 00 00 03 header still decaps."""
    sw = dpu1()
    inner = a2_to_a1()
    gpe_style = raw(Ether(src=LEAF1_MAC, dst=DPU1_MAC) / IP(src=DPU2_IP, dst=DPU1_IP)
                    / UDP(sport=50000, dport=4789, chksum=0) / VXLAN(vni=VNI_A) / Ether(inner))
    assert gpe_style[42:50] == bytes.fromhex("0c00000300000700")
    assert [(o.port, o.data) for o in sw.send(NET, gpe_style)] == [(TENANT_A, inner)]


def test_two_dpus_round_trip_both_directions():
    """dpu1's encap output, given to dpu2, comes out as a1's frame on a2's port, and back again."""
    sw1, sw2 = dpu1(), dpu2()
    request = a1_to_a2()
    (tunnel,) = sw1.send(TENANT_A, request)
    assert [(o.port, o.data) for o in sw2.send(NET, tunnel.data)] == [(TENANT_A, request)]
    reply = a2_to_a1()
    (back,) = sw2.send(TENANT_A, reply)
    assert Ether(back.data)[IP].src == DPU2_IP and Ether(back.data).dst == LEAF2_MAC
    assert [(o.port, o.data) for o in sw1.send(NET, back.data)] == [(TENANT_A, reply)]
    assert counters(sw1)["encapsulated"] == counters(sw1)["decapsulated"] == 1


def test_outer_ce_marks_an_ecn_capable_inner_packet_on_decap():
    """RFC 6040: outer CE over inner ECT(0) gives inner CE, checksum updated; Not-ECT stays unchanged."""
    sw = dpu1()
    inner = a2_to_a1(tos=0xB8 | 0b10)                      # DSCP 46, ECT(0)
    (out,) = sw.send(NET, from_dpu2(inner, tos=0b11))      # the fabric marked CE
    marked = Ether(inner)
    marked[IP].tos = 0xB8 | 0b11
    del marked[IP].chksum
    assert out.data == raw(marked) and out.data != inner
    assert _csum(out.data[14:34]) == 0
    not_ect = a2_to_a1(tos=0xB8)
    assert [o.data for o in sw.send(NET, from_dpu2(not_ect, tos=0b11))] == [not_ect]
    assert [o.data for o in sw.send(NET, from_dpu2(inner, tos=0b10))] == [inner]


# ---- learning -----------------------------------------------------------------------------------------
def test_decap_learns_the_inner_source_mac_and_encap_then_uses_it():
    """Add-on-miss: (VNI, inner src MAC) -> outer src IP; a host frame to that MAC with no IP entry then tunnels."""
    sw = dpu1()
    stranger = raw(Ether(src=A1_MAC, dst="02:00:00:00:00:cc") / IP(src="10.0.0.1", dst="10.0.0.33")
                   / UDP(sport=1, dport=2))
    assert sw.send(TENANT_A, stranger) == []
    assert counters(sw) == only("dropped_unknown_dest")

    from_cc = raw(Ether(src="02:00:00:00:00:cc", dst=A1_MAC) / IP(src="10.0.0.33", dst="10.0.0.1") / UDP())
    pkt = raw(Ether(src=LEAF1_MAC, dst=DPU1_MAC) / IP(src="192.168.0.9", dst=DPU1_IP, id=0)
              / UDP(sport=50000, dport=4789, chksum=0) / VXLAN(flags=0x08, vni=VNI_A) / Raw(from_cc))
    assert [o.port for o in sw.send(NET, pkt)] == [TENANT_A]
    learned = [(e.name, e.key, e.args) for e in sw.table_entries("mac_learn")]
    assert learned == [("learned_vtep", (VNI_A, 0x0200000000CC), (0xC0A80009,))]
    sw.send(NET, pkt)                                        # already known: no second entry
    assert len(sw.table_entries("mac_learn")) == 1

    (out,) = sw.send(TENANT_A, stranger)
    sport = entropy_port("10.0.0.1", "10.0.0.33", 17, 1, 2)
    # learned VTEPs are reached through vtep_config's gateway MAC and uplink port
    assert (out.port, out.data) == (NET, outer_headers(stranger, src_mac=DPU1_MAC, dst_mac=LEAF1_MAC,
                                                       src_ip=DPU1_IP, dst_ip="192.168.0.9", sport=sport,
                                                       vni=VNI_A) + stranger)
    # the learned MAC belongs to VNI 7 only
    b_frame = raw(Ether(src=B1_MAC, dst="02:00:00:00:00:cc") / IP(src="10.0.0.1", dst="10.0.0.33") / UDP())
    assert sw.send(TENANT_B, b_frame) == []


# ---- drops --------------------------------------------------------------------------------------------
def _truncated_in_vxlan_header() -> bytes:
    return from_dpu2(a2_to_a1())[:46]


def _truncated_inner_payload() -> bytes:
    return from_dpu2(a2_to_a1())[:-3]


def _bad_outer_checksum() -> bytes:
    pkt = bytearray(from_dpu2(a2_to_a1()))
    pkt[24] ^= 0x01
    return bytes(pkt)


def _fragment() -> bytes:
    return raw(Ether(src=LEAF1_MAC, dst=DPU1_MAC) / IP(src=DPU2_IP, dst=DPU1_IP, flags="MF", id=9)
               / UDP(sport=50000, dport=4789, chksum=0) / VXLAN(flags=0x08, vni=VNI_A) / Raw(a2_to_a1()))


DROPS = {
    "unknown VNI": (NET, lambda: from_dpu2(a2_to_a1(), vni=99), "dropped_unknown_vni"),
    "I bit clear": (NET, lambda: from_dpu2(a2_to_a1(), flags=0x00), "dropped_no_i_flag"),
    "wrong UDP port (Linux 8472)": (NET, lambda: from_dpu2(a2_to_a1(), dport=8472), "dropped_not_vxlan"),
    "ICMP for the DPU itself": (NET, lambda: raw(Ether(dst=DPU1_MAC) / IP(src=DPU2_IP, dst=DPU1_IP) / ICMP()),
                                "dropped_not_vxlan"),
    "ARP from the leaf": (NET, lambda: raw(Ether(dst="ff:ff:ff:ff:ff:ff") / ARP(pdst=DPU1_IP)), "dropped_not_vxlan"),
    "outer IP not this VTEP": (NET, lambda: from_dpu2(a2_to_a1(), dst_ip="192.168.0.77"), "dropped_not_for_vtep"),
    "truncated in the VXLAN header": (NET, _truncated_in_vxlan_header, "dropped_malformed"),
    "truncated inner payload": (NET, _truncated_inner_payload, "dropped_malformed"),
    "bad outer IPv4 checksum": (NET, _bad_outer_checksum, "dropped_malformed"),
    "outer fragment": (NET, _fragment, "dropped_malformed"),
    "unknown tenant destination": (TENANT_A, lambda: a1_to_a2()[:30] + _ip("10.0.0.99") + a1_to_a2()[34:],
                                   "dropped_unknown_dest"),
    "non-IP inner frame": (TENANT_A, lambda: raw(Ether(src=A1_MAC, dst=A2_MAC, type=0x88CC) / Raw(b"\x00" * 46)),
                           "dropped_unknown_dest"),
    "host port without a tenant": (4, a1_to_a2, "dropped_unknown_tenant"),
    "truncated host frame": (TENANT_A, lambda: a1_to_a2()[:30], "dropped_malformed"),
}


@pytest.mark.parametrize("case", list(DROPS), ids=list(DROPS))
def test_drops_are_counted_by_reason(case):
    """Each bad packet is dropped and counted once, in its own counter and no other."""
    port, build, counter = DROPS[case]
    sw = dpu1()
    pkt = build()
    result = sw.process(port, pkt)
    assert result.outputs == [] and len(result.drops) == 1
    assert counters(sw) == only(counter)
    assert sw.counter_read(counter, 0) == (1, len(pkt))


def test_a_dpu_without_vtep_config_drops_everything_and_counts_it():
    """Until vtep_config's default is set, both directions drop into dropped_unconfigured."""
    sw = Switch(program())
    assert sw.send(TENANT_A, a1_to_a2()) == [] and sw.send(NET, from_dpu2(a2_to_a1())) == []
    assert counters(sw) == only("dropped_unconfigured", 2)


# ---- dissectors -------------------------------------------------------------------------------------------
def test_scapy_dissects_the_encap_output_as_vxlan():
    """Ether/IP/UDP/VXLAN(vni=7, flags=0x08)/Ether/IP/TCP, with checksums scapy agrees with."""
    sw = dpu1()
    inner = raw(Ether(src=A1_MAC, dst=A2_MAC) / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=4242, dport=80)
                / b"GET /")
    pkt = Ether(sw.send(TENANT_A, inner)[0].data)
    layers = [type(layer).__name__ for layer in pkt.iterpayloads()]
    assert layers[:7] == ["Ether", "IP", "UDP", "VXLAN", "Ether", "IP", "TCP"]
    assert (pkt[VXLAN].vni, int(pkt[VXLAN].flags)) == (VNI_A, 0x08)
    assert (pkt[UDP].dport, pkt[UDP].chksum, pkt[IP].ttl, pkt[IP].proto) == (4789, 0, 64, 17)
    rebuilt = pkt.copy()
    del rebuilt[IP].chksum
    assert Ether(raw(rebuilt))[IP].chksum == pkt[IP].chksum
    assert raw(pkt[VXLAN].payload) == inner


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_decodes_the_encap_output_as_vxlan(tmp_path):
    """Wireshark's dissector sees UDP 4789, VXLAN flags 0x0800 (I), VNI 7 and the inner TCP port."""
    sw = dpu1()
    inner = raw(Ether(src=A1_MAC, dst=A2_MAC) / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=4242, dport=80))
    pcap = tmp_path / "encap.pcap"
    wrpcap(str(pcap), [Ether(sw.send(TENANT_A, inner)[0].data)])
    done = subprocess.run(["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=|", "-e", "udp.dstport",
                           "-e", "vxlan.flags", "-e", "vxlan.vni", "-e", "ip.dst", "-e", "tcp.dstport"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines() == [f"4789|0x0800|7|{DPU2_IP},10.0.0.2|80"]
