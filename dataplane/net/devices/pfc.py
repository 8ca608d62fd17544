"""Priority-based flow control (IEEE 802.1Qbb) for the traffic manager: pause frames, and
per-port ingress accounting with XOFF/XON thresholds at switches.

Wire format (a MAC control frame; Wireshark decodes it as "PFC"):

    dst 01:80:c2:00:00:01, src (the sending port's MAC), ethertype 0x8808,
    opcode 0x0101, class-enable vector (16 bits, bit i = priority i),
    8 x 16-bit pause times (priority 0 first), zero padding to the 60-byte minimum frame.

A pause time is in quanta of 512 bit times at the receiving port's rate (65535 quanta =
335.5 us at 100 Gb/s, 83.9 us at 400 Gb/s); 0 means resume now (XON). An 802.3x PAUSE
(opcode 0x0001, one pause time for the whole link) is understood as well.

**Receiving** (``Port.receive_control`` in ``dataplane.net.devices.link``): a port that receives a
pause frame stops starting new transmissions until the pause expires or a quanta-0 frame
arrives; the frame in service finishes (802.3). MAC control frames are consumed by the
port: they never reach the P4 pipeline or the host stack. Any node honours pause, hosts
included (what the host sends meanwhile waits in its queues).

**Per priority with traffic classes, per port without.** A switch or host port with several
queues (``queues:``, ``dataplane.net.devices.tclass``; hosts: ``dataplane.net.hosts.host_classes``)
pauses each enabled class's queue for that class's own pause time (class i = queue i) and
goes on serving the others; a port with one queue (the default for hosts and switches)
stops as a whole, for the longest pause time among the enabled classes. A switch with traffic classes accounts bytes per (ingress port,
priority) for its lossless priorities only (``PfcConfig.priorities``, by default
``priority``, 3, RoCE's usual lossless class) and pauses each of them on its own: the other
classes are lossy (tail drop). A switch with one queue accounts every byte per ingress port
and pauses with the class of ``priority``, as before.

**Generating** (:class:`SwitchPfc`, enabled per switch with ``params["pfc"]``): every byte a
switch queues on an egress port is accounted to the port it came in on until it leaves the
egress queue. When the bytes of ingress port P reach ``xoff``, the switch sends a PAUSE
(``quanta``, 0xFFFF by default) out of P, refreshed every ``refresh`` x the pause time while
P stays above ``xon``; when P's bytes fall to ``xon`` or below, it sends a quanta-0 frame.
Pause frames bypass the egress queue: they go out as soon as the frame in service ends.

**Headroom.** After the XOFF threshold is crossed, bytes keep arriving on P until the pause
takes effect upstream. The IEEE 802.1Qbb delay model (Annex N; the terms as Cisco's storage
networking guide tabulates them: D-Max-Frame-Len, D-Pause, D-Cable, D-Intf, D-Resp) adds up
what can still arrive: the max frame in service on P ahead of the pause frame, the pause
frame, the cable both ways (the pause frame travelling up, the last bits travelling down),
the interface delay (PHY and MAC of both ends, 802.3's upper bounds: 8,192 bit times at
10G, 6,144 at 25G, 24,576 at 40G, 122,880 at 100G), the response delay (what 802.3 Annex 31B
lets the upstream MAC take to act on a pause: 30,720 bit times at 10G, 40,960 at 25G,
60,416 at 40G, 201,728 at 100G, 463,360 at 400G) and the max frame upstream already in
service::

    headroom_bytes = ceil(2 x latency x rate / 8) + 2 x (max frame + overhead)
                     + (pause frame + overhead) + ceil((D-Intf + D-Resp) / 8)

(``overhead``: what each frame occupies on the wire beyond its captured bytes, 0 in this
model's serialization, 24 with preamble, SFD, IFG and FCS). At 100 Gb/s the two delays alone
are 40,576 bytes; at a rate between the tabulated ones the next faster rate's bounds apply.
Every egress queue that ingress ports feed stays loss-free if its capacity is at least the
sum, over those ingress ports, of ``xoff + max frame + headroom`` (the packet that crosses
XOFF may itself be a full frame): :func:`lossless_problems` checks this for a network.
"""
from __future__ import annotations

import struct
import zlib
from typing import Any

from dataplane.arch.work import CachedEgress
from dataplane.net.topology.spec import MAX_QUANTA, PfcConfig

