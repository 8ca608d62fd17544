"""``dataplane scenario pfc-deadlock``: a PFC deadlock on a cyclic buffer dependency, and the
PFC watchdog breaking it.

The fabric: ``--switches`` (3) switches in a ring, s_i port 2 linked to s_(i+1) port 3, host
h_i on port 1 of s_i; every link ``--bandwidth`` (10 Gb/s), ``--latency`` (1 us), byte buffers
of ``--buffer`` per queue. Every switch runs ``programs/tclass_router.p4`` with 4 traffic
classes per port (DWRR, equal weights) and PFC on priority 3 (XOFF/XON ``--xoff``/``--xon``
per ingress port and priority). Routes go clockwise only, so host h_i reaches h_(i+2) through
s_(i+1): every ring port's queue waits on the next switch's ring queue, and the ring of them
is a cyclic buffer dependency (Hu et al., "Deadlocks in Datacenter Networks: Why Do They Form,
and How to Avoid Them", HotNets 2016, show this shape on a ring of switches).

Traffic: each host sends ``--bytes`` of UDP (1000-byte payloads, IP precedence 3: the lossless
class) to the host two switches on, at line rate, all at t = 0. Each ring link carries two
flows (one entering, one passing through), so the ring queues fill, each switch pauses its
upstream ring port, and once every ring port is paused by the next with its queue held above
XON by the queue it waits on, nothing moves again: the pauses refresh for ever.

Probes then test whether the fabric works again: from half of ``--duration``, for a tenth of
it, each host sends 1 Gb/s in the same class to its neighbour's host (one ring hop; the ring
links then carry 2 Gb/s, far below their rate, so the probes alone cannot congest them).

Modes, the same fabric and traffic:

* ``off``: no watchdog: the deadlock forms and lasts to the end of ``--duration``;
* ``watchdog``: each switch runs a PFC watchdog (``dataplane.net.devices.pfc_watchdog``,
  action ``--action``, detection ``--detection``, restoration ``--restoration``; SONiC's
  defaults are 200 ms each, scaled down here to fit a short run): it finds the paused,
  stalled ring queues, stops honouring their pause (and with ``drop`` discards what they
  hold), the ring drains, and later restores them.

Reported per mode: bytes sent and delivered, ``deadlocked`` (ring ports that were paused,
held packets and sent nothing over the last quarter of the run), the probe bytes sent and
delivered, when the last byte was delivered, the watchdog's storms, restorations and drops,
pause frames sent and tail drops.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from dataplane import progress
from dataplane.cli.options import Duration, OutputDir
from dataplane.net.apps.basic import UdpFlow, UdpSink
from dataplane.net.capture.metrics import summary
from dataplane.net.core.units import parse_queue, parse_rate
from dataplane.net.fabric.network import Network
from dataplane.net.topology.spec import HostSpec, LinkSpec, SwitchSpec, TopologySpec
from dataplane.resources import builtin_program

__all__ = ["DeadlockConfig", "run_mode", "format_rows", "command", "MODES", "JSON_KEYS"]

MODES = ("off", "watchdog")
JSON_KEYS = ("mode", "sent_bytes", "delivered_bytes", "deadlocked_ports", "probe_bytes", "probe_delivered_bytes",
             "last_delivery_ns", "storms", "restorations", "storm_drops", "pause_frames", "tail_drops")
PROBE_BPS = 1_000_000_000
LOSSLESS = 3
TOS = LOSSLESS << 5            # IP precedence 3 -> tclass_router's priority 3
PAYLOAD = 1000


@dataclass
class DeadlockConfig:
    """One run's parameters; ``ValueError`` names what is out of range."""
    switches: int = 3
    bandwidth_bps: int = 10_000_000_000
    latency_ns: int = 1_000
    buffer_bytes: int = 400_000
    xoff: int = 40_000
    xon: int = 20_000
    bytes_per_host: int = 400_000
    duration_ns: int = 2_000_000
    detection_ns: int = 100_000
    restoration_ns: int = 400_000
    action: str = "drop"
    seed: int = 1

    def __post_init__(self) -> None:
        if not 3 <= self.switches <= 16:
            raise ValueError(f"switches must be 3..16 (a ring), got {self.switches}")
        if self.action not in ("drop", "forward"):
            raise ValueError(f"action must be drop or forward, got {self.action!r}")
        if self.bytes_per_host < PAYLOAD or self.duration_ns <= 0:
            raise ValueError("bytes per host and duration must be positive")


def _ip(i: int) -> str:
    return f"10.0.{i + 1}.{i + 1}"


def _mac(i: int) -> str:
    return f"08:00:00:00:{i + 1:02x}:{i + 1:02x}"


