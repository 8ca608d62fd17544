"""``dataplane scenario pic``: how long a link failure costs, flat FIB vs PIC vs data-plane reroute.

The fabric (built in code)::

    h1 --p1-[ s1 ]-p2---p1-[ s2 ]-p2---p1-[    ]
               |                          [ s4 ]-p3--- h2
               +-p3---p1-[ s3 ]-p2---p2-[    ]

s1 is the ingress router under test. Its FIB holds N /24 prefixes (16.0.0.0/24 upward);
prefix i uses path id i mod P (P shared path objects, default 4, standing for BGP next hops
that all resolve over the same IGP adjacency): primary next hop s2 (port 2), backup s3
(port 3). s2, s3 and s4 run ``flat_fib.p4`` with a default route towards h2. h1 sends F
probe flows (default 32, one packet per flow every 1 ms, staggered so that together they
send every 1 ms / F) to F distinct prefixes spread evenly over the FIB, the first and the
last prefix included. The s1-s2 link fails at 5 ms.

Modes (the ingress program and its controller, ``dataplane.scenarios.pic_controllers``):
``flat`` (``flat_fib.p4``; one write per affected prefix), ``pic`` (``pic_failover.p4``;
one write per affected path row), ``dataplane`` (``pic_failover.p4``; no write, the
program reads ``port_status`` per packet). Detection delay (default 1 ms, ``bfd`` = 3 x 50
ms) and write rate (default 29,000 entries/s, one write = 1/rate of simulated time) are
parameters.

Measured per mode and prefix count: control-plane ``writes``; ``convergence_ns``, from the
failure to the send time of the last probe packet lost; ``lost_packets`` (all probe flows);
``load_wall_s``, wall-clock seconds to install the FIB (bulk loader, before the run);
``update_wall_s``, wall-clock seconds the controller spent reacting (its hook plus
applying its writes). A probe flow stops once it has delivered 3 consecutive packets sent
after the failure, and the run ends when every flow has, so a 17 s outage costs only the
packets it loses. Convergence resolution: the probe interval for one flow (the flat mode's
last-fixed prefix), interval / F when all flows recover together (pic, dataplane).
"""
from __future__ import annotations

import gc
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import click

from dataplane import progress
from dataplane.cli.options import SEED, Duration, FiniteFloat, OutputDir
from dataplane.errors import DataplaneError
from dataplane.net.apps.basic import UdpFlow
from dataplane.net.core.units import UnitError, parse_time
from dataplane.net.fabric.network import Network
from dataplane.net.topology.spec import HostSpec, LinkSpec, SwitchSpec, TopologySpec
from dataplane.resources import builtin_program
from dataplane.scenarios.pic_controllers import (
    BFD_DETECTION_NS,
    CONTROLLERS,
    DEFAULT_DETECTION_NS,
    DEFAULT_WRITE_RATE,
    MODE_PROGRAMS,
    Fib,
    NextHop,
    write_latency_ns,
)
from dataplane.scenarios.pic_controllers import (
    Path as FibPath,
)
from dataplane.scenarios.pic_plots import fmt_ns, plot_pic

__all__ = ["PicResult", "run_pic", "run_pic_sweep", "plot_pic", "build_network", "command", "MODES",
           "JSON_KEYS"]

MODES = ("flat", "pic", "dataplane")
JSON_KEYS = ("mode", "prefixes", "writes", "convergence_ns", "lost_packets", "load_wall_s", "update_wall_s")
DEFAULT_PREFIXES = (1000, 10_000, 100_000, 500_000)

FIB_BASE = 0x10000000                 # 16.0.0.0
H1_IP, H2_IP, GW_IP = 0x0A000001, 0x0A000102, 0x0A0000FE    # 10.0.0.1, 10.0.1.2, 10.0.0.254
H1_MAC, H2_MAC = 0x020000000001, 0x020000000102
S1_MAC, S2_MAC, S3_MAC, S4_MAC = 0x0200000001FE, 0x020000000201, 0x020000000301, 0x020000000401
PRIMARY_PORT, BACKUP_PORT = 2, 3
PROBE_PORT = 7777
PROBE_BYTES = 64                      # UDP payload: seq, send time, padding
SETTLE = 3                            # consecutive post-failure deliveries that end a flow


