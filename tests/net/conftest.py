"""Small networks for the host and app tests: two hosts back to back, and N hosts on a stand-in switch."""
from __future__ import annotations

import pytest

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Link
from dataplane.net.devices.node import Node
from dataplane.net.hosts.host import Host
from dataplane.net.hosts.packets import parse_ip
from dataplane.net.topology.spec import HostSpec

MAC1, MAC2 = 0x0800_0000_0101, 0x0800_0000_0202
IP1, IP2 = parse_ip("10.0.0.1"), parse_ip("10.0.0.2")


def build_pair(seed: int = 0, rate_bps: int = 10_000_000_000, latency_ns: int = 1_000, capacity: int = 64,
               loss: float = 0.0, static_arp: bool = False, prefix_len: int = 24):
    sim = Simulator(seed)
    h1 = Host(sim, HostSpec("h1", MAC1, IP1, prefix_len, static_arp={IP2: MAC2} if static_arp else {}))
    h2 = Host(sim, HostSpec("h2", MAC2, IP2, prefix_len, static_arp={IP1: MAC1} if static_arp else {}))
    p1, p2 = h1.add_port(0, "h1:eth0"), h2.add_port(0, "h2:eth0")
    link = Link(sim, p1, p2, rate_bps, latency_ns, loss=loss)
    p1.capacity = p2.capacity = capacity
    return sim, h1, h2, link


@pytest.fixture
def pair():
    return build_pair


class MacSwitch(Node):
    """A stand-in switch for app tests: forwards by destination MAC from a static table,
    floods broadcasts. Its egress queues are real Port queues, so incast can overflow them."""

    kind = "switch"

    def __init__(self, sim, name, table=None):
        super().__init__(sim, name)
        self.table = dict(table or {})

    def receive(self, port, data):
        dst = int.from_bytes(data[0:6], "big")
        if dst == 0xFFFF_FFFF_FFFF:
            for n in self.ports:
                if n != port.number:
                    self.transmit(n, data)
        elif dst in self.table:
            self.transmit(self.table[dst], data)


def build_star(n_senders: int, seed: int = 0, rate_bps: int = 10_000_000_000, latency_ns: int = 1_000,
               capacity: int = 64, loss: float = 0.0):
    """Hosts h0 (receiver, 10.0.0.100) and h1..hN on one MacSwitch; the switch port to h0 is
    the bottleneck. Static ARP everywhere so timing is easy to compute."""
    sim = Simulator(seed)
    specs = [HostSpec("h0", 0x0800_0000_0064, parse_ip("10.0.0.100"))]
    specs += [HostSpec(f"h{i}", 0x0800_0000_0000 + i, parse_ip(f"10.0.0.{i}")) for i in range(1, n_senders + 1)]
    arp = {s.ip: s.mac for s in specs}
    sw = MacSwitch(sim, "s1")
    hosts = []
    for i, spec in enumerate(specs):
        spec.static_arp = {ip: mac for ip, mac in arp.items() if ip != spec.ip}
        h = Host(sim, spec)
        hp, sp = h.add_port(0, f"{spec.name}:eth0"), sw.add_port(i, f"s1:p{i}")
        Link(sim, hp, sp, rate_bps, latency_ns, loss=loss)
        hp.capacity = sp.capacity = capacity
        sw.table[spec.mac] = i
        hosts.append(h)
    return sim, sw, hosts


@pytest.fixture
def star():
    return build_star


# Hosts h1..h3 on the subnets the built-in ipv4_router.json routes (10.0.N.0/24): each host's MAC
# is the one the router writes as the destination, and its gateway's the one it writes as source.
ROUTER_HOST_MACS = {1: ("08:00:00:00:01:11", "08:00:00:00:01:00"),
                    2: ("08:00:00:00:02:22", "08:00:00:00:02:00"),
                    3: ("08:00:00:00:03:00", "08:00:00:00:03:01")}


def router_hosts(*numbers: int, extra: str = "") -> str:
    """Topology YAML node lines (indented for ``topology.nodes``) for hosts hN of ipv4_router.json;
    ``extra`` is added to every host's mapping (``queues: 8``)."""
    lines = []
    for n in numbers:
        mac, gw_mac = ROUTER_HOST_MACS[n]
        more = f", {extra}" if extra else ""
        lines.append(f'    h{n}: {{kind: host, ip: 10.0.{n}.{n}/24, mac: "{mac}", gateway: 10.0.{n}.254,\n'
                     f'          arp: {{10.0.{n}.254: "{gw_mac}"}}{more}}}')
    return "\n".join(lines)