def build(cfg: DeadlockConfig, watchdog: bool) -> Network:
    """The ring, its routes and PFC (with the watchdog when asked)."""
    n = cfg.switches
    pfc: dict[str, Any] = {"xoff": cfg.xoff, "xon": cfg.xon, "priorities": [LOSSLESS]}
    if watchdog:
        pfc["watchdog"] = {"detection_ns": cfg.detection_ns, "restoration_ns": cfg.restoration_ns,
                           "action": cfg.action}
    queues = {"count": 4, "scheduler": "dwrr", "weights": [1, 1, 1, 1], "strict": []}
    spec = TopologySpec(name=f"pfc-deadlock-{'watchdog' if watchdog else 'off'}")
    program = builtin_program("tclass_router")
    for i in range(n):
        spec.switches[f"s{i + 1}"] = SwitchSpec(name=f"s{i + 1}", program=program,
                                                params={"pfc": pfc, "queues": queues})
        gw = f"10.0.{i + 1}.254"
        spec.hosts[f"h{i + 1}"] = HostSpec(name=f"h{i + 1}", mac=int(_mac(i).replace(":", ""), 16),
                                           ip=_ip_int(_ip(i)), gateway=_ip_int(gw),
                                           static_arp={_ip_int(gw): 0x020000000000 | (i + 1)})
    queue = (cfg.buffer_bytes, "bytes")
    for i in range(n):
        spec.links.append(LinkSpec((f"s{i + 1}", 1), (f"h{i + 1}", 0), cfg.bandwidth_bps, cfg.latency_ns, queue))
        spec.links.append(LinkSpec((f"s{i + 1}", 2), (f"s{(i + 1) % n + 1}", 3), cfg.bandwidth_bps, cfg.latency_ns,
                                   queue))
    net = Network.from_spec(spec, seed=cfg.seed)
    for i in range(n):
        api = net.switch(f"s{i + 1}").api
        for j in range(n):
            port, mac = (1, _mac(j)) if j == i else (2, "02:00:00:00:00:00")
            api.table_add("MyIngress.ipv4_lpm", "MyIngress.ipv4_forward", [f"{_ip(j)}/32"], [mac, port])
    return net


def _ip_int(text: str) -> int:
    a, b, c, d = (int(x) for x in text.split("."))
    return a << 24 | b << 16 | c << 8 | d