@dataclass
class PicResult:
    mode: str
    prefixes: int
    writes: int
    convergence_ns: int
    lost_packets: int
    load_wall_s: float
    update_wall_s: float
    # Not in the JSON: context for tables and tests.
    detection_ns: int = 0
    write_latency_ns: int = 0
    probe_interval_ns: int = 0
    flows: int = 0
    sent: int = 0
    sim_ns: int = 0
    run_wall_s: float = 0.0
    recovered_ns: list[int | None] = field(default_factory=list)   # per flow: failure -> first delivery after

    @property
    def model_ns(self) -> int:
        """What the model predicts: detection plus the writes, one after another."""
        return self.detection_ns + self.writes * self.write_latency_ns

    def as_json(self) -> dict:
        d = asdict(self)
        return {k: d[k] for k in JSON_KEYS}


# ---- the fabric ----------------------------------------------------------------------------------

def build_network(mode: str, detection_ns: int, latency_ns: int, seed: int = 0) -> Network:
    """The five-node fabric with s1 running ``mode``'s program; s2-s4 get their default routes."""
    flat = builtin_program("flat_fib")
    spec = TopologySpec(name=f"pic-{mode}")
    spec.switches["s1"] = SwitchSpec("s1", builtin_program(MODE_PROGRAMS[mode]), detection_ns=detection_ns,
                                     write_latency_ns=latency_ns)
    for name in ("s2", "s3", "s4"):
        spec.switches[name] = SwitchSpec(name, flat, detection_ns=detection_ns)
    spec.hosts["h1"] = HostSpec("h1", H1_MAC, H1_IP, 24, gateway=GW_IP, static_arp={GW_IP: S1_MAC})
    spec.hosts["h2"] = HostSpec("h2", H2_MAC, H2_IP, 24)
    spec.links += [LinkSpec(("s1", 1), ("h1", 0)),
                   LinkSpec(("s1", PRIMARY_PORT), ("s2", 1)),
                   LinkSpec(("s1", BACKUP_PORT), ("s3", 1)),
                   LinkSpec(("s2", 2), ("s4", 1)),
                   LinkSpec(("s3", 2), ("s4", 2)),
                   LinkSpec(("s4", 3), ("h2", 0))]
    net = Network.from_spec(spec, seed=seed)
    for name, port, mac in (("s2", 2, S4_MAC), ("s3", 2, S4_MAC), ("s4", 3, H2_MAC)):
        net.switch(name).api.table_add("ipv4_lpm", "set_nhop", ["0.0.0.0/0"], {"port": port, "dmac": mac})
    for node in list(net.switches.values()) + list(net.hosts.values()):
        for p in node.ports.values():
            p.record_depth = False    # a long outage would keep millions of queue samples nobody plots
    return net


def scenario_fib(prefixes: int, paths: int) -> Fib:
    path = FibPath((NextHop(PRIMARY_PORT, S2_MAC),), NextHop(BACKUP_PORT, S3_MAC))
    return Fib.uniform(prefixes, [path] * paths, base=FIB_BASE)


def sample_indexes(prefixes: int, flows: int) -> list[int]:
    """``flows`` distinct prefix indexes spread evenly, first and last included."""
    f = min(flows, prefixes)
    if f <= 1:
        return [prefixes - 1][:f]
    return [round(k * (prefixes - 1) / (f - 1)) for k in range(f)]


