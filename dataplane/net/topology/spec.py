"""What a topology file describes, as plain data (units already converted).

``dataplane.net.topology.load`` reads YAML (containerlab-style) and the P4 tutorials'
``topology.json`` into a ``TopologySpec``; ``dataplane.net.fabric.network`` builds the running
network from it. Defaults cover everything a small run does not care about.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dataplane.net.core.units import UnitError, parse_queue, parse_time
from dataplane.net.topology.tclass_spec import QueueConfig

DEFAULT_BANDWIDTH_BPS = 10_000_000_000   # 10 Gbps
DEFAULT_LATENCY_NS = 1_000               # 1 us
DEFAULT_QUEUE = (64, "packets")
DEFAULT_MTU = 1500

# DPU cost model defaults (dataplane.net.devices.dpu_node explains the model). The class is the
# 400 Gb/s DPU of /work/shared/docs/FABRIC-REFERENCE.md section 3.3: BlueField-3 (400 GbE),
# Pensando Salina (2x400G), Intel E2200 (400G). Vendors publish no packet rate, so the
# default is chosen: 150 Mpps, about 100 GbE line rate at 64-byte frames (148.8 Mpps) and a
# quarter of 400 GbE's (595.2 Mpps), so frames of 334 bytes and more go at the 400 Gb/s
# ceiling and small frames are packet-rate bound (XenoFlow, arXiv 2509.21656, saw the
# BlueField-3 eSwitch miss line rate). The 2 us latency and the 1024-packet queue in front
# of the pipeline are likewise chosen (an eSwitch hop, on-chip buffering), not published.
DEFAULT_DPU_RATE_BPS = 400_000_000_000
DEFAULT_DPU_PACKET_RATE = 150_000_000
DEFAULT_DPU_LATENCY_NS = 2_000
DEFAULT_DPU_QUEUE = (1024, "packets")

# An eBPF/XDP program on a host's NIC (dataplane.net.hosts.xdp_host) runs on one CPU core under
# the same FIFO cost model as a DPU's pipeline. Chosen defaults, not measurements: 10 Mpps (an
# XDP program that parses and rewrites a few headers; XDP_DROP alone reaches ~24 Mpps per
# core, forwarding ~10, in Hoeiland-Joergensen et al., "The eXpress Data Path", CoNEXT 2018),
# no byte-rate bound below a 100 Gb/s NIC, 1 us from the end of a packet's slot to its
# delivery, and the 1024-descriptor receive ring in front of the core.
DEFAULT_XDP_RATE_BPS = 100_000_000_000
DEFAULT_XDP_PACKET_RATE = 10_000_000
DEFAULT_XDP_LATENCY_NS = 1_000
DEFAULT_XDP_QUEUE = (1024, "packets")

MAX_QUANTA = 0xFFFF   # the largest 802.1Qbb pause time (dataplane.net.devices.pfc writes the frames)


@dataclass
class SwitchSpec:
    name: str
    program: Path                          # the .p4 file
    entries: Path | None = None            # runtime JSON or simple_switch_CLI commands
    controller: str | None = None          # "path/file.py:ClassName" or "module:ClassName"
    processing_ns: int = 0                 # per-packet pipeline latency
    detection_ns: int = 1_000_000          # link-down detection delay before port status flips
    write_latency_ns: int = 0              # control-plane cost of one table write
    params: dict[str, Any] = field(default_factory=dict)   # free-form; "pfc" enables PFC (dataplane.net.devices.pfc)
    line: int = 0                          # where it was written, for messages
    named_program: str | None = None       # the program the topology names, as written (None: none)
    program_given: bool = False            # ``program`` is a --program (dataplane.net.topology.programs)


@dataclass
class DpuSpec:
    """A DPU: a PNA program plus the pipeline's cost (``dataplane.net.devices.dpu_node``).

    ``host_ports`` / ``net_ports`` left as None: ports linked to a host are host ports and
    every other linked port is a net port; give one list and the other is the rest.
    """
    name: str
    program: Path                          # a PNA .p4 file
    entries: Path | None = None            # runtime JSON or simple_switch_CLI commands
    rate_bps: int = DEFAULT_DPU_RATE_BPS   # throughput ceiling of the pipeline
    packet_rate_pps: int = DEFAULT_DPU_PACKET_RATE
    latency_ns: int = DEFAULT_DPU_LATENCY_NS   # from the end of a packet's pipeline slot to its output
    queue: tuple[int, str] = DEFAULT_DPU_QUEUE  # FIFO in front of the pipeline: (capacity, "packets" | "bytes")
    host_ports: tuple[int, ...] | None = None
    net_ports: tuple[int, ...] | None = None
    line: int = 0


@dataclass
class XdpSpec:
    """An eBPF program on a host's NIC receive path: an XDP program (``xdp_model.p4``) or an
    ``ebpfFilter`` (``ebpf_model.p4``, a TC ingress filter), with its cost (``hosts.xdp_host``)."""
    program: Path
    entries: Path | None = None            # runtime JSON or simple_switch_CLI commands
    rate_bps: int = DEFAULT_XDP_RATE_BPS
    packet_rate_pps: int = DEFAULT_XDP_PACKET_RATE
    latency_ns: int = DEFAULT_XDP_LATENCY_NS
    queue: tuple[int, str] = DEFAULT_XDP_QUEUE
    line: int = 0


#: How a host NIC with traffic classes reads a frame's priority (dataplane.net.hosts.host_classes).
HOST_TRUSTS = ("dscp", "pcp")


@dataclass
class HostSpec:
    name: str
    mac: int
    ip: int
    prefix_len: int = 24
    gateway: int | None = None
    static_arp: dict[int, int] = field(default_factory=dict)  # ip -> mac
    line: int = 0
    xdp: XdpSpec | None = None             # an eBPF/XDP program on the NIC (None: the plain stack)
    netns: bool = False                    # a Linux network namespace in real time (dataplane.net.netns)
    queues: QueueConfig | None = None      # traffic classes on the NIC (None: one queue; hosts.host_classes)
    trust: str = "dscp"                    # how the NIC reads a frame's priority: dscp or pcp (hosts.host_classes)


#: What a frame costs on a link beyond its captured bytes (dataplane.net.devices.link.OVERHEADS):
#: Ethernet's preamble/SFD, FCS, inter-frame gap and 64-byte minimum, or nothing.
LINK_OVERHEADS = ("ethernet", "none")


@dataclass
class LinkSpec:
    a: tuple[str, int]                     # (node, port number)
    b: tuple[str, int]
    bandwidth_bps: int = DEFAULT_BANDWIDTH_BPS
    latency_ns: int = DEFAULT_LATENCY_NS
    queue: tuple[int, str] = DEFAULT_QUEUE  # (capacity, "packets" | "bytes"), per direction
    mtu: int = DEFAULT_MTU
    loss: float = 0.0
    corruption: float = 0.0
    line: int = 0
    overhead: str = "ethernet"             # per-frame wire overhead, one of LINK_OVERHEADS (devices.link.wire_bytes)


@dataclass
class TopologySpec:
    name: str
    source: Path | None = None
    switches: dict[str, SwitchSpec] = field(default_factory=dict)
    hosts: dict[str, HostSpec] = field(default_factory=dict)
    links: list[LinkSpec] = field(default_factory=list)
    dpus: dict[str, DpuSpec] = field(default_factory=dict)
    ranks: dict[str, tuple[int, int]] = field(default_factory=dict)   # node -> (pinned MPI rank, line)

    def linked_ports(self, node: str) -> dict[int, str]:
        """The ports of ``node`` that links use, each with the node at the other end."""
        out = {}
        for ls in self.links:
            for (n, port), (peer, _) in ((ls.a, ls.b), (ls.b, ls.a)):
                if n == node:
                    out[port] = peer
        return out

    def dpu_port_problem(self, name: str) -> tuple[str, int, str] | None:
        """What is wrong with DPU ``name``'s explicit ``host_ports`` / ``net_ports``, as
        (field, port, message), or None: they must name linked ports, not overlap, and, when
        both are given, cover every linked port."""
        d = self.dpus[name]
        linked = sorted(self.linked_ports(name))
        for key in ("host_ports", "net_ports"):
            for port in getattr(d, key) or ():
                if port not in linked:
                    return key, port, (f"unknown port {port}: no link uses port {port} of '{name}' "
                                       f"(linked ports: {', '.join(map(str, linked)) or 'none'})")
        if d.host_ports is not None and d.net_ports is not None:
            both = sorted(set(d.host_ports) & set(d.net_ports))
            if both:
                return "host_ports", both[0], f"port {both[0]} is in both host_ports and net_ports"
            left = [p for p in linked if p not in d.host_ports and p not in d.net_ports]
            if left:
                return "host_ports", left[0], (f"linked port {left[0]} is in neither host_ports nor net_ports "
                                               f"(give one list and the other is the rest)")
        return None

    def dpu_net_ports(self, name: str) -> frozenset[int]:
        """The network-facing ports of DPU ``name``; the PNA program sees every other port as a host port."""
        d = self.dpus[name]
        if d.net_ports is not None:
            return frozenset(d.net_ports)
        linked = self.linked_ports(name)
        if d.host_ports is not None:
            return frozenset(linked) - frozenset(d.host_ports)
        return frozenset(port for port, peer in linked.items() if peer not in self.hosts)


def _size(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"pfc {what} must be a size in bytes, got {value!r}")
    if isinstance(value, int):
        amount = value
    else:
        try:
            amount, kind = parse_queue(str(value) if any(c.isalpha() for c in str(value)) else f"{value}B")
        except UnitError as err:
            raise ValueError(f"pfc {what}: {err}") from None
        if kind != "bytes":
            raise ValueError(f"pfc {what} must be a size in bytes (e.g. 64KB), got {value!r}")
    if amount < 0:
        raise ValueError(f"pfc {what} must not be negative, got {value!r}")
    return amount


def _setting(cls: type, value: Any, expected: str) -> Any:
    """A switch setting given as off (None/False), on with defaults (True), an instance of
    ``cls``, or a mapping: the first three are returned as what they mean, a mapping as is for
    the caller to read; anything else is a ValueError that starts with ``expected``."""
    if value is None or value is False:
        return None
    if isinstance(value, cls):
        return value
    if value is True:
        return cls()
    if not isinstance(value, dict):
        raise ValueError(f"{expected}, got {value!r}")
    return value


@dataclass(frozen=True)
class WatchdogConfig:
    """A PFC watchdog (``dataplane.net.devices.pfc_watchdog``): a queue paused with packets
    waiting and nothing sent for ``detection_ns`` is stormed; ``action`` ``drop`` discards what
    it holds and what arrives for it, ``forward`` sends it regardless of pause; either way
    pause frames for its class are ignored until ``restoration_ns`` passes with none received."""
    detection_ns: int = 200_000_000      # SONiC's default detection time, 200 ms
    restoration_ns: int = 200_000_000    # SONiC's default restoration time, 200 ms
    action: str = "drop"                 # SONiC's default action
    poll_ns: int = 0                     # how often queues are checked; 0: detection / 4

    def __post_init__(self) -> None:
        if self.detection_ns <= 0 or self.restoration_ns <= 0 or self.poll_ns < 0:
            raise ValueError("pfc watchdog detection and restoration must be positive times")
        if self.action not in ("drop", "forward"):
            raise ValueError(f"pfc watchdog action must be drop or forward, got {self.action!r}")

    @classmethod
    def from_value(cls, value: Any) -> "WatchdogConfig | None":
        value = _setting(cls, value, "pfc watchdog must be a mapping such as {detection: 200ms, restoration: 200ms}")
        if not isinstance(value, dict):
            return value
        names = {"detection": "detection_ns", "restoration": "restoration_ns", "poll": "poll_ns",
                 "detection_ns": "detection_ns", "restoration_ns": "restoration_ns", "poll_ns": "poll_ns"}
        unknown = set(value) - set(names) - {"action"}
        if unknown:
            raise ValueError(f"unknown pfc watchdog setting(s) {', '.join(sorted(unknown))} "
                             f"(use detection, restoration, action, poll)")
        kw: dict[str, Any] = {}
        for k, v in value.items():
            if k == "action":
                kw["action"] = str(v)
            else:
                try:
                    kw[names[k]] = v if isinstance(v, int) and not isinstance(v, bool) else parse_time(str(v))
                except UnitError as err:
                    raise ValueError(f"pfc watchdog {k}: {err}") from None
        return cls(**kw)


@dataclass(frozen=True)
class PfcConfig:
    """PFC thresholds of one switch (bytes per ingress port, or per ingress port and lossless
    priority on a switch with traffic classes)."""
    xoff: int = 64_000
    xon: int = 32_000
    priority: int = 3              # the class named in the pause frames
    quanta: int = MAX_QUANTA       # pause time of an XOFF frame
    refresh: float = 0.5           # re-send XOFF after this fraction of the pause time while above XON
    priorities: tuple[int, ...] = ()   # lossless priorities with traffic classes (default: priority)
    watchdog: WatchdogConfig | None = None

    @property
    def lossless(self) -> tuple[int, ...]:
        return self.priorities or (self.priority,)

    def __post_init__(self) -> None:
        if not 0 <= self.xon <= self.xoff or self.xoff <= 0:
            raise ValueError(f"pfc needs 0 <= xon <= xoff and xoff > 0, got xoff={self.xoff} xon={self.xon}")
        if not 0 <= self.priority <= 7:
            raise ValueError(f"pfc priority must be 0..7, got {self.priority}")
        if not 1 <= self.quanta <= MAX_QUANTA:
            raise ValueError(f"pfc quanta must be 1..65535, got {self.quanta}")
        if not 0 < self.refresh <= 1:
            raise ValueError(f"pfc refresh must be in (0, 1], got {self.refresh}")
        if any(not 0 <= p <= 7 for p in self.priorities):
            raise ValueError(f"pfc priorities must be 0..7, got {list(self.priorities)}")

    @classmethod
    def from_value(cls, value: Any) -> "PfcConfig | None":
        """From a switch's ``params["pfc"]``: a mapping (``xoff``, ``xon`` as bytes or sizes such
        as ``64KB``, ``priority``, ``quanta``, ``refresh``), True (defaults), or None/False (off)."""
        value = _setting(cls, value, "pfc must be a mapping such as {xoff: 64KB, xon: 32KB} or true")
        if not isinstance(value, dict):
            return value
        unknown = set(value) - {"xoff", "xon", "priority", "quanta", "refresh", "enabled", "priorities", "watchdog"}
        if unknown:
            raise ValueError(f"unknown pfc setting(s) {', '.join(sorted(unknown))} "
                             f"(use xoff, xon, priority, priorities, quanta, refresh, watchdog)")
        if value.get("enabled", True) is False:
            return None
        xoff = _size(value.get("xoff", cls.xoff), "xoff")
        xon = _size(value["xon"], "xon") if "xon" in value else min(cls.xon, xoff // 2)
        priorities = value.get("priorities") or ()
        if not isinstance(priorities, (list, tuple)) or not all(isinstance(p, int) for p in priorities):
            raise ValueError(f"pfc priorities must be a list of priorities 0..7, got {priorities!r}")
        return cls(xoff=xoff, xon=xon, priority=int(value.get("priority", cls.priority)),
                   quanta=int(value.get("quanta", cls.quanta)), refresh=float(value.get("refresh", cls.refresh)),
                   priorities=tuple(priorities), watchdog=WatchdogConfig.from_value(value.get("watchdog")))
