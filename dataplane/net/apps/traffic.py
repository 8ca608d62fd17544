"""Traffic for ``dataplane run``: built-in patterns by name, or a YAML list of apps.

A traffic file is a list of apps::

    - {app: ping, from: h1, to: h2, count: 5, interval: 100us}
    - {app: udp, from: h1, to: h3, rate: 1Gbps, size: 1000, start: 0, duration: 1ms}
    - {app: incast, senders: [h1, h2, h3], to: h4, bytes: 64KB}
    - {app: bulk, from: h1, to: h2, bytes: 1MB, window: 16}

Every app takes ``dscp`` (0..63, default 0): the DSCP its IPv4 packets carry (ECN bits 0),
which picks their traffic class on switches that map it and on hosts with ``queues:``
(``dataplane.net.hosts.host_classes``: priority = DSCP >> 3, so ``dscp: 24`` is priority 3).
Built-in patterns: ``pingall`` (every host pings every other, one ping at a time as Mininet's
pingall, ``dataplane.net.apps.pingall``), ``pingall-parallel`` (the same pings all started at
once, 1 us apart), ``incast`` (every host but the last sends to the last), ``all-to-all`` (a CBR
flow between every ordered pair). ``{app: pingall, timeout: 1s}`` in a file is the first with
another wait for each reply.
Per-host results, in packets: ``sent`` counts what the host's apps sent as a source (ping
requests, UDP and bulk packets), ``delivered`` how many of those reached their destination (for a
ping: a reply came back), ``lost`` the rest; ``received`` counts the IP packets that arrived at the
host itself, whoever sent them (an incast's receiver, ping requests and replies).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from dataplane.control.config_errors import ConfigError, read_text_file
from dataplane.errors import shown
from dataplane.natural_order import natural_key, natural_sorted
from dataplane.net.apps.basic import BulkReceiver, BulkTransfer, Ping, UdpFlow, UdpSink, incast
from dataplane.net.apps.pingall import PINGALL_TIMEOUT_NS, PingAll, format_pingall
from dataplane.net.core.units import MAX_QUANTITY, UnitError, parse_queue, parse_rate, parse_time
from dataplane.net.topology.reader import load_yaml_text

PATTERNS = ("pingall", "pingall-parallel", "incast", "all-to-all")


class Traffic:
    """The apps of one run and how to report them per host."""

    def __init__(self, net: Any):
        self.net = net
        self.pings: list[tuple[str, Ping]] = []
        self.flows: list[tuple[str, UdpFlow, UdpSink, str]] = []
        self.bulks: list[tuple[str, BulkTransfer]] = []
        self.incasts: list[tuple[list[str], Any]] = []
        self.pingall: PingAll | None = None                  # the sequential pingall, if any
        self._pingall_pairs: list[tuple[str, str, Ping]] = []   # pingall-parallel's pings
        self._sinks: dict[tuple[str, int], UdpSink] = {}
        self._next_port = 6000

    # ---- adding apps ---------------------------------------------------------------------------
    def ping(self, src: str, dst: str, count: int = 3, interval_ns: int = 100_000, start_ns: int = 0,
             dscp: int = 0) -> Ping:
        p = Ping(self.net.host(src), self.net.host(dst).ip, count=count, interval_ns=interval_ns, start_ns=start_ns,
                 tos=dscp << 2)
        self.pings.append((src, p))
        return p

    def udp(self, src: str, dst: str, rate_bps: int, size: int = 1000, start_ns: int = 0,
            duration_ns: int = 1_000_000, dscp: int = 0) -> UdpFlow:
        port = self._port()
        sink = UdpSink(self.net.host(dst), port)
        flow = UdpFlow(self.net.host(src), self.net.host(dst).ip, rate_bps, size_bytes=size, start_ns=start_ns,
                       duration_ns=duration_ns, dst_port=port, tos=dscp << 2)
        self.flows.append((src, flow, sink, f"{src}->{dst}"))
        return flow

    def bulk(self, src: str, dst: str, nbytes: int, window: int = 16, start_ns: int = 0,
             dscp: int = 0) -> BulkTransfer:
        port = self._port()
        BulkReceiver(self.net.host(dst), port)
        b = BulkTransfer(self.net.host(src), self.net.host(dst).ip, nbytes, window_packets=window,
                         start_ns=start_ns, dst_port=port, tos=dscp << 2)
        self.bulks.append((src, b))
        return b

    def incast(self, senders: list[str], dst: str, nbytes: int, start_ns: int = 0, dscp: int = 0) -> Any:
        inc = incast([self.net.host(s) for s in senders], self.net.host(dst), nbytes, start_ns,
                     dst_port=self._port(), tos=dscp << 2)
        self.incasts.append((senders, inc))
        return inc

    def pingall_sequential(self, timeout_ns: int = PINGALL_TIMEOUT_NS, start_ns: int = 0, dscp: int = 0) -> PingAll:
        """Mininet's pingall: every host pings every other, one at a time (``PingAll``)."""
        if self.pingall is not None or self._pingall_pairs:
            raise ValueError("one pingall a run")
        self.pingall = PingAll([self.net.host(h) for h in sorted(self.net.hosts, key=natural_key)],
                               timeout_ns=timeout_ns, start_ns=start_ns, tos=dscp << 2)
        return self.pingall

    def pingall_lines(self) -> list[str]:
        """Mininet's pingall report (rows of reached hosts, X for not, and the totals), or [] without one."""
        hosts = natural_sorted(self.net.hosts)
        if self.pingall is not None:
            return format_pingall(self.pingall.results, hosts, len(self.pingall.pairs))
        if self._pingall_pairs:
            results = [(a, b, p.stats["received"] > 0) for a, b, p in self._pingall_pairs if p.stats["sent"]]
            return format_pingall(results, hosts, len(self._pingall_pairs))
        return []

    def pingall_json(self) -> dict[str, Any] | None:
        """``--json``'s "pingall": source -> destination -> answered, and the counts."""
        if self.pingall is not None:
            results, total = self.pingall.results, len(self.pingall.pairs)
        elif self._pingall_pairs:
            results = [(a, b, p.stats["received"] > 0) for a, b, p in self._pingall_pairs if p.stats["sent"]]
            total = len(self._pingall_pairs)
        else:
            return None
        reached: dict[str, dict[str, bool]] = {}
        for a, b, ok in results:
            reached.setdefault(a, {})[b] = ok
        return {"sequential": self.pingall is not None, "reached": reached, "sent": len(results),
                "received": sum(ok for _, _, ok in results), "pings": total}

    def _port(self) -> int:
        self._next_port += 1
        return self._next_port

    # ---- patterns and files ------------------------------------------------------------------------
    def pattern(self, name: str, duration_ns: int) -> None:
        hosts = sorted(self.net.hosts, key=natural_key)
        if name == "pingall":
            self.pingall_sequential()
        elif name == "pingall-parallel":
            for i, a in enumerate(hosts):
                for j, b in enumerate(hosts):
                    if a != b:
                        p = self.ping(a, b, count=1, start_ns=(i * len(hosts) + j) * 1000)
                        self._pingall_pairs.append((a, b, p))
        elif name == "incast":
            if len(hosts) < 2:
                raise ConfigError("the incast pattern needs at least two hosts", "<traffic>", 0)
            self.incast(hosts[:-1], hosts[-1], 64_000)
        elif name == "all-to-all":
            for a in hosts:
                for b in hosts:
                    if a != b:
                        self.udp(a, b, rate_bps=100_000_000, size=1000, duration_ns=max(duration_ns // 2, 1000))
        else:
            raise ConfigError(f"unknown traffic pattern '{name}' (built-in: {', '.join(PATTERNS)})", "<traffic>", 0)

    def load(self, path: Path) -> None:
        text = read_text_file(path, "traffic file")
        items = load_yaml_text(text, str(path), "cannot read traffic file")
        if not isinstance(items, list):
            raise ConfigError("a traffic file is a list of apps", str(path), 1)
        lines = _entry_lines(text)
        for i, item in enumerate(items, 1):
            line = lines[i - 1] if i <= len(lines) else 0
            try:
                _check_keys(item)
                self._add(item)
            except (KeyError, TypeError) as err:
                raise ConfigError(f"traffic entry {i}: missing or bad field {err}", str(path), line) from None
            except UnitError as err:
                raise ConfigError(f"traffic entry {i}: {err}", str(path), line) from None
            except Exception as err:
                if isinstance(err, ConfigError):
                    raise ConfigError(f"traffic entry {i}: {err.message}", str(path), line) from None
                raise ConfigError(f"traffic entry {i}: {err}", str(path), line) from None

    def _add(self, item: dict) -> None:
        app = item["app"]
        start = parse_time(item.get("start", 0))
        dscp = item.get("dscp", 0)
        if isinstance(dscp, bool) or not isinstance(dscp, int) or not 0 <= dscp <= 63:
            raise ValueError(f"dscp must be a whole number 0..63, got {dscp!r}")
        if app == "ping":
            self.ping(item["from"], item["to"], _whole(item, "count", 3, 1, MAX_QUANTITY),
                      parse_time(item.get("interval", "100us")), start, dscp)
        elif app == "udp":
            self.udp(item["from"], item["to"], parse_rate(item.get("rate", "1Gbps")),
                     _whole(item, "size", 1000, UDP_MIN_PAYLOAD, UDP_MAX_PAYLOAD),
                     start, parse_time(item.get("duration", "1ms")), dscp)
        elif app == "bulk":
            self.bulk(item["from"], item["to"], parse_queue(item.get("bytes", "1MB"))[0],
                      _whole(item, "window", 16, 1, MAX_QUANTITY), start, dscp)
        elif app == "incast":
            self.incast(list(item["senders"]), item["to"], parse_queue(item.get("bytes", "64KB"))[0], start, dscp)
        elif app == "pingall":
            timeout = parse_time(item.get("timeout", "1s"))
            if timeout <= 0:
                raise ValueError("timeout must be above 0")
            self.pingall_sequential(timeout, start, dscp)
        else:
            raise ConfigError(f"unknown app '{app}' (use ping, udp, bulk, incast, pingall)", "<traffic>", 0)

    # ---- results ------------------------------------------------------------------------------------
    def apps(self) -> list[Any]:
        """Every app object, in the order they were added (the same on every MPI rank)."""
        out: list[Any] = [p for _, p in self.pings]
        for _, flow, sink, _ in self.flows:
            out += [flow, sink]
        out += [b for _, b in self.bulks]
        for _, inc in self.incasts:
            out += [*inc.flows, inc.sink]
        return out

    def host_results(self) -> dict[str, dict[str, int]]:
        out = {name: {"sent": 0, "delivered": 0, "lost": 0, "received": self._received(host)}
               for name, host in natural_sorted(self.net.hosts.items())}
        for src, p in self.pings:
            self._count(out, src, p.stats["sent"], p.stats["received"])
        if self.pingall is not None:
            for src, st in self.pingall.stats.items():
                self._count(out, src, st["sent"], st["received"])
        for src, flow, sink, _ in self.flows:
            got = sum(f.packets for f in sink.flows.values())
            self._count(out, src, flow.stats["sent"], got)
        for src, b in self.bulks:
            self._count(out, src, b.stats["sent"], b.stats["sent"] - b.stats.get("retransmits", 0))
        for senders, inc in self.incasts:
            for s, flow in zip(senders, inc.flows):
                sent = flow.stats["sent"]
                got = sent - flow.stats.get("retransmits", 0) if "retransmits" in flow.stats else None
                if got is None:
                    src_ip = self.net.host(s).ip
                    got = sum(f.packets for k, f in inc.sink.flows.items() if k[0] == src_ip) if inc.sink else 0
                self._count(out, s, sent, got)
        return out

    @staticmethod
    def _count(out: dict, host: str, sent: int, delivered: int) -> None:
        out[host]["sent"] += sent
        out[host]["delivered"] += delivered
        out[host]["lost"] += max(sent - delivered, 0)

    @staticmethod
    def _received(host: Any) -> int:
        """IP packets accepted by the host (its stack's count; a host without one: frames on its ports)."""
        stats = getattr(host, "stats", None)
        if stats is not None and hasattr(stats, "received"):
            return stats["received"]
        return sum(p.stats.rx_packets for p in getattr(host, "ports", {}).values())

    def throughput_series(self) -> dict[str, list[tuple[int, float]]]:
        """(time ns, Gb/s) per UDP flow, averaged over windows of at least ``PACKETS_PER_POINT``
        packet intervals: a bin shorter than that holds one packet or two by chance and plots as a
        sawtooth around the flow's rate."""
        series = {}
        for _, flow, sink, name in self.flows:
            interval_ns = flow.size * 8e9 / max(flow.rate_bps, 1)
            k = max(1, -(-int(PACKETS_PER_POINT * interval_ns) // sink.bin_ns))
            series[name] = [(t, bps / 1e9) for t, bps in rebin(sink.throughput_series(), k)]
        return series


PACKETS_PER_POINT = 10

# The fields each app reads; anything else is a typo (``tos:``, ``duraton:``) that would
# otherwise be dropped without a word and leave the run doing something else.
APP_FIELDS = {
    "ping": {"from", "to", "count", "interval"},
    "udp": {"from", "to", "rate", "size", "duration"},
    "bulk": {"from", "to", "bytes", "window"},
    "incast": {"senders", "to", "bytes"},
    "pingall": {"timeout"},
}
COMMON_FIELDS = {"app", "start", "dscp"}


# A UDP flow's payload starts with its sequence number and send time (16 bytes) and fits in
# one IPv4 datagram: 65535 bytes less the IPv4 (20) and UDP (8) headers.
UDP_MIN_PAYLOAD, UDP_MAX_PAYLOAD = 16, 65507


def _whole(item: dict, key: str, default: int, low: int, high: int) -> int:
    """``item[key]`` (``default`` if absent): a whole number ``low``..``high``."""
    value = item.get(key, default)
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 20:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{key} must be a whole number {low}..{high}, got {shown(value)}")
    return value


def _check_keys(item: Any) -> None:
    if not isinstance(item, dict):
        raise ValueError(f"an app is a mapping such as {{app: ping, from: h1, to: h2}}, got {item!r}")
    fields = APP_FIELDS.get(item.get("app"))
    if fields is None:
        return  # _add names the unknown app
    unknown = sorted(str(k) for k in item if k not in fields | COMMON_FIELDS)
    if unknown:
        allowed = ", ".join(sorted(fields | COMMON_FIELDS))
        raise ValueError(f"unknown field {', '.join(unknown)} for app {item['app']} (fields: {allowed})")


def _entry_lines(text: str) -> list[int]:
    """The 1-based line where each top-level entry starts, for located errors."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return []
    if not isinstance(root, yaml.SequenceNode):
        return []
    return [node.start_mark.line + 1 for node in root.value]


def rebin(points: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    """Merge each ``k`` consecutive equal-width bins of (bin start, rate) into one at their mean;
    a shorter last group is dropped when there is a full one (it would read low or high by chance)."""
    if k <= 1:
        return list(points)
    groups = [points[i:i + k] for i in range(0, len(points), k)]
    if len(groups) > 1 and len(groups[-1]) < k:
        groups.pop()
    return [(g[0][0], sum(v for _, v in g) / len(g)) for g in groups]
