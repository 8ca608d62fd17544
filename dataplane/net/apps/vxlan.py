"""VXLAN on the host side: a software VTEP (what a kernel vswitch does without a DPU), the
tenant VMs behind it, and the traffic apps of ``dataplane scenario vxlan``.

The software VTEP does, byte for byte, what ``programs/vxlan_dpu.p4`` does on a DPU (its
header comment is the specification): the same 50-byte outer headers (IPv4 identification
0, TTL 64, DSCP/ECN copied from an inner IPv4 header, UDP checksum 0, VXLAN flags 0x08),
the same outer source port (49152 + CRC-32 of the inner 5-tuple % 16384, CRC-32 being what
the engine runs for PNA's ``TARGET_DEFAULT`` hash), the same decapsulation checks in the
same order with the program's counter names, the same learning of inner source MACs and
RFC 6040 ECN propagation. So a scenario run with software VTEPs puts the same outer frames
on the fabric as one with DPUs, and their ECMP paths are the same.

Cost model: every frame the software VTEP handles (encapsulated, decapsulated or dropped)
charges ``ns_per_packet`` of host CPU time to ``cpu_ns``; cores = CPU time / elapsed time.
The packet itself is not delayed (the host is assumed to have the cores it needs): the
model counts the work, it does not queue behind it.
"""
from __future__ import annotations

import struct
import zlib
from typing import Any

from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.host import Host
from dataplane.net.topology.spec import HostSpec

__all__ = ["VXLAN_PORT", "OVERHEAD", "COUNTERS", "flow_key", "entropy_port", "encapsulate", "check_vxlan", "SoftwareVtep",
           "VirtualMachine", "TenantSender", "TenantSink", "StraySender", "STAMP", "APP_PORT", "NO_TENANT"]

VXLAN_PORT = 4789
OVERHEAD = 50                 # outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8
ENTROPY_BASE, ENTROPY_RANGE = 49152, 16384
OUTER_TTL = 64
#: The counters of programs/vxlan_dpu.p4, kept under the same names by SoftwareVtep.
COUNTERS = ("encapsulated", "decapsulated", "dropped_unconfigured", "dropped_unknown_tenant",
            "dropped_unknown_dest", "dropped_malformed", "dropped_not_vxlan", "dropped_not_for_vtep",
            "dropped_no_i_flag", "dropped_unknown_vni")

_OUTER = struct.Struct("!6s6sHBBHHHBBHIIHHHHII")
_ETH_IPV4, _ETH_ARP = b"\x08\x00", b"\x08\x06"


# ---- the header work, shared with the tests ----------------------------------------------------------

def flow_key(inner: bytes) -> tuple[str | None, int, bytes]:
    """(problem, inner destination, 13 hash bytes) of a host's frame, as vxlan_dpu.p4 sees it.

    The destination is the inner IPv4 destination or an ARP target address; the hash bytes
    are (source, destination, protocol, source port, destination port), ports only from
    TCP/UDP in an unfragmented IPv4 packet without options. ``problem`` is a counter name
    (``dropped_malformed`` for cut-short headers, ``dropped_unknown_dest`` for other
    EtherTypes) or None.
    """
    n = len(inner)
    if n < 14:
        return "dropped_malformed", 0, b""
    ethertype = inner[12:14]
    if ethertype == _ETH_IPV4:
        if n < 34:
            return "dropped_malformed", 0, b""
        proto = inner[23]
        ports = b"\x00\x00\x00\x00"
        if inner[14] & 0x0F == 5 and not (inner[20] & 0x1F or inner[21]) and proto in (pk.PROTO_TCP, pk.PROTO_UDP):
            if n < 34 + (20 if proto == pk.PROTO_TCP else 8):
                return "dropped_malformed", 0, b""
            if proto == pk.PROTO_UDP and inner[36:38] == b"\x12\xb5" and (n < 64 or (inner[62:64] == _ETH_IPV4 and n < 84)):
                return "dropped_malformed", 0, b""     # the parser goes on into a VXLAN header
            ports = inner[34:38]
        return None, int.from_bytes(inner[30:34], "big"), inner[26:34] + bytes((proto,)) + ports
    if ethertype == _ETH_ARP:
        if n < 42:
            return "dropped_malformed", 0, b""
        return None, int.from_bytes(inner[38:42], "big"), inner[28:32] + inner[38:42] + bytes(5)
    return "dropped_unknown_dest", 0, b""


def entropy_port(hash_bytes: bytes) -> int:
    """The outer UDP source port for a flow: 49152 + CRC-32(hash bytes) % 16384 (RFC 7348's range).

    CRC-32 here is the standard one (zlib's), which is what BMv2's ``crc32`` hash computes for
    vxlan_dpu.p4; the tests hold this host VTEP's frames to the program's byte for byte."""
    return ENTROPY_BASE + zlib.crc32(hash_bytes) % ENTROPY_RANGE