class _ProbeSink:
    """Takes the probe frames at h2 (they are addressed to the FIB's prefixes, not to h2)."""

    def __init__(self, net: Network, flows: dict[int, UdpFlow], fail_ns: int):
        self.sim = net.sim
        self.flows = flows                     # destination IP -> flow
        self.fail_ns = fail_ns
        self.received: dict[int, set[int]] = {ip: set() for ip in flows}
        self.run: dict[int, tuple[int, int]] = {}      # ip -> (last seq, consecutive count) after failure
        self.first_after: dict[int, int] = {}
        self.pending = set(flows)
        net.host("h2").on_receive(self._frame)

    def _frame(self, frame: bytes, now: int) -> bool:
        if frame[12:14] != b"\x08\x00" or frame[23] != 17:
            return False
        l4 = 14 + (frame[14] & 0x0F) * 4
        if int.from_bytes(frame[l4 + 2:l4 + 4], "big") != PROBE_PORT:
            return False
        dst = int.from_bytes(frame[30:34], "big")
        got = self.received.get(dst)
        if got is None:
            return False
        seq = int.from_bytes(frame[l4 + 8:l4 + 16], "big")
        sent = int.from_bytes(frame[l4 + 16:l4 + 24], "big")
        got.add(seq)
        if sent > self.fail_ns and dst in self.pending:
            self.first_after.setdefault(dst, sent)
            last, count = self.run.get(dst, (-2, 0))
            count = count + 1 if seq == last + 1 else 1
            self.run[dst] = (seq, count)
            if count >= SETTLE:
                flow = self.flows[dst]
                flow.duration_ns = now - flow.start_ns      # no more sends from this flow
                self.pending.discard(dst)
                if not self.pending:
                    self.sim.stop()
        return True


# ---- one run ---------------------------------------------------------------------------------------

def run_pic(prefixes: int, mode: str, *, detection_ns: int = DEFAULT_DETECTION_NS,
            write_rate: float = DEFAULT_WRITE_RATE, paths: int = 4, flows: int = 32,
            probe_interval_ns: int = 1_000_000, fail_at_ns: int = 5_000_000, seed: int = 0,
            max_events: int = 2000, step: str = "") -> PicResult:
    """Load ``prefixes`` into s1 running ``mode``, fail the primary link, measure the outage."""
    if mode not in CONTROLLERS:
        raise ValueError(f"unknown mode {mode!r} (use {', '.join(MODES)})")
    if prefixes < 1:
        raise ValueError("prefixes must be at least 1")
    if probe_interval_ns < 1000:
        raise ValueError("probe interval must be at least 1 us")
    latency = write_latency_ns(write_rate)
    fib = scenario_fib(prefixes, paths)
    net = build_network(mode, detection_ns, latency, seed)
    what = f"pic {mode}, {prefixes:,} prefixes{step}"
    progress.stage(f"{what}: loading the FIB")
    controller = CONTROLLERS[mode](fib, max_events=max_events)
    handle = net.attach_controller("s1", controller, latency)
    controller.preload()

    # Probe flows, staggered over one interval.
    idx = sample_indexes(prefixes, flows)
    rate = PROBE_BYTES * 8 * 1_000_000_000 // probe_interval_ns
    by_ip: dict[int, UdpFlow] = {}
    h1 = net.host("h1")
    for k, i in enumerate(idx):
        dst = fib.addresses[i] + 1
        by_ip[dst] = UdpFlow(h1, dst, rate, PROBE_BYTES, start_ns=k * probe_interval_ns // len(idx),
                             dst_port=PROBE_PORT)
    sink = _ProbeSink(net, by_ip, fail_at_ns)
    net.set_link("s1:2", "s2:1", up=False, at_ns=fail_at_ns)

    t = time.perf_counter()
    cap = fail_at_ns + detection_ns + (prefixes + paths) * latency + 50 * probe_interval_ns + 10_000_000
    progress.stage(what, cap, "ns")     # the run stops earlier once every probe flow has recovered
    net.run(cap)
    for flow in by_ip.values():                       # stop everything still sending, then drain
        if flow.duration_ns is None:
            flow.duration_ns = net.sim.now - flow.start_ns
    net.run(net.sim.now + 1_000_000)
    run_wall = time.perf_counter() - t
    if handle.errors:
        raise DataplaneError(f"controller writes failed: {'; '.join(handle.errors[:3])}")

    # Lost packets and convergence from the sequence numbers (UdpFlow's send times are
    # start + k * size * 8e9 // rate, exactly).
    bits_ns = PROBE_BYTES * 8 * 1_000_000_000
    lost, last_lost, sent_total = 0, None, 0
    recovered: list[int | None] = []
    for dst, flow in by_ip.items():
        n = flow.stats["sent"] + flow.stats["send_failures"]
        sent_total += n
        got = sink.received[dst]
        for k in range(n):
            if k not in got:
                lost += 1
                at = flow.start_ns + k * bits_ns // rate
                if last_lost is None or at > last_lost:
                    last_lost = at
        first = sink.first_after.get(dst)
        recovered.append(None if first is None else first - fail_at_ns)
    convergence = 0 if last_lost is None else max(0, last_lost - fail_at_ns)
    result = PicResult(mode, prefixes, controller.stats.writes, convergence, lost,
                       round(controller.stats.preload_wall_s, 4), round(controller.update_wall_s, 4),
                       detection_ns=detection_ns, write_latency_ns=latency, probe_interval_ns=probe_interval_ns,
                       flows=len(by_ip), sent=sent_total, sim_ns=net.sim.now, run_wall_s=round(run_wall, 3),
                       recovered_ns=recovered)
    net.close()
    return result