def run_mode(cfg: DeadlockConfig, mode: str) -> tuple[dict[str, Any], Network]:
    """Run one mode; return its result row and the network."""
    net = build(cfg, mode == "watchdog")
    n = cfg.switches
    sinks = [UdpSink(net.host(f"h{i + 1}"), 9000) for i in range(n)]
    for i in range(n):
        UdpFlow(net.host(f"h{i + 1}"), _ip((i + 2) % n), cfg.bandwidth_bps, size_bytes=PAYLOAD,
                total_bytes=cfg.bytes_per_host, dst_port=9000, tos=TOS)
    probe_sinks = [UdpSink(net.host(f"h{i + 1}"), 9001) for i in range(n)]
    probes = [UdpFlow(net.host(f"h{i + 1}"), _ip((i + 1) % n), PROBE_BPS, size_bytes=PAYLOAD,
                      start_ns=cfg.duration_ns // 2, duration_ns=cfg.duration_ns // 10, dst_port=9001, tos=TOS)
              for i in range(n)]
    last = [0]

    def watch() -> None:
        got = sum(s.stats["bytes"] for s in sinks)
        if got != watch.seen:
            watch.seen, last[0] = got, net.sim.now
        if net.sim.now < cfg.duration_ns:
            net.sim.schedule(cfg.duration_ns // 200, watch)
    watch.seen = 0
    net.sim.schedule(0, watch)
    net.run(cfg.duration_ns)
    row = measure(cfg, mode, net, sinks, last[0])
    # What the probes offered (each flow's packets over its time, whether or not the host's
    # paused port let them out) and what arrived.
    row["probe_bytes"] = sum(-(-f.duration_ns * PROBE_BPS // (PAYLOAD * 8_000_000_000)) * PAYLOAD for f in probes)
    row["probe_delivered_bytes"] = sum(s.stats["bytes"] for s in probe_sinks)
    return row, net


def measure(cfg: DeadlockConfig, mode: str, net: Network, sinks: list, last_delivery: int) -> dict[str, Any]:
    """The row of one mode (``JSON_KEYS`` but the probes' two, plus ``watchdog_events``)."""
    sinks_bytes = sum(s.stats["bytes"] for s in sinks)
    switches = [net.switch(f"s{i + 1}") for i in range(cfg.switches)]
    deadlocked = []
    for sw in switches:
        port = sw.ports[2]
        qs = port.queue
        if qs.queues[LOSSLESS] and qs.paused_until[LOSSLESS] > net.sim.now and \
                last_delivery < cfg.duration_ns * 3 // 4:
            deadlocked.append(port.name)
    watchdogs = [sw.pfc_watchdog for sw in switches if sw.pfc_watchdog is not None]
    ports = summary(net, {})["ports"]
    return {
        "mode": mode,
        "sent_bytes": cfg.bytes_per_host * cfg.switches,
        "delivered_bytes": sinks_bytes,
        "deadlocked_ports": deadlocked,
        "last_delivery_ns": last_delivery,
        "storms": sum(w.storms for w in watchdogs),
        "restorations": sum(w.restorations for w in watchdogs),
        "storm_drops": sum(q["storm_drops"] for m in ports.values() for q in m.get("queues", ())),
        "pause_frames": sum(m["pause_tx"] for m in ports.values()),
        "tail_drops": sum(m["drops"] for name, m in ports.items() if name.startswith("s")),
        "watchdog_events": [e for w in watchdogs for e in w.stats()["events"]],
        "duration_ns": cfg.duration_ns,
    }


def format_rows(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'mode':<9} {'delivered bytes':>19} {'deadlocked ports':>16} {'probe bytes in':>19} "
             f"{'last delivery':>14} {'storms':>6} {'restored':>8} {'watchdog drops pkts':>19} {'pause frames':>12} "
             f"{'tail drops pkts':>15}"]
    for r in rows:
        lines.append(f"{r['mode']:<9} {r['delivered_bytes']:>9,}/{r['sent_bytes']:<9,} "
                     f"{len(r['deadlocked_ports']):>16} {r['probe_delivered_bytes']:>9,}/{r['probe_bytes']:<9,} "
                     f"{r['last_delivery_ns'] / 1000:>11.1f} us {r['storms']:>6} {r['restorations']:>8} "
                     f"{r['storm_drops']:>19} {r['pause_frames']:>12} {r['tail_drops']:>15}")
    return "\n".join(lines)


@click.command("pfc-deadlock")
@click.option("--mode", "modes", type=click.Choice(("all",) + MODES), default="all", show_default=True,
              help="Without the watchdog, with it, or both.")
@click.option("--switches", type=int, default=3, show_default=True, help="Switches in the ring.")
@click.option("--bytes", "bytes_", default="400KB", show_default=True, help="What each host sends.")
@click.option("--bandwidth", default="10Gbps", show_default=True, help="Every link's rate.")
@click.option("--buffer", default="400KB", show_default=True, help="Each queue's capacity.")
@click.option("--xoff", default="40KB", show_default=True, help="PFC XOFF per ingress port and priority.")
@click.option("--xon", default="20KB", show_default=True, help="PFC XON.")
@click.option("--duration", type=Duration(), default="2ms", show_default=True, help="Simulated time per mode.")
@click.option("--detection", type=Duration(), default="100us", show_default=True, help="Watchdog detection time.")
@click.option("--restoration", type=Duration(), default="400us", show_default=True,
              help="Watchdog restoration time.")
@click.option("--action", type=click.Choice(("drop", "forward")), default="drop", show_default=True,
              help="What the watchdog does to a stormed queue.")
@click.option("--json", "as_json", is_flag=True, help="Print the result rows as JSON.")
@click.option("--out", type=OutputDir(), default=None, help="Write results.json and per-mode summaries here.")
def command(modes, switches, bytes_, bandwidth, buffer, xoff, xon, duration, detection, restoration, action,
            as_json, out):
    """A PFC deadlock on a ring of switches, and the PFC watchdog breaking it."""
    try:
        cfg = DeadlockConfig(switches=switches, bandwidth_bps=parse_rate(bandwidth),
                             buffer_bytes=_bytes(buffer), xoff=_bytes(xoff), xon=_bytes(xon),
                             bytes_per_host=_bytes(bytes_), duration_ns=duration, detection_ns=detection,
                             restoration_ns=restoration, action=action)
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    rows = []
    t0 = time.time()
    for mode in MODES if modes == "all" else (modes,):
        progress.stage(f"pfc-deadlock: mode {mode}")
        row, net = run_mode(cfg, mode)
        rows.append(row)
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            (out / f"summary-{mode}.json").write_text(json.dumps(summary(net, {}), indent=2, sort_keys=True) + "\n")
    if out is not None:
        (out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo(format_rows(rows))
    click.echo(f"({time.time() - t0:.1f} s wall clock)")
    if out is not None:
        click.echo(f"wrote {Path(out) / 'results.json'}")


def _bytes(text: str) -> int:
    amount, kind = parse_queue(text if any(c.isalpha() for c in text) else f"{text}B")
    if kind != "bytes":
        raise ValueError(f"{text!r} must be a size in bytes (e.g. 40KB)")
    return amount