def encapsulate(inner: bytes, vni: int, *, src_mac: int, dst_mac: int, src_ip: int, dst_ip: int,
                sport: int) -> bytes:
    """``inner`` behind the 50 bytes vxlan_dpu.p4 pushes (RFC 7348 section 5, outer IPv4)."""
    tos = inner[15] if inner[12:14] == _ETH_IPV4 and len(inner) > 15 else 0
    n = len(inner)
    head = _OUTER.pack(dst_mac.to_bytes(6, "big"), src_mac.to_bytes(6, "big"), 0x0800,
                       0x45, tos, n + 36, 0, 0, OUTER_TTL, pk.PROTO_UDP, 0, src_ip, dst_ip,
                       sport, VXLAN_PORT, n + 16, 0, 0x08000000, (vni & 0xFFFFFF) << 8)
    ck = pk.checksum(head[14:34])
    return head[:24] + ck.to_bytes(2, "big") + head[26:] + inner


def check_vxlan(frame: bytes, vtep_ip: int) -> str | None:
    """None if ``frame`` is a VXLAN packet this VTEP must decapsulate, else the counter of
    vxlan_dpu.p4 that drops it; the checks and their order are the program's."""
    n = len(frame)
    if n < 14 or (frame[12:14] == _ETH_IPV4 and n < 34) or (frame[12:14] == _ETH_ARP and n < 42):
        return "dropped_malformed"
    if frame[12:14] != _ETH_IPV4 or frame[14] & 0x0F != 5 or frame[20] & 0x1F or frame[21] \
            or frame[23] not in (pk.PROTO_UDP, pk.PROTO_TCP):
        return "dropped_not_vxlan"
    if n < 34 + (20 if frame[23] == pk.PROTO_TCP else 8):
        return "dropped_malformed"            # the parser extracts TCP/UDP before looking further
    if frame[23] != pk.PROTO_UDP or frame[36:38] != b"\x12\xb5":
        return "dropped_not_vxlan"
    if n < 64 or (frame[62:64] == _ETH_IPV4 and n < 84):
        return "dropped_malformed"            # VXLAN + inner Ethernet (+ inner IPv4) cut short
    total = int.from_bytes(frame[16:18], "big")
    if frame[14] >> 4 != 4 or pk.checksum(frame[14:34]) != 0 or frame[20] & 0x20 or total != n - 14 \
            or int.from_bytes(frame[38:40], "big") != total - 20:
        return "dropped_malformed"
    if int.from_bytes(frame[30:34], "big") != vtep_ip:
        return "dropped_not_for_vtep"
    if not frame[42] & 0x08:
        return "dropped_no_i_flag"
    return None


def _ecn_propagate(frame: bytes) -> bytes:
    """RFC 6040 normal mode as the program does it: an outer CE marks an ECT inner IPv4 packet CE."""
    if frame[15] & 3 != 3 or frame[62:64] != _ETH_IPV4 or frame[65] & 3 not in (1, 2):
        return frame
    # Incremental update (RFC 1624 eqn. 3), as the program's InternetChecksum subtract/add:
    # a wrong inner checksum stays wrong rather than being repaired by the tunnel.
    word = int.from_bytes(frame[64:66], "big")
    s = (~int.from_bytes(frame[74:76], "big") & 0xFFFF) + (~word & 0xFFFF) + (word | 3)
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return frame[:65] + bytes((frame[65] | 3,)) + frame[66:74] + (~s & 0xFFFF).to_bytes(2, "big") + frame[76:]


# ---- the software VTEP -----------------------------------------------------------------------------------

