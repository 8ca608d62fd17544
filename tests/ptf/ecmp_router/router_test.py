"""PTF tests of programs/ecmp_router.p4 driven over P4Runtime, packets through PTF's nn platform.

The router forwards IPv4 by longest prefix (set_nhop) or over an ECMP group (set_ecmp, then
ecmp_nhop on group and flow hash), decrements the TTL, recomputes the checksum, rewrites the
source MAC per egress port (smac), and drops non-IPv4, bad-checksum and TTL <= 1 packets.
"""
from __future__ import annotations

import grpc
import ptf.testutils as tu
from p4runtime_base import Exact, Lpm, P4RuntimeTest
from scapy.layers.inet import IP
from scapy.layers.l2 import Ether

IN_PORT = 1
ROUTER_MAC = "00:00:00:00:00:aa"
HOST_MAC = "00:00:00:00:00:01"


def tcp(dst="10.0.2.7", ttl=64, sport=1234, **kw):
    return tu.simple_tcp_packet(eth_dst=ROUTER_MAC, eth_src=HOST_MAC, ip_src="10.0.1.1",
                                ip_dst=dst, ip_ttl=ttl, tcp_sport=sport, **kw)


def routed(dst="10.0.2.7", dmac="00:00:00:00:02:02", ttl=64, sport=1234, smac=HOST_MAC):
    """What the router sends for ``tcp(dst, ttl, sport)``: new destination MAC, TTL - 1."""
    return tu.simple_tcp_packet(eth_dst=dmac, eth_src=smac, ip_src="10.0.1.1", ip_dst=dst,
                                ip_ttl=ttl - 1, tcp_sport=sport)


class RouterTest(P4RuntimeTest):
    def route(self, prefix, plen, port, dmac="00:00:00:00:02:02"):
        self.insert("MyIngress.ipv4_lpm", [Lpm("hdr.ipv4.dstAddr", prefix, plen)],
                    "MyIngress.set_nhop", {"dmac": dmac, "port": port})


class ForwardTest(RouterTest):
    """A /24 route sends the packet out of its port with the next hop's MAC and TTL - 1."""
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        tu.send_packet(self, IN_PORT, tcp())
        tu.verify_packet(self, routed(), 2)
        tu.verify_no_other_packets(self)


class LongestPrefixWinsTest(RouterTest):
    def runTest(self):
        self.route("10.0.0.0", 16, 2, "00:00:00:00:00:16")
        self.route("10.0.2.0", 24, 3, "00:00:00:00:00:24")
        tu.send_packet(self, IN_PORT, tcp("10.0.2.9"))
        tu.verify_packet(self, routed("10.0.2.9", "00:00:00:00:00:24"), 3)
        tu.send_packet(self, IN_PORT, tcp("10.0.7.9"))
        tu.verify_packet(self, routed("10.0.7.9", "00:00:00:00:00:16"), 2)
        tu.verify_no_other_packets(self)


class NoRouteDropsTest(RouterTest):
    """The table's default action is drop."""
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        tu.send_packet(self, IN_PORT, tcp("192.168.1.1"))
        tu.verify_no_other_packets(self)


class DefaultActionTest(RouterTest):
    """A controller-set default action forwards what no route matches."""
    def runTest(self):
        self.set_default("MyIngress.ipv4_lpm", "MyIngress.set_nhop",
                         {"dmac": "00:00:00:00:00:99", "port": 4})
        tu.send_packet(self, IN_PORT, tcp("192.168.1.1"))
        tu.verify_packet(self, routed("192.168.1.1", "00:00:00:00:00:99"), 4)
        tu.verify_no_other_packets(self)


class SourceMacRewriteTest(RouterTest):
    """Egress table smac gives the packet the MAC of its output port; other ports keep it."""
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        self.route("10.0.3.0", 24, 3)
        self.insert("MyEgress.smac", [Exact("standard_metadata.egress_port", 2)],
                    "MyEgress.rewrite_smac", {"smac": "00:00:00:00:02:00"})
        tu.send_packet(self, IN_PORT, tcp())
        tu.verify_packet(self, routed(smac="00:00:00:00:02:00"), 2)
        tu.send_packet(self, IN_PORT, tcp("10.0.3.3"))
        tu.verify_packet(self, routed("10.0.3.3"), 3)
        tu.verify_no_other_packets(self)


class EcmpTest(RouterTest):
    """A 4-way ECMP group over ports 2-5 (one next-hop MAC, so any member's packet is the same)."""
    members = [2, 3, 4, 5]

    def set_up_group(self):
        self.insert("MyIngress.ipv4_lpm", [Lpm("hdr.ipv4.dstAddr", "10.0.2.0", 24)],
                    "MyIngress.set_ecmp", {"group": 7, "count": len(self.members)})
        for select, port in enumerate(self.members):
            self.insert("MyIngress.ecmp_nhop", [Exact("meta.ecmp_group", 7), Exact("meta.ecmp_select", select)],
                        "MyIngress.set_nhop", {"dmac": "00:00:00:00:02:02", "port": port})


class EcmpFlowStaysOnOnePathTest(EcmpTest):
    def runTest(self):
        self.set_up_group()
        ports = set()
        for _ in range(4):
            tu.send_packet(self, IN_PORT, tcp(sport=4321))
            index, _ = tu.verify_packet_any_port(self, routed(sport=4321), self.members)
            ports.add(self.members[index])
        self.assertEqual(len(ports), 1, f"one flow took several paths: {sorted(ports)}")


