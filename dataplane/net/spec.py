"""What a topology file describes, as plain data (units already converted).

``dataplane.net.topology`` reads YAML (containerlab-style) and the P4 tutorials'
``topology.json`` into a ``TopologySpec``; ``dataplane.net.network`` builds the running
network from it. Defaults cover everything a small run does not care about.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_BANDWIDTH_BPS = 10_000_000_000   # 10 Gbps
DEFAULT_LATENCY_NS = 1_000               # 1 us
DEFAULT_QUEUE = (64, "packets")
DEFAULT_MTU = 1500


@dataclass
class SwitchSpec:
    name: str
    program: Path                          # the .p4 file
    entries: Path | None = None            # runtime JSON or simple_switch_CLI commands
    controller: str | None = None          # "path/file.py:ClassName" or "module:ClassName"
    processing_ns: int = 0                 # per-packet pipeline latency
    detection_ns: int = 1_000_000          # link-down detection delay before port status flips
    write_latency_ns: int = 0              # control-plane cost of one table write
    params: dict[str, Any] = field(default_factory=dict)   # free-form; "pfc" enables PFC (dataplane.net.pfc)
    line: int = 0                          # where it was written, for messages


@dataclass
class HostSpec:
    name: str
    mac: int
    ip: int
    prefix_len: int = 24
    gateway: int | None = None
    static_arp: dict[int, int] = field(default_factory=dict)  # ip -> mac
    line: int = 0


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


@dataclass
class TopologySpec:
    name: str
    source: Path | None = None
    switches: dict[str, SwitchSpec] = field(default_factory=dict)
    hosts: dict[str, HostSpec] = field(default_factory=dict)
    links: list[LinkSpec] = field(default_factory=list)