class SoftwareVtep:
    """A VTEP in the host's software (kernel vswitch), on an underlay ``Host``.

    ``gateway_mac`` is the leaf's MAC (outer destination of every packet, as the DPU's
    ``nexthop_mac``). Tables as the program's: ``add_vm`` is tenant_of_port + vni_to_port
    (one VM per VNI on this host), ``add_remote`` is remote_vtep; ``learned`` is mac_learn.
    """

    def __init__(self, host: Host, gateway_mac: int, ns_per_packet: int):
        self.host, self.ip, self.mac = host, host.ip, host.mac
        self.gateway_mac, self.ns_per_packet = gateway_mac, ns_per_packet
        self.vms: dict[int, VirtualMachine] = {}
        self.remote: dict[tuple[int, int], tuple[int, int]] = {}      # (vni, inner dst IP) -> (VTEP IP, MAC)
        self.learned: dict[tuple[int, int], int] = {}                 # (vni, inner MAC) -> VTEP IP
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.cpu_ns = 0
        host.on_receive(self._on_frame)

    def add_vm(self, spec: HostSpec, vni: int) -> "VirtualMachine":
        """A tenant VM with VNI ``vni`` behind this VTEP."""
        if vni in self.vms:
            raise ValueError(f"{self.host.name}: VNI {vni} already has a VM")
        vm = self.vms[vni] = VirtualMachine(self, spec, vni)
        return vm

    def add_remote(self, vni: int, inner_ip: int, remote_ip: int) -> None:
        """Frames of VNI ``vni`` for ``inner_ip`` go to the VTEP at ``remote_ip``."""
        self.remote[(vni, inner_ip)] = (remote_ip, self.gateway_mac)

    @property
    def packets(self) -> int:
        """Frames handled (each charged ``ns_per_packet``)."""
        return sum(self.counters.values())

    def _count(self, name: str) -> None:
        self.counters[name] += 1
        self.cpu_ns += self.ns_per_packet

    def send(self, vm: "VirtualMachine", inner: bytes) -> bool:
        """Encapsulate a frame from ``vm`` and send it to the fabric; False if dropped."""
        problem, dst, key = flow_key(inner)
        if problem is not None:
            self._count(problem)
            return False
        hop = self.remote.get((vm.vni, dst))
        if hop is None:
            learned = self.learned.get((vm.vni, int.from_bytes(inner[0:6], "big")))
            if learned is None:
                self._count("dropped_unknown_dest")
                return False
            hop = (learned, self.gateway_mac)
        self._count("encapsulated")
        return self.host.send_raw(encapsulate(inner, vm.vni, src_mac=self.mac, dst_mac=hop[1], src_ip=self.ip,
                                              dst_ip=hop[0], sport=entropy_port(key)))

    def _on_frame(self, frame: bytes, time_ns: int) -> bool:
        # Only UDP to port 4789 is the vswitch's; the host stack keeps ARP, ICMP and the rest.
        if len(frame) < 38 or frame[12:14] != _ETH_IPV4 or frame[23] != pk.PROTO_UDP or frame[36:38] != b"\x12\xb5":
            return False
        problem = check_vxlan(frame, self.ip)
        if problem is not None:
            self._count(problem)
            return True
        vni = int.from_bytes(frame[46:49], "big")
        vm = self.vms.get(vni)
        if vm is None:
            self._count("dropped_unknown_vni")
            return True
        self.learned.setdefault((vni, int.from_bytes(frame[56:62], "big")), int.from_bytes(frame[26:30], "big"))
        self._count("decapsulated")
        vm.receive(None, _ecn_propagate(frame)[OVERHEAD:])
        return True


class VirtualMachine(Host):
    """A tenant's host inside a server with a software VTEP: the full ``Host`` stack, whose
    frames go to the VTEP instead of a wire (and arrive from it), so it sends the same bytes
    a ``Host`` behind a DPU does."""

    def __init__(self, vtep: SoftwareVtep, spec: HostSpec, vni: int):
        super().__init__(vtep.host.sim, spec)
        self.vtep, self.vni = vtep, vni

    def _tx(self, frame: bytes) -> bool:
        # Host._tx puts frames on port 0; a VM's "port" is the vswitch (no queue of its own).
        if not self.vtep.send(self, frame):
            return False
        self.stats.tx_frames += 1
        self.stats.tx_bytes += len(frame)
        return True


# ---- traffic ------------------------------------------------------------------------------------------------

#: Payload stamp: magic, tenant, sender index, receiver index, flow, sequence, send time (ns).
STAMP = struct.Struct("!4sHHHHIQ")
MAGIC = b"VXT1"
APP_PORT = 4000
NO_TENANT = 0xFFFF


class TenantSender:
    """Constant-rate UDP from one tenant endpoint (a ``Host`` or ``VirtualMachine``) to each
    of ``peers`` ((index, inner IP) of its tenant), ``flows_per_pair`` flows per peer with
    source ports 10000, 10001, ... (so the outer source ports differ), sent round robin.

    ``rate_bps`` counts inner frames as they leave the endpoint (Ethernet header to payload),
    so ``rate_bps`` is what the host link carries in offload mode. Send times come from the
    packet index and the rate, so they never drift.
    """

    def __init__(self, host: Host, tenant: int, index: int, peers: list[tuple[int, int]], rate_bps: int,
                 size: int, duration_ns: int, start_ns: int = 0, flows_per_pair: int = 4):
        if size < STAMP.size:
            raise ValueError(f"payload size must be at least {STAMP.size} bytes (the stamp)")
        self.host, self.sim = host, host.sim
        self.tenant, self.index = tenant, index
        self.flows = [(peer, ip, 10000 + f) for f in range(flows_per_pair) for peer, ip in peers]
        self.seq = [0] * len(self.flows)
        self.pad = bytes(size - STAMP.size)
        self.bits_ns = pk.udp_frame_len(size) * 8 * 1_000_000_000
        self.rate_bps, self.start_ns, self.end_ns = rate_bps, start_ns, start_ns + duration_ns
        self.sent_to: dict[int, int] = {}
        self.stats = {"sent": 0, "send_failures": 0}
        self._k = 0
        if self.flows:
            self.sim.at(start_ns, self._send)

    def _send(self) -> None:
        now = self.sim.now
        k = self._k
        i = k % len(self.flows)
        peer, ip, sport = self.flows[i]
        payload = STAMP.pack(MAGIC, self.tenant, self.index, peer, i, self.seq[i], now) + self.pad
        self.seq[i] += 1
        if self.host.send_udp(ip, sport, APP_PORT, payload):
            self.stats["sent"] += 1
            self.sent_to[peer] = self.sent_to.get(peer, 0) + 1
        else:
            self.stats["send_failures"] += 1
        self._k = k + 1
        t = self.start_ns + self._k * self.bits_ns // self.rate_bps
        if t < self.end_ns:
            self.sim.at(t, self._send)


