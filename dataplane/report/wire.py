"""What the report's recorder sees frame by frame, beside its sampled counters:

    PortLine   per port, through its capture hook (chained to a pcap writer already there): the
               data frames it put on its wire, for each port's utilisation over its own window
               and for the window of the run's activity
    Arrivals   per host, through ``Host.on_receive``: the frames arriving at hosts by IPv4 flow,
               in time bins that widen as the run does, for the per-flow throughput of any run

Neither changes the run: they only read the frames and the port's clock.

The utilisation rule (``utilisation``): a port's window runs from the first to the last arrival
of its frames at the far end of its link (each frame's end on the wire plus the link's latency),
and its utilisation is the line time of the frames that arrived after the first over that window
(n arrivals bound n - 1 gaps), in wire bytes (the frame with the link's Ethernet overhead, so a
port sending back to back reads 1.0 at any frame size); pause frames are left out. The window of
a port that sent fewer than two frames is empty, and its utilisation unknown (None).
"""
from __future__ import annotations

from struct import Struct
from typing import Any

#: a port's facts, in this order: data frames, their first and last arrival at the far end (ns),
#: the first one's line time and all of theirs (ns, exact: bits / rate); and when any frame,
#: pause frames too, first started (ns) and last arrived (ns; both None when none was sent)
LINE_FIELDS = ("frames", "first_arrival_ns", "last_arrival_ns", "first_busy_ns", "busy_ns", "active_from_ns",
               "active_to_ns")
_MAC_CONTROL = b"\x88\x08"          # PAUSE and PFC frames: flow control, not data
_VLAN_TAGS = (b"\x81\x00", b"\x88\xa8")
_PORTS = Struct("!HH")
#: the flows' first bin width, and how many bins their span may cover before the width doubles
FIRST_BIN_NS = 1_000
FLOW_BINS = 100
PROTOCOLS = {1: "ICMP", 6: "TCP", 17: "UDP"}


class PortLine:
    """Put in front of ``port.capture`` (``write(now, data)`` for every frame the port starts
    sending, after the port set ``free_at`` to the frame's end): counts the port's data frames."""

    __slots__ = ("port", "inner", "frames", "first_arrival_ns", "last_arrival_ns", "first_busy_ns", "busy_ns",
                 "active_from_ns", "active_to_ns", "_extra", "_least", "_rate", "_latency")

    def __init__(self, port: Any) -> None:
        self.port = port
        self.inner = port.capture        # a PcapWriter (``run --out``), or None
        self.frames = self.first_arrival_ns = self.last_arrival_ns = 0
        self.first_busy_ns = self.busy_ns = 0.0
        self.active_from_ns: int | None = None
        self.active_to_ns: int | None = None
        # A link's rate, latency and overhead are fixed once built; a port without one never sends.
        link = port.link
        if link is not None:
            self._extra, self._least, self._rate, self._latency = (link.wire_extra, link.wire_min, link.rate_bps,
                                                                   link.latency_ns)
        port.capture = self

    def write(self, now: int, data: bytes) -> None:
        if self.inner is not None:
            self.inner.write(now, data)
        arrival = self.port.free_at + self._latency
        if self.active_from_ns is None:
            self.active_from_ns = now
        self.active_to_ns = arrival
        if data[12:14] == _MAC_CONTROL:
            return
        wire = len(data) + self._extra               # Link.wire_bytes
        busy = (wire if wire > self._least else self._least) * 8e9 / self._rate
        if not self.frames:
            self.first_arrival_ns, self.first_busy_ns = arrival, busy
        self.frames += 1
        self.busy_ns += busy
        self.last_arrival_ns = arrival

    def adopt(self) -> None:
        """Back in front of the port's capture if the run's own setup put another there (a
        scenario's tap or pcap writer), chained to it."""
        if self.port.capture is not self:
            self.inner = self.port.capture
            self.port.capture = self

    def close(self) -> tuple:
        """Hand the capture hook back; the port's facts (``LINE_FIELDS``)."""
        from dataplane.errors import InternalError

        if self.port.capture is not self:
            # Something replaced the hook after the run started: the counts miss its frames.
            raise InternalError(f"{self.port.name}: its capture was replaced while the report recorded it")
        self.port.capture = self.inner
        return (self.frames, self.first_arrival_ns, self.last_arrival_ns, self.first_busy_ns, self.busy_ns,
                self.active_from_ns, self.active_to_ns)


def utilisation(facts: tuple | None) -> tuple[list[int] | None, float | None]:
    """A port's window (first and last arrival, ns) and its utilisation over it, by the module's
    rule; (None, None) for a port that sent fewer than two frames."""
    if facts is None:
        return None, None
    frames, first, last, first_busy, busy = facts[:5]
    if frames < 2 or last <= first:
        return None, None
    return [first, last], round((busy - first_busy) / (last - first), 4)