class EcmpFlowsSpreadTest(EcmpTest):
    def runTest(self):
        self.set_up_group()
        ports = set()
        for sport in range(1000, 1024):
            tu.send_packet(self, IN_PORT, tcp(sport=sport))
            index, _ = tu.verify_packet_any_port(self, routed(sport=sport), self.members)
            ports.add(self.members[index])
        self.assertGreaterEqual(len(ports), 3, f"24 flows reached only {sorted(ports)}")


class ModifyEntryTest(RouterTest):
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        tu.send_packet(self, IN_PORT, tcp())
        tu.verify_packet(self, routed(), 2)
        self.modify("MyIngress.ipv4_lpm", [Lpm("hdr.ipv4.dstAddr", "10.0.2.0", 24)],
                    "MyIngress.set_nhop", {"dmac": "00:00:00:00:03:03", "port": 3})
        tu.send_packet(self, IN_PORT, tcp())
        tu.verify_packet(self, routed(dmac="00:00:00:00:03:03"), 3)
        tu.verify_no_other_packets(self)


class DeleteEntryTest(RouterTest):
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        self.delete("MyIngress.ipv4_lpm", [Lpm("hdr.ipv4.dstAddr", "10.0.2.0", 24)])
        tu.send_packet(self, IN_PORT, tcp())
        tu.verify_no_other_packets(self)
        self.assertEqual(self.read_table("MyIngress.ipv4_lpm"), [])


class TtlTest(RouterTest):
    """TTL 1 would reach 0: dropped; TTL 2 leaves with 1."""
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        tu.send_packet(self, IN_PORT, tcp(ttl=1))
        tu.verify_no_other_packets(self)
        tu.send_packet(self, IN_PORT, tcp(ttl=2))
        tu.verify_packet(self, routed(ttl=2), 2)


class BadChecksumDropsTest(RouterTest):
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        pkt = Ether(bytes(tcp()))                     # built, so the checksum is filled in
        pkt[IP].chksum ^= 0x0101      # no longer the header's checksum
        tu.send_packet(self, IN_PORT, pkt)
        tu.verify_no_other_packets(self)


class NonIpv4DropsTest(RouterTest):
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        tu.send_packet(self, IN_PORT, tu.simple_arp_packet(ip_tgt="10.0.2.7"))
        tu.verify_no_other_packets(self)


class ReadBackTest(RouterTest):
    """Entries read over P4Runtime are the ones written (LPM value, prefix, action, params)."""
    def runTest(self):
        self.route("10.0.2.0", 24, 2, "00:00:00:00:02:02")
        self.route("10.9.0.0", 16, 5, "00:00:00:00:09:09")
        got = {(e.match[0].lpm.value, e.match[0].lpm.prefix_len): e for e in self.read_table("MyIngress.ipv4_lpm")}
        self.assertEqual(sorted(got), [(bytes([10, 0, 2, 0]), 24), (bytes([10, 9, 0, 0]), 16)])
        entry = got[(bytes([10, 9, 0, 0]), 16)]
        action = entry.action.action
        self.assertEqual(action.action_id, self.get_obj_id("actions", "MyIngress.set_nhop"))
        self.assertEqual([p.value for p in action.params], [bytes([9, 9]), bytes([5])])


class DuplicateInsertFailsTest(RouterTest):
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        update = self._update(1, self.table_entry(   # Update.INSERT
            "MyIngress.ipv4_lpm", [Lpm("hdr.ipv4.dstAddr", "10.0.2.0", 24)],
            "MyIngress.set_nhop", {"dmac": "00:00:00:00:03:03", "port": 3}))
        self.assert_write_fails(grpc.StatusCode.ALREADY_EXISTS, update)
        tu.send_packet(self, IN_PORT, tcp())
        tu.verify_packet(self, routed(), 2)      # the first entry is untouched


class PortDownTest(RouterTest):
    """A port PTF takes down carries nothing until it comes back up."""
    def runTest(self):
        self.route("10.0.2.0", 24, 2)
        self.dataplane.port_down(0, 2)
        try:
            tu.send_packet(self, IN_PORT, tcp())
            tu.verify_no_other_packets(self)
        finally:
            self.dataplane.port_up(0, 2)
        tu.send_packet(self, IN_PORT, tcp())
        tu.verify_packet(self, routed(), 2)


class PacketInTest(RouterTest):
    """A route to the CPU port turns the packet into a PacketIn; PTF sees nothing."""
    def runTest(self):
        cpu = int(tu.test_param_get("cpu_port"))
        self.route("10.0.9.0", 24, cpu)
        tu.send_packet(self, IN_PORT, tcp("10.0.9.9"))
        payload = self.get_packet_in()
        self.assertIsNotNone(payload, "no PacketIn")
        self.assertEqual(payload, bytes(routed("10.0.9.9")))
        tu.verify_no_other_packets(self)


class PacketOutTest(RouterTest):
    """A PacketOut enters the pipeline on the CPU port and is routed like any packet."""
    def runTest(self):
        self.route("10.0.2.0", 24, 3)
        self.send_packet_out(bytes(tcp()))
        tu.verify_packet(self, routed(), 3)
        tu.verify_no_other_packets(self)