def run_pic_sweep(prefix_counts: Sequence[int], modes: Sequence[str] = MODES, progress=None,
                  **kwargs: Any) -> list[PicResult]:
    """``run_pic`` for every prefix count and mode (in that order); ``progress(result)`` after each."""
    results = []
    for n in prefix_counts:
        for mode in modes:
            r = run_pic(n, mode, step=f" (run {len(results) + 1} of {len(prefix_counts) * len(modes)})", **kwargs)
            results.append(r)
            gc.collect()          # the previous FIB goes before the next one is built
            if progress is not None:
                progress(r)
    return results


# ---- output ------------------------------------------------------------------------------------------

def format_table(results: Sequence[PicResult]) -> str:
    # "predicted": the model's convergence (detection + writes one after another); "lost pkts":
    # probe packets; the last three are wall-clock seconds.
    head = (f"{'mode':<10} {'prefixes':>9} {'writes':>8} {'convergence':>12} {'predicted':>12} {'lost pkts':>9} "
            f"{'load s':>8} {'update s':>9} {'run s':>7}")
    lines = [head, "-" * len(head)]
    for r in results:
        lines.append(f"{r.mode:<10} {r.prefixes:>9,} {r.writes:>8,} {fmt_ns(r.convergence_ns):>12} "
                     f"{fmt_ns(r.model_ns):>12} {r.lost_packets:>9,} {r.load_wall_s:>8.3f} "
                     f"{r.update_wall_s:>9.3f} {r.run_wall_s:>7.2f}")
    return "\n".join(lines)


# ---- the command ----------------------------------------------------------------------------------------

def _count(text: str) -> int:
    t = text.strip().lower().replace("_", "")
    scale = 1
    if t.endswith("k"):
        t, scale = t[:-1], 1000
    elif t.endswith("m"):
        t, scale = t[:-1], 1_000_000
    value = float(t) * scale
    if value != int(value) or value < 1:
        raise ValueError(text)
    return int(value)


def _detection(text: str) -> int:
    t = text.strip().lower()
    if t == "bfd":
        return BFD_DETECTION_NS
    if t.startswith("bfd:"):
        return 3 * Duration().convert(t[4:], None, None)
    return Duration(allow_zero=True).convert(t, None, None)   # a bare number would be ns: refused


@click.command("pic")
@click.option("--prefixes", default=",".join(str(n) for n in DEFAULT_PREFIXES), show_default=True,
              help="Comma-separated FIB sizes (1000, 10k, 1M ...).")
@click.option("--modes", default=",".join(MODES), show_default=True, help="Comma-separated: flat, pic, dataplane.")
@click.option("--detection", default="1ms", show_default=True,
              help="Failure detection delay: a time (1ms, 50us), 'bfd' (3 x 50 ms) or 'bfd:INTERVAL' (3 x INTERVAL).")