class TenantSink:
    """Receives the stamped traffic of one tenant endpoint and checks every packet:

    * ``cross_tenant_leaks``: the stamp names another tenant (or no tenant: a stray frame),
      i.e. the overlay delivered traffic across the tenant boundary;
    * ``misdelivered``: right tenant, but meant for another endpoint or with a source IP
      that is not the stamped sender's;
    * ``foreign``: not stamped at all; ``duplicates``: a (flow, sequence) seen before.
    Everything else counts as ``delivered``, per sender in ``from_sender``.
    """

    def __init__(self, host: Host, tenant: int, index: int, ip_of: dict[int, int]):
        self.host, self.tenant, self.index, self.ip_of = host, tenant, index, ip_of
        self.from_sender: dict[int, int] = {}
        self.stats = dict.fromkeys(("delivered", "cross_tenant_leaks", "misdelivered", "foreign", "duplicates"), 0)
        self._seen: set[tuple[int, int, int]] = set()
        self.delay_ns = 0
        host.bind_udp(APP_PORT, self._on_packet)

    def _on_packet(self, src_ip: int, src_port: int, payload: bytes, tos: int, time_ns: int) -> None:
        st = self.stats
        if len(payload) < STAMP.size or payload[:4] != MAGIC:
            st["foreign"] += 1
            return
        _, tenant, sender, receiver, flow, seq, sent = STAMP.unpack_from(payload)
        if tenant != self.tenant:
            st["cross_tenant_leaks"] += 1
        elif receiver != self.index or self.ip_of.get(sender) != src_ip:
            st["misdelivered"] += 1
        elif (sender, flow, seq) in self._seen:
            st["duplicates"] += 1
        else:
            self._seen.add((sender, flow, seq))
            st["delivered"] += 1
            self.from_sender[sender] = self.from_sender.get(sender, 0) + 1
            self.delay_ns += time_ns - sent


class StraySender:
    """An underlay host that sends ``count`` VXLAN frames with VNI ``vni`` (configured
    nowhere) to the VTEPs in ``targets``, one every ``interval_ns``: what every VTEP must
    drop and count as dropped_unknown_vni. The inner frames carry a stamp of no tenant, so
    one that got through would count as a cross-tenant leak."""

    def __init__(self, host: Host, targets: list[int], vni: int, count: int, gateway_mac: int,
                 interval_ns: int = 1_000, start_ns: int = 0, inner_ip: int = 0x0A000001):
        self.host, self.targets, self.vni = host, targets, vni
        self.gateway_mac, self.interval_ns, self.inner_ip = gateway_mac, interval_ns, inner_ip
        self.count, self.sent, self._k = count, 0, 0
        if count and targets:
            host.sim.at(start_ns, self._send)

    def _send(self) -> None:
        k = self._k
        self._k = k + 1
        payload = STAMP.pack(MAGIC, NO_TENANT, NO_TENANT, 0, 0, k, self.host.sim.now) + bytes(64)
        inner = pk.udp_frame(0x02BAD0000001, 0x02BAD0000002, 0x0A0000FE, self.inner_ip, 10000 + k, APP_PORT, payload)
        _, _, key = flow_key(inner)
        target = self.targets[k % len(self.targets)]
        frame = encapsulate(inner, self.vni, src_mac=self.host.mac, dst_mac=self.gateway_mac, src_ip=self.host.ip,
                            dst_ip=target, sport=entropy_port(key))
        if self.host.send_raw(frame):
            self.sent += 1
        if self._k < self.count:
            self.host.sim.schedule(self.interval_ns, self._send)

    @property
    def stats(self) -> dict[str, Any]:
        return {"sent": self.sent, "vni": self.vni}