__all__ = ["PAUSE_DST", "ETHERTYPE_MAC_CONTROL", "OPCODE_PAUSE", "OPCODE_PFC", "QUANTUM_BITS", "MAX_QUANTA",
           "PAUSE_FRAME_LEN", "pfc_frame", "pause_frame", "parse_pause", "parse_pfc", "is_mac_control", "quanta_ns",
           "PfcConfig", "SwitchPfc", "enable_pfc", "headroom_bytes", "link_headroom", "lossless_problems", "port_mac"]

PAUSE_DST = 0x0180_C200_0001
ETHERTYPE_MAC_CONTROL = 0x8808
OPCODE_PAUSE = 0x0001          # IEEE 802.3x: pause the whole link
OPCODE_PFC = 0x0101            # IEEE 802.1Qbb: per-priority pause
QUANTUM_BITS = 512
PAUSE_FRAME_LEN = 60           # the minimum Ethernet frame without FCS (this model carries no FCS)

_DST = PAUSE_DST.to_bytes(6, "big")
_TYPE = ETHERTYPE_MAC_CONTROL.to_bytes(2, "big")
_PFC = struct.Struct("!HH8H")
_PAUSE = struct.Struct("!HH")


def port_mac(node_name: str, port: int) -> int:
    """A stable, locally administered MAC for a switch port (switch ports have no configured MAC)."""
    return (0x02 << 40) | ((zlib.crc32(node_name.encode()) & 0xFFFFFF) << 16) | (port & 0xFFFF)


def pfc_frame(src_mac: int, quanta: int | list[int], classes: int = 1 << 3) -> bytes:
    """An 802.1Qbb PFC frame enabling ``classes`` (bit i = priority i) with ``quanta`` for every
    enabled class (one value), or the 8 per-priority values (a list)."""
    times = list(quanta) if isinstance(quanta, (list, tuple)) else \
        [quanta if classes >> i & 1 else 0 for i in range(8)]
    if len(times) != 8 or not all(0 <= q <= MAX_QUANTA for q in times):
        raise ValueError("PFC needs 8 pause times in 0..65535")
    body = _DST + src_mac.to_bytes(6, "big") + _TYPE + _PFC.pack(OPCODE_PFC, classes & 0xFF, *times)
    return body + bytes(PAUSE_FRAME_LEN - len(body))


def pause_frame(src_mac: int, quanta: int) -> bytes:
    """An 802.3x PAUSE frame (the whole link) for ``quanta``."""
    body = _DST + src_mac.to_bytes(6, "big") + _TYPE + _PAUSE.pack(OPCODE_PAUSE, quanta & 0xFFFF)
    return body + bytes(PAUSE_FRAME_LEN - len(body))


def is_mac_control(frame: bytes) -> bool:
    return len(frame) >= 16 and frame[12:14] == _TYPE


def parse_pause(frame: bytes) -> int | None:
    """The pause time in quanta a port takes from ``frame`` (the longest among the enabled
    classes of a PFC frame; 0 = resume), or None if it is not a pause frame."""
    if len(frame) < 16 or frame[12:14] != _TYPE:
        return None
    opcode = int.from_bytes(frame[14:16], "big")
    if opcode == OPCODE_PFC and len(frame) >= 14 + _PFC.size:
        _, enable, *times = _PFC.unpack_from(frame, 14)
        enabled = [q for i, q in enumerate(times) if enable >> i & 1]
        return max(enabled) if enabled else None
    if opcode == OPCODE_PAUSE and len(frame) >= 14 + _PAUSE.size:
        return _PAUSE.unpack_from(frame, 14)[1]
    return None


def parse_pfc(frame: bytes) -> list[int | None] | None:
    """The pause time in quanta per priority (index 0..7; None for a class the frame does not
    enable) of a PFC frame; an 802.3x PAUSE applies its time to every class. None if ``frame``
    is not a pause frame."""
    if len(frame) < 16 or frame[12:14] != _TYPE:
        return None
    opcode = int.from_bytes(frame[14:16], "big")
    if opcode == OPCODE_PFC and len(frame) >= 14 + _PFC.size:
        _, enable, *times = _PFC.unpack_from(frame, 14)
        return [q if enable >> i & 1 else None for i, q in enumerate(times)]
    if opcode == OPCODE_PAUSE and len(frame) >= 14 + _PAUSE.size:
        return [_PAUSE.unpack_from(frame, 14)[1]] * 8
    return None


