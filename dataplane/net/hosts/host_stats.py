"""What a host counted: packets sent and received, and every reason it dropped one."""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(eq=False)
class HostStats:
    """Counters of one host. ``sent``/``received`` count IP packets that left for the wire and
    that were accepted for this host; frames (including ARP and raw) are counted separately."""
    sent: int = 0
    received: int = 0
    tx_frames: int = 0
    tx_bytes: int = 0
    rx_frames: int = 0
    rx_bytes: int = 0
    arp_requests_sent: int = 0
    arp_replies_sent: int = 0
    arp_resolved: int = 0
    echo_replies_sent: int = 0
    udp_delivered: int = 0
    ce_received: int = 0           # of ``received``: IPv4 packets whose ECN field said CE (a switch marked them)
    dropped_no_arp: int = 0        # next hop never answered ARP, or the per-hop ARP queue overflowed
    dropped_no_route: int = 0      # off-link destination and no gateway
    dropped_txqueue: int = 0       # host transmit queue full
    dropped_priority: int = 0      # a priority the NIC has no queue for (traffic classes, host_classes)
    dropped_down: int = 0          # host is down
    dropped_not_for_us: int = 0    # another MAC or IP
    dropped_malformed: int = 0     # truncated or inconsistent headers
    dropped_bad_checksum: int = 0  # IPv4 header, ICMP or (when present) UDP checksum wrong
    dropped_no_listener: int = 0   # UDP to an unbound port, echo reply nobody waits for
    dropped_unsupported: int = 0   # other ethertypes / protocols, fragments

    @property
    def dropped(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self) if f.name.startswith("dropped_"))

    def __getitem__(self, name: str) -> int:   # so ``host.stats["sent"]`` works like the apps' dicts
        return getattr(self, name)

    def as_dict(self) -> dict[str, int]:
        d = asdict(self)
        d["dropped"] = self.dropped
        return d
