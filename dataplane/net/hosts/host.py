"""A host: one Ethernet port and a minimal IPv4 stack (ARP, IPv4, UDP, ICMP echo) with a Python API.

What it does, in the order a frame meets it:
- raw receive callbacks see every arriving frame first (like a sniffer); one returning True
  consumes the frame, which lets apps speak their own protocols (probe headers, source routing);
- ARP requests for the host's address are answered, and replies (or requests aimed at us)
  teach the ARP cache; static entries from the topology are never overwritten;
- IPv4 addressed to the host (or broadcast) with a good header checksum is accepted: echo
  requests are answered, echo replies go to the ping app that owns the ICMP id, UDP goes to the
  callback bound to its port. Everything else is dropped and counted in ``stats``.

Sending picks the next hop (the destination when on-link, otherwise the gateway), resolves it
through the ARP cache, or queues the packet and asks with ARP requests, retrying on a timer
and dropping the queue if nobody answers. Frames then go through a host transmit queue
(``txqueuelen``, like Linux's qdisc) into the port, so an app that bursts faster than the link
is held back instead of losing packets at its own NIC.

The NIC honours PAUSE/PFC frames (``dataplane.net.devices.pfc``; consumed by the port, unseen by the
stack): sends wait in the queues meanwhile. ``send_raw`` of one sends it ahead of the queue. With
one queue (the default) a pause stops the whole NIC; with ``queues:`` in the host's spec it has a
queue per priority and a pause stops only the classes it names (``host_classes``).

The receive path is ``host_receive.HostReceive``'s, ARP resolution ``arp.ArpResolver``'s.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Callable, ClassVar

from dataplane.arch.work import UNJOINED_MIN, Frame
from dataplane.net.core.mypyc_attr import mypyc_attr
from dataplane.net.core.sim import Simulator
from dataplane.net.devices.link import Port
from dataplane.net.devices.node import Node
from dataplane.net.devices.pfc import is_mac_control
from dataplane.net.devices.switch_node import unjoined_ok
from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.arp import ArpResolver, _Pending
from dataplane.net.hosts.host_classes import HostClasses
from dataplane.net.hosts.host_receive import HostReceive
from dataplane.net.hosts.host_stats import HostStats
from dataplane.net.hosts.timer import Timer
from dataplane.net.topology.spec import HostSpec

UdpHandler = Callable[[int, int, bytes, int, int], None]      # (src_ip, src_port, payload, tos, time_ns)
EchoHandler = Callable[[int, int, int, bytes, int], None]     # (src_ip, ident, seq, payload, time_ns)
RawHandler = Callable[[bytes, int], Any]                      # (frame, time_ns) -> True to consume

_ETH_IPV4 = b"\x08\x00"
_IPV4 = pk._IPV4
_UDP = pk._UDP
_MIN_IP_PAYLOAD = pk.ETH_MIN_FRAME - pk.ETH_HEADER_LEN - pk.IPV4_HEADER_LEN   # shorter IP packets get padded
PULL_AHEAD = 2     # frames a puller keeps queued: one on the wire's heels, one more behind it


@mypyc_attr(allow_interpreted_subclasses=True)     # XDP hosts, VXLAN's virtual machines
class Host(ArpResolver, HostReceive, Node):
    """An end host built from a :class:`HostSpec`; its port 0 is added by the network builder."""

    kind = "host"

    # Tunables (class defaults; override per instance). Linux uses 1 s between ARP retries;
    # in a simulated data centre that would dwarf every other timescale, so 1 ms is used.
    arp_timeout_ns = 1_000_000
    arp_retries = 3               # requests sent before giving up (Linux mcast_solicit = 3)
    arp_queue_len = 100           # packets held per unresolved next hop (Linux unres_qlen ~ 101)
    txqueuelen = 1000             # host transmit queue in packets (Linux default)
    ttl = 64
    udp_checksum = False          # compute UDP checksums on send (costs ~2 us per KB); verified on receive if non-zero
    share_tails: ClassVar[bool] = True   # a long tail stays shared under the headers to a switch (``_send_ip``)

    def __init__(self, sim: Simulator, spec: HostSpec):
        super().__init__(sim, spec.name)
        self.spec = spec
        self.mac, self.ip, self.prefix_len, self.gateway = spec.mac, spec.ip, spec.prefix_len, spec.gateway
        self.netmask = (0xFFFF_FFFF << (32 - spec.prefix_len)) & 0xFFFF_FFFF
        self.subnet = spec.ip & self.netmask
        # The directed broadcast only exists for real subnets (/31 and /32 have none).
        self.subnet_broadcast = (self.subnet | (~self.netmask & 0xFFFF_FFFF)) if spec.prefix_len < 31 else None
        self.arp_table: dict[int, int] = dict(spec.static_arp)
        self._static = frozenset(spec.static_arp)
        self._pending: dict[int, _Pending] = {}
        self._mac_bytes = spec.mac.to_bytes(6, "big")
        self._eth_cache: dict[int, bytes] = {}       # next-hop MAC -> the 14-byte IPv4 Ethernet header
        self._udp: dict[int, UdpHandler] = {}
        self._echo: dict[int, EchoHandler] = {}
        self._raw: list[RawHandler] = []
        self._unreachable: list[Callable[[int], None]] = []
        self._backlog: deque[bytes] = deque()
        # Traffic classes on the NIC (a queue and a backlog per priority), or None: one FIFO.
        self._classes = HostClasses(self, spec.queues, spec.trust) \
            if spec.queues is not None and spec.queues.multiple else None
        self._refill_scheduled = False
        self._puller: Callable[[], bool] | None = None   # the NIC's own sender (set_tx_puller)
        self._ident = 0
        self._bases: dict[tuple[int, int], tuple[bytes, bytes]] = {}   # (head length, id(tail)) -> (tail, base)
        self._next_port = 49152                     # ephemeral ports handed out in order (deterministic)
        self._next_echo_id = 1
        self.stats = HostStats()
        # receive() reads plain UDP straight from the frame unless a subclass changed the IP/UDP path.
        self._fast_udp = type(self)._receive_ip is Host._receive_ip and type(self)._receive_udp is Host._receive_udp

    # ------------------------------------------------------------------ app API

    @property
    def port(self) -> Port | None:
        return self.ports.get(0)

    def add_port(self, number: int, name: str) -> Port:
        if self._classes is None:
            return super().add_port(number, name)
        port = self.ports[number] = self._classes.make_port(number, name)
        return port

    def bind_udp(self, port: int, callback: UdpHandler) -> None:
        """Deliver UDP to ``port`` as ``callback(src_ip, src_port, payload, tos, time_ns)``."""
        if port in self._udp:
            raise ValueError(f"{self.name}: UDP port {port} is already bound")
        self._udp[port] = callback

    def unbind_udp(self, port: int) -> None:
        self._udp.pop(port, None)

    def ephemeral_port(self) -> int:
        """A free UDP port from 49152 up, in allocation order so runs repeat exactly."""
        while self._next_port in self._udp:
            self._next_port += 1
        port = self._next_port
        self._next_port = 49152 if port >= 65535 else port + 1
        return port

    def bind_echo(self, callback: EchoHandler, ident: int | None = None) -> int:
        """Deliver echo replies carrying ICMP ``ident`` (allocated if None) as
        ``callback(src_ip, ident, seq, payload, time_ns)``; returns the ident."""
        if ident is None:
            while self._next_echo_id in self._echo:
                self._next_echo_id = self._next_echo_id % 0xFFFF + 1
            ident = self._next_echo_id
            self._next_echo_id = ident % 0xFFFF + 1
        self._echo[ident] = callback
        return ident

    def unbind_echo(self, ident: int) -> None:
        self._echo.pop(ident, None)

    def on_receive(self, callback: RawHandler) -> None:
        """Call ``callback(frame_bytes, time_ns)`` for every frame arriving at the port, before
        the stack; if it returns True the stack does not process the frame."""
        self._raw.append(callback)

    def on_unreachable(self, callback: Callable[[int], None]) -> None:
        """Call ``callback(next_hop_ip)`` when the host gives up resolving a next hop (no ARP
        reply after ``arp_retries`` requests) and drops what waited for it."""
        self._unreachable.append(callback)

    def next_hop(self, dst_ip: int) -> int | None:
        """The address a packet to ``dst_ip`` is sent to: itself when on-link, else the gateway
        (None: no route)."""
        if (dst_ip & self.netmask) == self.subnet:
            return dst_ip
        return self.gateway

    def timer(self, delay_ns: int, fn: Callable, *args: Any) -> Timer:
        """Run ``fn(*args)`` after ``delay_ns``; the returned handle can ``cancel()`` it."""
        t = Timer(fn, args)
        self.sim.schedule(delay_ns, t._fire)
        return t

    def set_tx_puller(self, pull: Callable[[], bool] | None) -> None:
        """Let the NIC pull its frames: ``pull()`` sends one packet (``send_udp`` and the like) and
        returns True, or returns False when it has nothing to send now. It is called whenever
        fewer than ``PULL_AHEAD`` frames wait in the port's queue, so a sender that keeps work
        there goes out back to back at line rate, stops while PFC pauses the port, and never
        overflows the transmit queue (an RDMA NIC's queue pairs, which are read from host
        memory when the wire can take a frame). ``kick_tx`` says new work is there."""
        self._puller = pull
        if pull is not None:
            self.kick_tx()

    def kick_tx(self) -> None:
        """Work for the puller: pull in a fresh event (never inside the caller)."""
        if self._puller is not None and not self._refill_scheduled:
            self._refill_scheduled = True
            self.sim.schedule(0, self._refill)

    def send_udp(self, dst_ip: int | str, src_port: int, dst_port: int, payload: Any, tos: int = 0,
                 tail: bytes = b"") -> bool:
        """Send one UDP datagram; False if it was dropped at once (no route, host down, queue full).
        ``tail``, if given, follows ``payload`` in the datagram: a sender whose packets end in
        the same bytes (a zero body, a pad) passes them apart, so that they are copied once,
        into the frame, instead of once per header put in front of them."""
        dst = dst_ip if type(dst_ip) is int else pk.parse_ip(dst_ip)  # type: ignore[arg-type]
        if self.udp_checksum:
            return self.send_ip(dst, pk.PROTO_UDP, pk.udp(src_port, dst_port, payload + tail if tail else payload,
                                                          self.ip, dst), tos)
        if type(payload) is not bytes:
            payload = bytes(payload)
        seg = _UDP.pack(src_port, dst_port, pk.UDP_HEADER_LEN + len(payload) + len(tail), 0) + payload
        return self._send_ip(dst, pk.PROTO_UDP, seg, tail, tos)

    def send_echo_request(self, dst_ip: int | str, ident: int, seq: int, payload: bytes = b"", tos: int = 0) -> bool:
        """Send an ICMP echo request (replies reach the callback bound with ``bind_echo``)."""
        return self.send_ip(_ip(dst_ip), pk.PROTO_ICMP, pk.icmp_echo_request(ident, seq, payload), tos)

    def send_ip(self, dst_ip: int | str, protocol: int, payload: Any, tos: int = 0) -> bool:
        """Wrap ``payload`` in IPv4 from this host and send it toward ``dst_ip``."""
        if not self.up:
            self.stats.dropped_down += 1
            return False
        dst = dst_ip if type(dst_ip) is int else pk.parse_ip(dst_ip)  # type: ignore[arg-type]
        if type(payload) is not bytes:
            payload = bytes(payload)
        return self._send_ip(dst, protocol, payload, b"", tos)

    def _send_ip(self, dst: int, protocol: int, payload: Any, tail: Any, tos: int) -> bool:
        """``send_ip`` of ``payload + tail`` (both bytes), the frame built with one copy of ``tail``."""
        if not self.up:
            self.stats.dropped_down += 1
            return False
        self._ident = ident = (self._ident + 1) & 0xFFFF
        # pk.ipv4_header, inline (once per packet sent): its checksum and its masks
        tos &= 0xFF
        ttl = self.ttl & 0xFF
        protocol &= 0xFF
        src = self.ip
        length = len(payload) + len(tail)
        total = pk.IPV4_HEADER_LEN + length
        s = (0x4500 + tos + total + ident + (ttl << 8) + protocol + src + dst) % 0xFFFF
        header = _IPV4.pack(0x45, tos, total, ident, 0, ttl, protocol, 0xFFFF - s if s else 0, src, dst)
        if dst == src:
            # Loopback: delivered in a fresh event so the caller is not re-entered.
            self.stats.sent += 1
            self.sim.schedule(0, self._receive_ip, header + payload + tail)
            return True
        if dst == pk.BROADCAST_IP or dst == self.subnet_broadcast:
            return self._send_frame(pk.BROADCAST_MAC, header + payload + tail)
        if (dst & self.netmask) == self.subnet:
            hop = dst
        elif self.gateway is not None:
            hop = self.gateway
        else:
            self.stats.dropped_no_route += 1
            return False
        mac = self.arp_table.get(hop)
        if mac is None:
            return self._queue_for_arp(hop, header + payload + tail)
        # _send_frame, without building the IP packet on its own first: the short parts are
        # joined first, so the long one (the payload, or the tail when there is one) is copied once.
        head = self._eth_cache.get(mac)
        if head is None:
            head = self._eth_cache[mac] = mac.to_bytes(6, "big") + self._mac_bytes + _ETH_IPV4
        port = self.ports.get(0) if len(tail) >= UNJOINED_MIN and self.share_tails else None
        if port is not None and port.peer is not None and unjoined_ok(port):
            # The body every packet of a sender ends in stays shared under their headers (an unjoined
            # Frame, dataplane.engine.decision.frame) on the way to a switch that reads frames as they
            # are; ``dequeue`` joins it if that changed while it was queued.
            prefix = head + header + payload
            key = (len(prefix), id(tail))
            got = self._bases.get(key)
            if got is None or got[0] is not tail:
                if len(self._bases) >= 16:
                    self._bases.clear()
                got = self._bases[key] = (tail, bytes(len(prefix)) + tail)
            frame: Any = Frame(prefix, got[1])
        else:
            frame = head + header + payload + tail if tail else head + header + payload
            if length < _MIN_IP_PAYLOAD:
                frame += bytes(_MIN_IP_PAYLOAD - length)   # NICs pad short frames; it costs wire time
        if self._tx(frame):
            self.stats.sent += 1
            return True
        return False

    def send_raw(self, frame: Any) -> bool:
        """Put a whole frame on the wire as is: bytes, bytearray, or a scapy packet."""
        if not self.up:
            self.stats.dropped_down += 1
            return False
        data = frame if type(frame) is bytes else bytes(frame)
        if is_mac_control(data):
            port = self.ports.get(0)
            return port is not None and port.send_control(data)
        return self._tx(data)

    # ------------------------------------------------------------------ transmit path

    def _send_frame(self, dst_mac: int, packet: Any) -> bool:
        head = self._eth_cache.get(dst_mac)
        if head is None:
            head = self._eth_cache[dst_mac] = dst_mac.to_bytes(6, "big") + self._mac_bytes + _ETH_IPV4
        frame = head + packet
        if len(frame) < pk.ETH_MIN_FRAME:
            frame += bytes(pk.ETH_MIN_FRAME - len(frame))   # NICs pad short frames; it costs wire time
        if self._tx(frame):
            self.stats.sent += 1
            return True
        return False

    def _tx(self, frame: Any) -> bool:
        port = self.ports.get(0)
        if port is None or port.link is None:
            self.stats.dropped_down += 1
            return False
        if self._classes is not None:
            if frame.__class__ is Frame:
                frame = frame.join()                  # type: ignore[attr-defined]
            return self._classes.tx(port, frame)  # type: ignore[arg-type]  # port is a ClassPort
        size = len(frame) if frame.__class__ is not Frame else len(frame.base)  # type: ignore[attr-defined]
        backlog = self._backlog
        # _full(port, size), inline
        if backlog or (len(port.queue) >= port.capacity if port.capacity_kind == "packets"
                       else port.queue_bytes + size > port.capacity):
            if len(backlog) >= self.txqueuelen:
                self.stats.dropped_txqueue += 1
                return False
            backlog.append(frame)
        elif not port.enqueue(frame, size):
            return False
        stats = self.stats
        stats.tx_frames += 1
        stats.tx_bytes += size
        return True

    def dequeue(self, port: Port, item: Any, enq_time: int, enq_depth: int) -> Any:
        # A slot just freed in the port queue. Refill from the backlog in a new event: enqueueing
        # here would re-enter the port while it is between dequeue and starting transmission.
        if (self._backlog or self._puller is not None or self._classes is not None and self._classes.waiting) \
                and not self._refill_scheduled:
            self._refill_scheduled = True
            self.sim.schedule(0, self._refill)
        if item.__class__ is Frame and not unjoined_ok(port):
            return item.join()
        return item

    def _refill(self) -> None:
        self._refill_scheduled = False
        port = self.ports.get(0)
        if self._classes is not None and port is not None:
            self._classes.refill(port)  # type: ignore[arg-type]  # a ClassPort
            if self._puller is not None and port.up:
                while not self._classes.waiting and len(port.queue) < PULL_AHEAD and self.up and self._puller():
                    pass
            return
        backlog = self._backlog
        while port is not None and backlog and not _full(port, len(backlog[0])):
            frame = backlog.popleft()
            port.enqueue(frame, len(frame))
        pull = self._puller
        if pull is not None and port is not None and port.up:
            while not backlog and len(port.queue) < PULL_AHEAD and self.up and pull():
                pass

    def __repr__(self) -> str:
        return f"Host({self.name}, {pk.ip_str(self.ip)}/{self.prefix_len}, {pk.mac_str(self.mac)})"


def _full(port: Port, size: int) -> bool:
    """Whether ``port.enqueue`` would tail-drop; checked first so host backpressure does not
    show up as drops in the port's statistics."""
    if port.capacity_kind == "packets":
        return len(port.queue) >= port.capacity
    return port.queue_bytes + size > port.capacity


def _ip(addr: int | str) -> int:
    return addr if type(addr) is int else pk.parse_ip(addr)  # type: ignore[arg-type]