def quanta_ns(quanta: int, rate_bps: int) -> int:
    """How long ``quanta`` x 512 bit times last at ``rate_bps``, in ns (rounded up)."""
    return -(-quanta * QUANTUM_BITS * 1_000_000_000 // rate_bps)


class SwitchPfc:
    """Ingress accounting and pause generation for one switch (``SwitchNode.pfc``).

    ``SwitchNode`` hands egress work to :meth:`enqueue` instead of the port, and every item
    leaving an egress queue to :meth:`dequeued`; the accounted ingress port and bytes ride in
    the queued ``EgressWork`` (``pfc_key`` = ingress port x 8 + priority, ``pfc_bytes``).
    Counters: ``xoff_sent``, ``xon_sent``, ``refresh_sent``; per (ingress port, priority) key
    ``bytes`` (now); per ingress port ``peak`` (the most ever accounted to one of its priorities).
    """

    def __init__(self, node: Any, config: PfcConfig):
        self.node, self.config, self.sim = node, config, node.sim
        self.bytes: dict[int, int] = {}
        self.peak: dict[int, int] = {}
        self.paused: dict[int, int] = {}       # key -> generation while it is held off (XOFF sent)
        qc = getattr(node, "queue_config", None)
        # With traffic classes, each lossless priority is accounted and paused on its own.
        self.per_priority = qc is not None and qc.multiple
        self.lossless = frozenset(config.lossless)
        self._gen = 0
        self.xoff_sent = self.xon_sent = self.refresh_sent = 0

    @property
    def frames_sent(self) -> int:
        return self.xoff_sent + self.xon_sent + self.refresh_sent

    def enqueue(self, port: Any, item: Any) -> bool:
        """Queue ``item`` (an ``EgressWork``) on ``port``, accounting its bytes to its ingress port."""
        if item.__class__ is CachedEgress:      # its ctx and sm are itself, through properties
            size = item.pfc_bytes = item.packet_length
            inp = item.ingress_port
        else:
            size = item.pfc_bytes = item.ctx.packet_length
            inp = item.sm.ingress_port
        if self.per_priority:
            prio = self.node._class_of(item)
            if prio not in self.lossless:
                item.pfc_key = -1              # a lossy class: tail drop, no pause
                return port.enqueue(item, size)
        else:
            prio = self.config.priority
        if inp not in self.node.ports:
            item.pfc_key = -1                  # CPU, recirculation: nothing upstream to pause
            return port.enqueue(item, size)
        key = item.pfc_key = inp * 8 + prio
        # Accounted first: an idle port dequeues (and releases) the packet inside enqueue.
        bytes_ = self.bytes
        b = bytes_[key] = bytes_.get(key, 0) + size
        if not port.enqueue(item, size):
            bytes_[key] -= size
            return False
        if b > self.peak.get(inp, 0):
            self.peak[inp] = b
        if bytes_[key] >= self.config.xoff and key not in self.paused:
            self._xoff(key)
        return True

    def dequeued(self, item: Any) -> None:
        """``item`` left its egress queue: release the bytes accounted to its ingress port."""
        key = item.pfc_key
        if key >= 0:
            b = self.bytes[key] = self.bytes[key] - item.pfc_bytes
            if b <= self.config.xon and key in self.paused:
                del self.paused[key]
                self.xon_sent += 1
                self._send(key, 0)

    def _xoff(self, key: int) -> None:
        self._gen += 1
        self.paused[key] = self._gen
        self.xoff_sent += 1
        self._send(key, self.config.quanta)
        self._schedule_refresh(key, self._gen)

    def _schedule_refresh(self, key: int, gen: int) -> None:
        port = self.node.ports[key >> 3]
        if port.link is None:
            return
        every = max(1, int(quanta_ns(self.config.quanta, port.link.rate_bps) * self.config.refresh))
        self.sim.schedule(every, self._refresh, key, gen)

    def _refresh(self, key: int, gen: int) -> None:
        if self.paused.get(key) != gen:
            return                             # XON was sent (and maybe a new XOFF) since
        self.refresh_sent += 1
        self._send(key, self.config.quanta)
        self._schedule_refresh(key, gen)

    def _send(self, key: int, quanta: int) -> None:
        """A PFC frame out of ingress port ``key >> 3`` for priority ``key & 7`` alone."""
        inp = key >> 3
        port = self.node.ports[inp]
        port.send_control(pfc_frame(port_mac(self.node.name, inp), quanta, 1 << (key & 7)))

    def stats(self) -> dict[str, Any]:
        return {"xoff_sent": self.xoff_sent, "xon_sent": self.xon_sent, "refresh_sent": self.refresh_sent,
                "peak_ingress_bytes": dict(sorted(self.peak.items())),
                "paused_ports": sorted({key >> 3 for key in self.paused}),
                "paused_priorities": sorted(f"{key >> 3}:{key & 7}" for key in self.paused)}


def enable_pfc(node: Any, config: PfcConfig | dict | bool = True) -> SwitchPfc | None:
    """Turn PFC on (or off with None/False) for a ``SwitchNode`` built without it; its egress
    queues must be empty (queued items carry the accounting only when PFC was on). A
    ``watchdog`` needs ports it can watch: traffic-class ports, or single-queue ports built
    watched (the switch's topology entry had the watchdog)."""
    if any(p.queue for p in node.ports.values()):
        raise ValueError(f"{node.name}: enable PFC before traffic (its egress queues are not empty)")
    cfg = PfcConfig.from_value(config)
    if cfg is not None and cfg.watchdog is not None:
        # traffic-class ports (queue_metrics) and WatchedPorts (stormed) can be watched
        plain = [p.name for p in node.ports.values() if not hasattr(p, "queue_metrics") and not hasattr(p, "stormed")]
        if plain:
            raise ValueError(f"{node.name}: a PFC watchdog cannot watch {', '.join(plain)}, built without one: "
                             "give the watchdog in the topology (pfc: {watchdog: ...}) so its ports are built watched")
    node.pfc = SwitchPfc(node, cfg) if cfg is not None else None
    node.pfc_watchdog = node.watchdog_for(cfg)
    return node.pfc


#: (rate up to, bit times): 802.3's interface delay (D-Intf) and pause response delay (D-Resp)
#: upper bounds per port speed, as tabulated for the 802.1Qbb headroom model (module docstring).
INTERFACE_DELAY_BITS = ((10_000_000_000, 8_192), (25_000_000_000, 6_144), (40_000_000_000, 24_576),
                        (100_000_000_000, 122_880))
RESPONSE_DELAY_BITS = ((10_000_000_000, 30_720), (25_000_000_000, 40_960), (40_000_000_000, 60_416),
                       (100_000_000_000, 201_728), (400_000_000_000, 463_360))


def delay_bits(table: tuple[tuple[int, int], ...], rate_bps: int) -> int:
    """The bound for ``rate_bps``: the entry of the slowest tabulated rate at or above it
    (the fastest entry above the table)."""
    for up_to, bits in table:
        if rate_bps <= up_to:
            return bits
    return table[-1][1]


def headroom_bytes(rate_bps: int, latency_ns: int, max_frame: int, *, overhead: int = 0,
                   interface_bits: int | None = None, response_bits: int | None = None) -> int:
    """Bytes that can still arrive on a port after it decides to send XOFF (802.1Qbb's delay
    model, module docstring): the cable both ways at ``rate_bps``, two max frames (ours in
    service ahead of the pause frame, the upstream one in service when it acts), the pause
    frame, and the interface and response delays (802.3's bounds for the rate unless given)."""
    if interface_bits is None:
        interface_bits = delay_bits(INTERFACE_DELAY_BITS, rate_bps)
    if response_bits is None:
        response_bits = delay_bits(RESPONSE_DELAY_BITS, rate_bps)
    return (-(-2 * latency_ns * rate_bps // 8_000_000_000) + 2 * (max_frame + overhead)
            + PAUSE_FRAME_LEN + overhead + -(-(interface_bits + response_bits) // 8))


def link_headroom(link: Any) -> int:
    """``headroom_bytes`` of a link, its max frame being its MTU plus the Ethernet header, each
    frame costing the link's wire overhead (``Link.wire_extra``: FCS, preamble and gap)."""
    return headroom_bytes(link.rate_bps, link.latency_ns, link.mtu + 14, overhead=link.wire_extra)


def lossless_problems(net: Any) -> list[str]:
    """Egress queues of PFC switches whose byte capacity is below the sum, over the switch's
    other ports, of xoff + max frame + headroom (so a tail drop is possible); [] if none."""
    problems = []
    for node in net.switches.values():
        pfc = getattr(node, "pfc", None)
        if pfc is None:
            continue
        need_of = {}
        for n, p in node.ports.items():
            if p.link is not None:
                frame = p.link.mtu + 14
                need_of[n] = pfc.config.xoff + frame + link_headroom(p.link)
        for n, p in sorted(node.ports.items()):
            if p.link is None:
                continue
            need = sum(v for m, v in need_of.items() if m != n)
            if p.capacity_kind != "bytes":
                problems.append(f"{p.name}: queue is {p.capacity} packets; PFC headroom needs a byte buffer "
                                f"of at least {need} bytes")
            elif p.capacity < need:
                problems.append(f"{p.name}: buffer {p.capacity} bytes < {need} bytes "
                                f"(sum of xoff + frame + headroom over the other ports)")
    return problems
