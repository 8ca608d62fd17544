"""Built-in host apps: ping, constant-bit-rate UDP with a measuring sink, incast, and a windowed
reliable bulk transfer that congestion-control schemes can extend.

Each app schedules itself when constructed (nothing to call afterwards) and keeps a ``stats``
dict. Apps read the clock only through the simulator and draw randomness only from
``sim.rng``, so a run repeats exactly for the same seed.

UdpFlow payloads are ``seq:u64 send_time_ns:u64`` (big-endian) then zero padding to
``size_bytes``. BulkTransfer/BulkReceiver live in ``dataplane.net.apps.bulk`` and are re-exported here.
"""
from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass, field

from dataplane.net.apps.bulk import BulkReceiver, BulkTransfer
from dataplane.net.hosts import packets as pk
from dataplane.net.hosts.host import Host, _ip

__all__ = ["Ping", "UdpFlow", "UdpSink", "FlowRecord", "BulkTransfer", "BulkReceiver", "Incast", "incast"]

_FLOW_HDR = struct.Struct("!QQ")


class Ping:
    """``ping -c count -i interval -s size``: echo requests from ``host`` to ``dst_ip``.

    RTTs are in ns from the app sending the request to the reply's arrival (so the first one
    includes ARP resolution, as with real ping). ``lost`` is requests without a reply so far.
    """

    def __init__(self, host: Host, dst_ip: int | str, count: int = 4, interval_ns: int = 1_000_000,
                 start_ns: int = 0, size: int = 56, tos: int = 0):
        self.host, self.sim = host, host.sim
        self.dst_ip = _ip(dst_ip)
        self.count, self.interval_ns, self.size, self.tos = count, interval_ns, size, tos
        self.rtts: list[int] = []
        self.sent_at: dict[int, int] = {}
        self.stats = {"sent": 0, "received": 0, "lost": 0, "duplicates": 0}
        self.ident = host.bind_echo(self._on_reply)
        self._seq = 0
        self.sim.at(start_ns, self._send)

    def _send(self) -> None:
        seq = self._seq
        self._seq += 1
        now = self.sim.now
        self.sent_at[seq & 0xFFFF] = now
        self.host.send_echo_request(self.dst_ip, self.ident, seq, echo_payload(now, self.size), self.tos)
        self.stats["sent"] += 1
        self.stats["lost"] = self.stats["sent"] - self.stats["received"]
        if self._seq < self.count:
            self.sim.schedule(self.interval_ns, self._send)

    def _on_reply(self, src_ip: int, ident: int, seq: int, payload: bytes, time_ns: int) -> None:
        sent = self.sent_at.pop(seq, None)
        if sent is None or src_ip != self.dst_ip:
            self.stats["duplicates"] += 1
            return
        self.rtts.append(time_ns - sent)
        self.stats["received"] += 1
        self.stats["lost"] = self.stats["sent"] - self.stats["received"]

    @property
    def done(self) -> bool:
        return self.stats["sent"] == self.count and not self.sent_at

    def summary(self) -> dict:
        r = self.rtts
        return {**self.stats, "rtt_min_ns": min(r, default=None), "rtt_max_ns": max(r, default=None),
                "rtt_avg_ns": (sum(r) / len(r)) if r else None}


def echo_payload(now_ns: int, size: int = 56) -> bytes:
    """An echo request's data as Linux ping sends it: a timestamp first (when it fits), then a byte pattern."""
    body = bytes(i & 0xFF for i in range(size))
    if size >= 8:
        body = now_ns.to_bytes(8, "big") + body[8:]
    return body