@click.option("--write-rate", type=FiniteFloat(min=0.001), default=DEFAULT_WRITE_RATE, show_default=True,
              help="Control-plane table writes per second (one write costs 1/rate of simulated time; at least 0.001).")
@click.option("--paths", type=click.IntRange(1, 65536), default=4, show_default=True,
              help="Shared path ids the prefixes use (prefix i uses path i mod PATHS).")
@click.option("--flows", type=click.IntRange(1, 4096), default=32, show_default=True,
              help="Probe flows, each to a distinct prefix.")
@click.option("--probe-interval", type=Duration(), default="1ms", show_default=True, help="Packet interval of each probe flow.")
@click.option("--fail-at", type=Duration(), default="5ms", show_default=True, help="When the primary link fails.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the random sources (link loss, ECMP hashing, RED, switches' random externs); the same seed gives the same run.")
@click.option("--json", "as_json", is_flag=True, help='Print {"results": [...]} and nothing else on stdout.')
@click.option("--out", type=OutputDir(), default=None,
              help="Write pic.json and pic.png (convergence vs prefixes) here.")
def command(prefixes: str, modes: str, detection: str, write_rate: float, paths: int, flows: int,
            probe_interval: str, fail_at: str, seed: int, as_json: bool, out: Path | None) -> None:
    """Link failure under a large FIB: flat FIB vs prefix-independent convergence vs data-plane reroute.

    For each FIB size and mode, s1's primary link fails under probe traffic; reports
    control-plane writes, convergence (failure to last lost packet, simulated ns), packets
    lost, and wall-clock seconds to load the FIB and to run the update.
    """
    try:
        counts = [_count(p) for p in prefixes.split(",") if p.strip()]
    except ValueError:
        raise click.BadParameter(f"cannot read {prefixes!r} as prefix counts (e.g. 1000,10k,500k)",
                                 param_hint="--prefixes") from None
    if not counts:
        raise click.BadParameter("give at least one prefix count", param_hint="--prefixes")
    mode_list = [m.strip() for m in modes.split(",") if m.strip()]
    bad = [m for m in mode_list if m not in MODES]
    if bad or not mode_list:
        raise click.BadParameter(f"unknown mode(s) {', '.join(bad) or '(none)'}; use {', '.join(MODES)}",
                                 param_hint="--modes")
    try:
        detection_ns = _detection(detection)
        interval_ns = parse_time(probe_interval)
        fail_ns = parse_time(fail_at)
    except UnitError as err:
        raise click.BadParameter(str(err)) from None
    if write_rate <= 0:
        raise click.BadParameter("must be positive", param_hint="--write-rate")
    if interval_ns < 1000:
        raise click.BadParameter("must be at least 1us", param_hint="--probe-interval")
    biggest = max(counts)
    if FIB_BASE + biggest * 256 > 1 << 32:
        raise click.BadParameter(f"at most {((1 << 32) - FIB_BASE) // 256:,} prefixes", param_hint="--prefixes")

    def each(r: PicResult) -> None:
        if progress.active() is not None:     # on a terminal only: the table at the end has it all
            progress.echo(f"  {r.mode:<10} {r.prefixes:>9,} prefixes: convergence {fmt_ns(r.convergence_ns)}, "
                       f"{r.writes:,} writes, {r.lost_packets:,} lost ({r.run_wall_s:.1f} s)")

    results = run_pic_sweep(counts, mode_list, progress=each, detection_ns=detection_ns, write_rate=write_rate,
                            paths=paths, flows=flows, probe_interval_ns=interval_ns, fail_at_ns=fail_ns, seed=seed)
    doc = {"results": [r.as_json() for r in results]}
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "pic.json").write_text(json.dumps(doc, indent=2) + "\n")
        plot_pic(results, out / "pic.png")
    if as_json:
        click.echo(json.dumps(doc))
        return
    click.echo(format_table(results))
    if out is not None:
        click.echo(" and ".join(["wrote " + str(out / "pic.json")] + [str(p) for p in [out / "pic.png"] if p.exists()]))
