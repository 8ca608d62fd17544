"""Two hosts with a queue pair each, back to back or through a node the test brings: the network
of the RDMA transport's own tests, and of anyone checking a transport rule against a middlebox of
their own (one that holds, reorders, marks or drops packets)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Link
from dataplane.net.devices.node import Node
from dataplane.net.hosts.host import Host
from dataplane.net.hosts.packets import parse_ip
from dataplane.net.rdma import QueuePair, RdmaNic, TransportConfig
from dataplane.net.topology.spec import HostSpec

__all__ = ["IP1", "IP2", "MAC1", "MAC2", "RATE", "QpPair", "qp_pair"]

IP1, IP2 = parse_ip("10.0.0.1"), parse_ip("10.0.0.2")
MAC1, MAC2 = 0x0800_0000_0101, 0x0800_0000_0202
RATE = 100_000_000_000


@dataclass
class QpPair:
    """What ``qp_pair`` wired: ``a`` (QP 10 on h1) sends to ``b`` (QP 20 on h2), whose delivered
    messages are appended to ``got``."""
    sim: Simulator
    a: QueuePair
    b: QueuePair
    links: list[Link] = field(default_factory=list)
    got: list = field(default_factory=list)


def qp_pair(sim: Simulator, config: TransportConfig, middle: Node | None = None, *, latency_ns: int = 500,
            loss: float = 0.0, keep_data: bool = True,
            record: Callable[[int, Any, int], Any] = lambda now, data, n: (now, data, n)) -> QpPair:
    """h1 -- ``middle`` -- h2 (``middle``'s ports 1 and 2), or h1 -- h2 without one, at 100 Gb/s,
    ``latency_ns`` and ``loss`` a link, 9,000-byte MTU; each message h2 delivers is appended to
    ``got`` as ``record(time, data, nbytes)``."""
    h1 = Host(sim, HostSpec("h1", MAC1, IP1, 24, static_arp={IP2: MAC2}))
    h2 = Host(sim, HostSpec("h2", MAC2, IP2, 24, static_arp={IP1: MAC1}))
    if middle is None:
        ends = [(h1.add_port(0, "h1:eth0"), h2.add_port(0, "h2:eth0"))]
    else:
        ends = [(h1.add_port(0, "h1:eth0"), middle.add_port(1, f"{middle.name}:1")),
                (middle.add_port(2, f"{middle.name}:2"), h2.add_port(0, "h2:eth0"))]
    links = [Link(sim, x, y, RATE, latency_ns, mtu=9000, loss=loss) for x, y in ends]
    n1, n2 = RdmaNic.of(h1), RdmaNic.of(h2)
    got: list = []
    a = n1.add(QueuePair(n1, 10, IP2, 20, config, src_port=50000))
    b = n2.add(QueuePair(n2, 20, IP1, 10, config, src_port=50001, keep_data=keep_data,
                         on_message=lambda qp, data, n: got.append(record(sim.now, data, n))))
    return QpPair(sim, a, b, links, got)