class UdpFlow:
    """Constant-bit-rate UDP: ``size_bytes`` of UDP payload every ``size_bytes*8/rate_bps`` seconds.

    ``rate_bps`` counts UDP payload (as ``iperf -u -b`` does), not headers. The flow stops after
    ``duration_ns``, after ``total_bytes`` (rounded up to whole packets), or never if neither is
    given. Send times are computed from the packet index, so rounding never drifts the rate.
    """

    def __init__(self, src_host: Host, dst_ip: int | str, rate_bps: int, size_bytes: int = 1000,
                 start_ns: int = 0, duration_ns: int | None = None, dst_port: int = 5001,
                 src_port: int | None = None, tos: int = 0, total_bytes: int | None = None):
        if size_bytes < _FLOW_HDR.size:
            raise ValueError(f"UdpFlow size_bytes must be at least {_FLOW_HDR.size} (sequence + timestamp)")
        if rate_bps <= 0:
            raise ValueError("UdpFlow rate_bps must be positive")
        self.host, self.sim = src_host, src_host.sim
        self.dst_ip = _ip(dst_ip)
        self.rate_bps, self.size = rate_bps, size_bytes
        self.start_ns, self.duration_ns = start_ns, duration_ns
        self.dst_port, self.tos = dst_port, tos
        self.src_port = src_host.ephemeral_port() if src_port is None else src_port
        self.max_packets = None if total_bytes is None else -(-total_bytes // size_bytes)
        self._pad = bytes(size_bytes - _FLOW_HDR.size)
        self._bits_ns = size_bytes * 8 * 1_000_000_000   # numerator of the inter-packet gap
        self._k = 0
        self.stats = {"sent": 0, "bytes": 0, "send_failures": 0, "first_ns": None, "last_ns": None}
        self.sim.at(start_ns, self._send)

    @property
    def key(self) -> tuple[int, int]:
        """How a UdpSink names this flow: (source IP, source port)."""
        return (self.host.ip, self.src_port)

    def _send(self) -> None:
        now = self.sim.now
        if self.duration_ns is not None and now >= self.start_ns + self.duration_ns:
            return
        ok = self.host.send_udp(self.dst_ip, self.src_port, self.dst_port,
                                _FLOW_HDR.pack(self._k, now) + self._pad, self.tos)
        st = self.stats
        if ok:
            st["sent"] += 1
            st["bytes"] += self.size
        else:
            st["send_failures"] += 1
        if st["first_ns"] is None:
            st["first_ns"] = now
        st["last_ns"] = now
        self._k += 1
        if self.max_packets is None or self._k < self.max_packets:
            self.sim.at(self.start_ns + self._k * self._bits_ns // self.rate_bps, self._send)


@dataclass(eq=False)
class FlowRecord:
    """What a UdpSink saw of one flow."""
    packets: int = 0
    bytes: int = 0
    first_bytes: int = 0
    first_ns: int = 0
    last_ns: int = 0
    max_seq: int = -1
    ce_marked: int = 0
    delays: array = field(default_factory=lambda: array("q"))    # one-way delay per packet, ns
    bins: dict[int, int] = field(default_factory=dict)             # bin index -> payload bytes

    def rate_bps(self) -> float:
        """Payload bit rate between the first and last arrival; the first packet only opens the
        interval, so its bytes are not counted (n arrivals bound n-1 gaps)."""
        span = self.last_ns - self.first_ns
        return (self.bytes - self.first_bytes) * 8e9 / span if span > 0 else 0.0

    @property
    def lost(self) -> int:
        """Sequence numbers below the highest seen that never arrived (reordering counts until it lands)."""
        return self.max_seq + 1 - self.packets


class UdpSink:
    """Receives UdpFlow traffic on ``port``: per-flow packets, bytes, one-way delays, CE marks
    and a throughput time series in ``bin_ns`` bins. Flows are keyed (source IP, source port)."""

    def __init__(self, host: Host, port: int = 5001, bin_ns: int = 100_000):
        self.host, self.port, self.bin_ns = host, port, bin_ns
        self.flows: dict[tuple[int, int], FlowRecord] = {}
        self.stats = {"received": 0, "bytes": 0, "flows": 0, "ce_marked": 0, "last_ns": None}
        host.bind_udp(port, self._on_packet)

    def _on_packet(self, src_ip: int, src_port: int, payload: bytes, tos: int, time_ns: int) -> None:
        key = (src_ip, src_port)
        rec = self.flows.get(key)
        if rec is None:
            rec = self.flows[key] = FlowRecord(first_ns=time_ns, first_bytes=len(payload))
            self.stats["flows"] += 1
        n = len(payload)
        rec.packets += 1
        rec.bytes += n
        rec.last_ns = time_ns
        b = time_ns // self.bin_ns
        rec.bins[b] = rec.bins.get(b, 0) + n
        if tos & 3 == pk.ECN_CE:
            rec.ce_marked += 1
            self.stats["ce_marked"] += 1
        if n >= _FLOW_HDR.size:
            seq, sent = _FLOW_HDR.unpack_from(payload)
            rec.delays.append(time_ns - sent)
            if seq > rec.max_seq:
                rec.max_seq = seq
        st = self.stats
        st["received"] += 1
        st["bytes"] += n
        st["last_ns"] = time_ns

    def throughput_series(self, key: tuple[int, int] | None = None) -> list[tuple[int, float]]:
        """(bin start ns, payload bits/s) for one flow or all together, with empty bins as 0."""
        recs = [self.flows[key]] if key is not None else list(self.flows.values())
        return binned_throughput(recs, self.bin_ns)


def binned_throughput(records, bin_ns: int) -> list[tuple[int, float]]:
    """Sum the per-bin byte counts (``rec.bins``: bin index -> bytes) of ``records`` into
    (bin start ns, bits/s), empty bins between the first and last as 0."""
    total: dict[int, int] = {}
    for rec in records:
        for b, n in rec.bins.items():
            total[b] = total.get(b, 0) + n
    if not total:
        return []
    scale = 8e9 / bin_ns
    return [(b * bin_ns, total.get(b, 0) * scale) for b in range(min(total), max(total) + 1)]


class Incast:
    """N senders to one receiver, started together (``incast()`` builds it)."""

    def __init__(self, flows: list, sink: UdpSink | BulkReceiver, bytes_per_sender: int, start_ns: int):
        self.flows, self.sink = flows, sink
        self.bytes_per_sender, self.start_ns = bytes_per_sender, start_ns

    @property
    def stats(self) -> dict:
        """Totals; ``completion_ns`` is from the start to the last byte (UDP: last arrival once
        everything sent arrived; bulk: the slowest flow's completion), None until then."""
        sent = sum(f.stats["sent"] for f in self.flows)
        s = {"senders": len(self.flows), "sent": sent, "received": self.sink.stats["received"],
             "bytes_received": self.sink.stats["bytes"], "completion_ns": None}
        if isinstance(self.sink, UdpSink):
            if s["bytes_received"] >= self.bytes_per_sender * len(self.flows) and self.sink.stats["last_ns"] is not None:
                s["completion_ns"] = self.sink.stats["last_ns"] - self.start_ns
        elif all(f.done for f in self.flows):
            s["completion_ns"] = max(f.stats["fct_ns"] + f.start_ns for f in self.flows) - self.start_ns
        return s


def incast(senders: list[Host], receiver: Host, bytes_per_sender: int, start_ns: int = 0, *,
           transport: str = "udp", dst_port: int = 5001, size_bytes: int = 1000, rate_bps: int | None = None,
           window_packets: float = 16, rto_ns: int = 1_000_000, tos: int = 0, jitter_ns: int = 0) -> Incast:
    """Every sender sends ``bytes_per_sender`` to ``receiver`` at once.

    ``transport="udp"``: UdpFlows of ``size_bytes`` payloads at ``rate_bps`` (default: each
    sender's line rate, headers included, i.e. a back-to-back burst) into one UdpSink.
    ``transport="bulk"``: BulkTransfers (mss ``size_bytes``) into one BulkReceiver, so loss
    costs retransmission timeouts, the classic incast goodput collapse.
    ``jitter_ns`` spreads the starts uniformly in [0, jitter_ns] using ``sim.rng``.
    """
    if not senders:
        raise ValueError("incast needs at least one sender")
    sim = receiver.sim
    if transport == "udp":
        sink: UdpSink | BulkReceiver = UdpSink(receiver, dst_port)
    elif transport == "bulk":
        sink = BulkReceiver(receiver, dst_port)
    else:
        raise ValueError(f"unknown incast transport {transport!r} (use 'udp' or 'bulk')")
    flows = []
    for h in senders:
        t = start_ns + (sim.rng.randint(0, jitter_ns) if jitter_ns else 0)
        if transport == "udp":
            rate = rate_bps
            if rate is None:
                port = h.port
                if port is None or port.link is None:
                    raise ValueError(f"incast sender {h.name} is not connected; give rate_bps")
                # Payload rate that fills the line once Ethernet/IP/UDP headers and the link's
                # wire overhead (preamble, FCS, gap) are added.
                rate = port.link.rate_bps * size_bytes // port.link.wire_bytes(pk.udp_frame_len(size_bytes))
            flows.append(UdpFlow(h, receiver.ip, rate, size_bytes, t, dst_port=dst_port, tos=tos,
                                 total_bytes=bytes_per_sender))
        else:
            flows.append(BulkTransfer(h, receiver.ip, bytes_per_sender, window_packets, size_bytes, t,
                                      dst_port=dst_port, rto_ns=rto_ns, tos=tos))
    return Incast(flows, sink, bytes_per_sender, start_ns)