def flow_key(frame: bytes) -> tuple | None:
    """(source IP, destination IP, protocol, source port, destination port) of an IPv4 frame (the
    ports None but for the first fragment of TCP and UDP); None for anything else."""
    off = 12
    ethertype = frame[off:off + 2]
    while ethertype in _VLAN_TAGS:
        off += 4
        ethertype = frame[off:off + 2]
    ip = off + 2
    if ethertype != b"\x08\x00" or len(frame) < ip + 20:
        return None
    ihl = (frame[ip] & 0x0F) * 4
    proto = frame[ip + 9]
    src, dst = int.from_bytes(frame[ip + 12:ip + 16], "big"), int.from_bytes(frame[ip + 16:ip + 20], "big")
    if proto in (6, 17) and not (int.from_bytes(frame[ip + 6:ip + 8], "big") & 0x1FFF) and len(frame) >= ip + ihl + 4:
        sport, dport = _PORTS.unpack_from(frame, ip + ihl)
        return src, dst, proto, sport, dport
    return src, dst, proto, None, None


class Arrivals:
    """Frames arriving at hosts, by flow (``flow_key``): bytes per time bin of ``bin_ns``. Bins
    are aligned to t = 0 and the width doubles (1 us, 2 us, ...) whenever the bins in use would
    span ``FLOW_BINS`` or more, so the width depends only on the first and last arrival: parts
    kept on several ranks merge into what one process keeps (``merge``)."""

    def __init__(self, hosts: list[Any]) -> None:
        self.bin_ns = FIRST_BIN_NS
        self.flows: dict[tuple, dict[int, int]] = {}
        self.lo: int | None = None        # the first and last bin in use (at ``bin_ns``)
        self.hi = 0
        self.stopped = False
        for host in hosts:
            on_receive = getattr(host, "on_receive", None)
            if on_receive is not None:
                on_receive(self.frame)

    def frame(self, data: bytes, now: int) -> bool:
        """``Host.on_receive``'s callback: count the frame; never takes it from the stack."""
        if self.stopped:
            return False
        key = flow_key(data)
        if key is None:
            return False
        k = now // self.bin_ns
        if self.lo is None:
            self.lo = self.hi = k
        elif k < self.lo or k > self.hi:
            self.lo, self.hi = min(self.lo, k), max(self.hi, k)
            if self.hi - self.lo >= FLOW_BINS:
                k = now // self._widen()
        bins = self.flows.get(key)
        if bins is None:
            bins = self.flows[key] = {}
        bins[k] = bins.get(k, 0) + len(data)
        return False

    def _widen(self) -> int:
        """Double the width (re-binning what is kept) until the bins in use span fewer than
        ``FLOW_BINS``; the new width."""
        assert self.lo is not None
        while self.hi - self.lo >= FLOW_BINS:
            self.bin_ns *= 2
            self.lo, self.hi = self.lo // 2, self.hi // 2
            for key, bins in self.flows.items():
                wide: dict[int, int] = {}
                for k, n in bins.items():
                    wide[k // 2] = wide.get(k // 2, 0) + n
                self.flows[key] = wide
        return self.bin_ns

    def part(self) -> dict[str, Any]:
        """What this rank kept, for ``merge`` on rank 0."""
        return {"bin_ns": self.bin_ns, "lo": self.lo, "hi": self.hi, "flows": self.flows}

    def merge(self, parts: list[dict[str, Any]]) -> None:
        """Every rank's ``part``: the flows at the width one process would have reached."""
        parts = [p for p in parts if p["lo"] is not None]
        self.flows, self.lo, self.hi, self.bin_ns = {}, None, 0, FIRST_BIN_NS
        if not parts:
            return
        width = max(p["bin_ns"] for p in parts)
        self.bin_ns = width
        self.lo = min(p["lo"] // (width // p["bin_ns"]) for p in parts)
        self.hi = max(p["hi"] // (width // p["bin_ns"]) for p in parts)
        width = self._widen()
        for p in parts:
            scale = width // p["bin_ns"]
            for key, bins in p["flows"].items():
                mine = self.flows.setdefault(key, {})
                for k, n in bins.items():
                    mine[k // scale] = mine.get(k // scale, 0) + n

    def series(self, names: dict[int, str]) -> dict[str, list[tuple[int, float]]]:
        """Per flow, named with the hosts' names for their IPs (``names``): (end of each bin, ns;
        Gb/s of frames arriving in it), from its first bin to its last, empty bins as 0."""
        out = {}
        width = self.bin_ns
        for key, bins in self.flows.items():
            first, last = min(bins), max(bins)
            out[flow_name(key, names)] = [((k + 1) * width, bins.get(k, 0) * 8 / width) for k in range(first, last + 1)]
        return out


def flow_name(key: tuple, names: dict[int, str]) -> str:
    """``h5 → h1 UDP 49152→4791``: a flow by its hosts (else dotted IPs), protocol and ports."""
    src, dst, proto, sport, dport = key
    ends = f"{_host(src, names)} → {_host(dst, names)} {PROTOCOLS.get(proto, f'IP proto {proto}')}"
    return ends if sport is None else f"{ends} {sport}→{dport}"


def _host(ip: int, names: dict[int, str]) -> str:
    return names.get(ip) or ".".join(str((ip >> s) & 0xFF) for s in (24, 16, 8, 0))
