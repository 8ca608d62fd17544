"""``dataplane scenario incast``: N senders to one receiver through a leaf-spine, drop-tail vs
ECN marking (``programs/ecn.p4``) with DCQCN senders vs PFC, alone or with ECN.

The fabric (``dataplane.net.topology.generators.leaf_spine``): the receiver is h1 on leaf1; the
senders fill leaves 2.. (``hosts_per_leaf`` each); hosts have 100 Gb/s links; leaf-spine
links run at ``fabric_bandwidth`` (400 Gb/s by default, so the last hop, leaf1 port 1 to the
receiver, is the bottleneck); every switch port has a byte buffer of ``buffer_bytes`` (a host
NIC's send queue is unbounded: RDMA leaves the message in host memory until the port can
send, so a paused sender waits instead of dropping). Every switch
runs ``programs/ecn.p4`` with the generator's routes (ECMP over the spines) and
``dataplane.net.devices.queue_bytes.attach_queue_bytes`` publishing the egress byte depth to it.

Each sender moves ``transfer_bytes`` in RoCEv2-like UDP packets (``dataplane.net.apps.dcqcn``),
all starting at t = 0 (a synchronized incast):

* ``droptail``: no marking (ecn_profile default ecn_off), senders Not-ECT at line rate with
  no congestion control: the bottleneck queue fills to the buffer and drops;
* ``ecn``: ecn_profile default ``ecn_red(kmin, kmax, pmax)`` on every port, senders ECT(0)
  with DCQCN reaction points; the receiver's notification point returns CNPs;
* ``pfc``: as droptail, with PFC (``dataplane.net.devices.pfc``) on every switch: XOFF at
  ``pfc_xoff_bytes`` queued per ingress port, XON at ``pfc_xon_bytes``;
* ``ecn+pfc``: both; XOFF sits above the marking band so ECN acts first and PFC only
  absorbs what DCQCN has not yet slowed (the opening burst).

``cc="hpcc"`` (``--cc hpcc``) gives the ecn modes HPCC senders instead (``incast_hpcc``,
``dataplane.net.rdma.hpcc``): every switch runs ``programs/hpcc.p4`` (ecn.p4 plus HPCC's
per-hop INT records), the receiver acknowledges every packet with the records, and the
senders' window and rate follow HPCC's Algorithm 1; their packets are Not-ECT, so RED marks
none. Rows add ``cc`` and the flows' FCT slowdowns (``incast_hpcc.fct_slowdowns``).

Measured (``run_incast``): bottleneck utilisation (the fraction of the time from the
receiver's first to its last data packet that the bottleneck port spent serializing them),
tail drops on all switch ports, pause frames (sent by all switch ports: XOFF, refreshes and
XON), CNPs, the bottleneck queue depth in bytes (sampled every ``sample_ns``, so percentiles are time-weighted, over
t = 0 to the last arrival; ``qdepth_p99_after_burst_bytes`` is the p99 once the queue has
first drained after its peak, i.e. without the incast's opening burst), Jain's fairness
index of per-flow throughput while every flow is still receiving (from the first arrival to
the first flow's last arrival), and the completion time of the transfer (last byte of the
last flow; None when bytes were lost, as UDP does not resend); ``utilisation_port``,
``utilisation_from_ns`` and ``utilisation_to_ns`` name the port and window of the utilisation
(the rule of the report's ports table, ``dataplane.report.wire``). Rows add how far pauses
reached: ``hosts_paused`` (senders whose NIC was paused), ``paused_ports`` (ports that
received pause frames), ``host_paused_fraction`` (the senders' mean time paused, over the
time to the last arrival), ``jain_short_term`` (Jain's index per ``bin_ns`` bin, averaged:
PFC's on/off pauses are unfair at that scale even when the run as a whole is fair) and
``lossless_buffer`` (the buffer meets PFC's headroom rule, ``pfc.lossless_problems``).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from dataplane import progress
from dataplane.cli.options import SEED, FiniteFloat, OutputDir
from dataplane.net.apps.dcqcn import DcqcnParams, DcqcnReceiver, DcqcnSender, data_frame_len
from dataplane.net.apps.dcqcn_profiles import DEFAULT_PROFILE, PROFILES, get_profile
from dataplane.net.devices.queue_bytes import QueueSampler, attach_queue_bytes
from dataplane.net.rdma.hpcc import DEFAULT_PROFILE as HPCC_DEFAULT
from dataplane.net.rdma.hpcc import PROFILES as HPCC_PROFILES
from dataplane.net.rdma.hpcc import get_profile as get_hpcc_profile
from dataplane.net.rdma.hpcc_flow import hpcc_frame_len
from dataplane.scenarios._ranks import on_root, ranks_option, relaunch
from dataplane.scenarios.incast_hpcc import CCS, make_hpcc_flows, set_link_rates
from dataplane.scenarios.incast_measure import jain, measure
from dataplane.scenarios.incast_plots import plot_queue, plot_rates

MODES = ("droptail", "ecn", "pfc", "ecn+pfc")
HOST_NIC_QUEUE_BYTES = 1 << 40
#: The keys of every ``--json`` result row (rows carry a few more, listed in ``measure``).
JSON_KEYS = ("mode", "cc", "senders", "utilisation", "drops", "pause_frames", "cnps", "qdepth_p50_bytes",
             "qdepth_p99_bytes", "qdepth_max_bytes", "jain", "completion_ns", "fct_slowdown_p50", "fct_slowdown_p99",
             "fct_slowdown_max")


@dataclass
class IncastConfig:
    senders: int = 16
    mode: str = "ecn"
    transfer_bytes: int = 8_000_000          # per sender
    payload_bytes: int = 4096                # RDMA payload per packet (RoCE path MTU 4096)
    mtu: int = 9000                          # link MTU (jumbo frames carry the 4 KB payloads)
    bandwidth: str = "100Gbps"               # host links
    fabric_bandwidth: str = "400Gbps"        # leaf-spine links
    spines: int = 4
    hosts_per_leaf: int = 4
    latency: str = "1us"                     # per link
    buffer_bytes: int = 16_000_000           # per egress port
    # DCQCN and its RED marking come from a named profile (dataplane.net.apps.dcqcn_profiles),
    # scaled to the host links' rate; kmin/kmax/pmax/dcqcn given here override the profile's.
    profile: str = DEFAULT_PROFILE
    kmin_bytes: int | None = None
    kmax_bytes: int | None = None
    pmax: float | None = None
    pfc_xoff_bytes: int = 1_000_000          # per ingress port; above the marking band (ECN first)
    pfc_xon_bytes: int = 500_000
    dcqcn: DcqcnParams | None = None
    settle_ns: int = 2_000_000               # the steady-state figures leave out the first 2 ms
    sample_ns: int = 1_000
    bin_ns: int = 50_000
    seed: int = 1
    max_sim_ns: int = 1_000_000_000
    # the senders' congestion control in the ecn modes (incast_hpcc): DCQCN, or HPCC with this profile
    cc: str = "dcqcn"
    hpcc_profile: str = HPCC_DEFAULT

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.senders < 1:
            raise ValueError("senders must be at least 1")
        if self.cc not in CCS:
            raise ValueError(f"cc must be one of {', '.join(CCS)}, got {self.cc!r}")
        get_hpcc_profile(self.hpcc_profile)
        from dataplane.net.core.units import parse_rate

        prof = get_profile(self.profile).at_rate(parse_rate(self.bandwidth))
        if self.kmin_bytes is None:
            self.kmin_bytes = prof.kmin_bytes
        if self.kmax_bytes is None:
            self.kmax_bytes = prof.kmax_bytes
        if self.pmax is None:
            self.pmax = prof.pmax
        if self.dcqcn is None:
            self.dcqcn = prof.params
        if not 0 <= self.pmax <= 1:
            raise ValueError("pmax must be in [0, 1]")
        if self.kmax_bytes < self.kmin_bytes:
            raise ValueError("kmax_bytes must be >= kmin_bytes")
        if not 0 <= self.pfc_xon_bytes <= self.pfc_xoff_bytes:
            raise ValueError("PFC needs 0 <= xon <= xoff")

    @property
    def ecn(self) -> bool:
        return self.mode in ("ecn", "ecn+pfc")

    @property
    def pfc(self) -> bool:
        return self.mode in ("pfc", "ecn+pfc")

    @property
    def hpcc(self) -> bool:
        """HPCC senders and hpcc.p4 switches (only the ecn modes' senders run congestion control)."""
        return self.ecn and self.cc == "hpcc"

    def frame_len(self, payload: int) -> int:
        """Captured bytes of a data frame carrying ``payload`` (HPCC's add its INT header)."""
        return hpcc_frame_len(payload) if self.hpcc else data_frame_len(payload)


@dataclass
class IncastRun:
    """A finished run: the result row and what the plots need."""
    config: IncastConfig
    result: dict[str, Any]
    queue_times: Any
    queue_bytes: Any
    flow_series: dict[str, list[tuple[int, float]]]
    rate_logs: dict[str, list[tuple[int, float]]]
    net: Any = None


def build_network(cfg: IncastConfig):
    """The leaf-spine (as a Network), the receiver host, the sender hosts, the bottleneck port."""
    from dataplane.control.loader import apply_runtime_config
    from dataplane.control.runtime_json import parse_runtime_json
    from dataplane.net.core.units import parse_rate, parse_time
    from dataplane.net.parallel.session import build_network as build_network_on_ranks
    from dataplane.net.topology.generators import leaf_spine, runtime_json_text
    from dataplane.net.topology.spec import HostSpec, LinkSpec, SwitchSpec, TopologySpec
    from dataplane.resources import builtin_program

    h = cfg.hosts_per_leaf
    leaves = 1 + -(-cfg.senders // h)
    gen = leaf_spine(leaves, cfg.spines, h, name="incast", bandwidth=cfg.bandwidth, latency=cfg.latency,
                     fabric_bandwidth=cfg.fabric_bandwidth)
    program = builtin_program("hpcc" if cfg.hpcc else "ecn")
    spec = TopologySpec("incast")
    params = {"pfc": {"xoff": cfg.pfc_xoff_bytes, "xon": cfg.pfc_xon_bytes}} if cfg.pfc else {}
    for name in gen.switches:
        spec.switches[name] = SwitchSpec(name, program, params=dict(params))
    for name, gh in gen.hosts.items():
        spec.hosts[name] = HostSpec(name, gh.mac, gh.ip, gh.prefix_len, gh.gateway, dict(gh.static_arp))
    rate, latency = parse_rate(cfg.bandwidth), parse_time(cfg.latency)
    for i, (a, b) in enumerate(gen.links):
        bw = gen.link_params.get(i, {}).get("bandwidth")
        spec.links.append(LinkSpec(a, b, parse_rate(bw) if bw else rate, latency, (cfg.buffer_bytes, "bytes"), cfg.mtu))
    net = build_network_on_ranks(spec, seed=cfg.seed)
    for name, node in net.switches.items():
        apply_runtime_config(node.api, parse_runtime_json(runtime_json_text(gen.entries[name]), f"<{name}>"))
        if cfg.ecn:
            node.api.table_set_default("MyEgress.ecn_profile", "MyEgress.ecn_red", {
                "kmin": cfg.kmin_bytes, "kmax": cfg.kmax_bytes, "pmax": round(cfg.pmax * 65536)})
    for node in list(net.switches.values()) + list(net.hosts.values()):
        for port in node.ports.values():
            port.record_depth = False       # the sampler in run_incast records bytes instead
    for host in net.hosts.values():
        host.port.capacity = HOST_NIC_QUEUE_BYTES
    attach_queue_bytes(net)
    if cfg.hpcc:
        set_link_rates(net)
    receiver = net.host("h1")
    senders = [net.host(f"h{h + 1 + i}") for i in range(cfg.senders)]
    bottleneck = net.switch("leaf1").ports[1]
    return net, receiver, senders, bottleneck


def run_incast(cfg: IncastConfig, keep_net: bool = False) -> IncastRun | None:
    """Build and run one incast; on several MPI ranks, None except on rank 0 (which has every
    rank's results gathered, ``dataplane.net.parallel.session.gather_results``)."""
    from dataplane.net.parallel.session import gather_results

    wall0 = time.perf_counter()
    net, receiver_host, sender_hosts, bottleneck = build_network(cfg)
    ecn = cfg.ecn
    if cfg.hpcc:
        receiver, senders = make_hpcc_flows(cfg, receiver_host, sender_hosts)
    else:
        receiver = DcqcnReceiver(receiver_host, qpn=1, params=cfg.dcqcn, notify=ecn, bin_ns=cfg.bin_ns)
        senders = [DcqcnSender(h, receiver_host.ip, cfg.transfer_bytes, payload_bytes=cfg.payload_bytes,
                               start_ns=0, dst_qp=1, params=cfg.dcqcn, cc=ecn, ect=ecn) for h in sender_hosts]
    sampler = QueueSampler(net.sim, bottleneck, cfg.sample_ns, end_ns=cfg.max_sim_ns)
    progress.stage(f"incast {cfg.mode}, {cfg.senders} senders", cfg.senders * cfg.transfer_bytes, "B",
                   lambda _now: receiver.stats["bytes"])
    net.run(cfg.max_sim_ns)
    wall = time.perf_counter() - wall0
    if not gather_results(net, [receiver, *senders, sampler]):
        return None
    result = measure(cfg, net, receiver, senders, sampler, bottleneck)
    result["wall_s"] = round(wall, 2)
    names = {s.key: s.host.name for s in senders}
    flow_series = {names.get(k, str(k)): receiver.throughput_series(k) for k in receiver.flows}
    rate_logs = {s.host.name: s.rate_log for s in senders}
    return IncastRun(cfg, result, sampler.times, sampler.bytes, flow_series, rate_logs, net if keep_net else None)


# ---- the command -------------------------------------------------------------------------------------

def _size(text: str) -> int:
    from dataplane.errors import DataplaneError
    from dataplane.net.core.units import parse_queue

    try:
        amount, kind = parse_queue(text if any(c.isalpha() for c in str(text)) else f"{text}B")
    except DataplaneError:
        kind = None
    if kind != "bytes":
        raise click.BadParameter(f"{text!r} is not a size in bytes (e.g. 4MB, 400KB)")
    return amount


def format_row(r: dict[str, Any]) -> str:
    done = f"{r['completion_ns'] / 1000:.1f} µs" if r["completion_ns"] is not None else "never (bytes lost)"
    # Counts say what they count: drops are packets tail-dropped at any switch port, pause
    # frames those the switches sent, delivered the share of the senders' bytes that arrived.
    name = f"{r['mode']}/hpcc" if r.get("cc") == "hpcc" else r["mode"]     # ecn modes are DCQCN's otherwise
    slow = (f"FCT slowdown p50/p99/max {r['fct_slowdown_p50']:.1f}/{r['fct_slowdown_p99']:.1f}/"
            f"{r['fct_slowdown_max']:.1f}  " if r.get("fct_slowdown_p50") is not None else "")
    return (f"{name:<14}  {r['senders']:>3} senders  util {r['utilisation'] * 100:5.1f} %  "
            f"drops {r['drops']:>7} pkts  pause frames {r['pause_frames']:>5}  CNPs {r['cnps']:>5}  queue p50/p99/max "
            f"{r['qdepth_p50_bytes'] / 1000:.0f}/{r['qdepth_p99_bytes'] / 1000:.0f}/{r['qdepth_max_bytes'] / 1000:.0f} KB"
            f"  Jain {r['jain']:.3f} (short-term {r['jain_short_term'] or 0:.3f})  completion {done}  "
            f"{_steady_text(r)}{slow}"
            f"delivered {r['delivered_fraction'] * 100:.1f} % of bytes  ({r['wall_s']} s wall)")


def _steady_text(r: dict[str, Any]) -> str:
    if r.get("utilisation_steady") is None:
        return ""
    band = r["queue_in_band_fraction"]
    return (f"after 2 ms: util {r['utilisation_steady'] * 100:.1f} %"
            + (f", queue in Kmin..Kmax {band * 100:.0f} % of the time  " if band is not None and r["kmin_bytes"] is not None
               else "  "))


@click.command("incast")
@click.option("--senders", type=click.IntRange(1, 1000), default=16, show_default=True, help="Number of senders.")
@click.option("--mode", type=click.Choice(MODES + ("all",)), default="all", show_default=True,
              help="droptail: line-rate UDP, no marking; ecn: RED marking + DCQCN; pfc: droptail + PFC; "
                   "ecn+pfc: both; all: the four.")
@click.option("--transfer", "transfer", default="8MB", show_default=True, help="Bytes each sender moves.")
@click.option("--buffer", "buffer", default="16MB", show_default=True, help="Egress buffer per port.")
@click.option("--payload", type=click.IntRange(64, 8192), default=4096, show_default=True,
              help="RDMA payload bytes per packet (RoCE path MTU 4096; HPCC's simulator sends 1000).")
@click.option("--profile", type=click.Choice(list(PROFILES)), default=DEFAULT_PROFILE, show_default=True,
              help="DCQCN and ECN marking parameters, named after their source (scaled to 100 Gb/s): "
                   + "; ".join(f"{p.name}: {p.source}" for p in PROFILES.values()) + ". See docs/ecn.md.")
@click.option("--kmin", default=None, help="RED Kmin (bytes); default: the profile's.")
@click.option("--kmax", default=None, help="RED Kmax (bytes); default: the profile's.")
@click.option("--pmax", type=FiniteFloat(0, 1), default=None, help="RED Pmax; default: the profile's.")
@click.option("--xoff", default="1MB", show_default=True, help="PFC XOFF, bytes queued per ingress port.")
@click.option("--xon", default="500KB", show_default=True, help="PFC XON, bytes queued per ingress port.")
@click.option("--cc", type=click.Choice(CCS + ("both",)), default="dcqcn", show_default=True,
              help="Congestion control of the ecn modes' senders: dcqcn (ECN marks, CNPs), hpcc (INT records "
                   "from hpcc.p4 switches, echoed in per-packet ACKs), or both, one after the other.")
@click.option("--hpcc-profile", type=click.Choice(list(HPCC_PROFILES)), default=HPCC_DEFAULT, show_default=True,
              help="HPCC parameters, named after their source: "
                   + "; ".join(f"{p.name}: {p.source}" for p in HPCC_PROFILES.values()) + ".")
@click.option("--seed", type=SEED, default=1, show_default=True,
              help="Seed of the random sources (link loss, ECMP hashing, RED, switches' random externs); the same seed gives the same run.")
@click.option("--json", "as_json", is_flag=True, help="Print {\"results\": [...]} as JSON.")
@click.option("--out", type=OutputDir(), default=None,
              help="Write queue_depth.png, flow_rates.png and results.json here.")
@ranks_option
def command(senders: int, mode: str, transfer: str, buffer: str, profile: str, kmin: str | None, kmax: str | None,
            pmax: float | None, xoff: str, xon: str, payload: int, cc: str, hpcc_profile: str, seed: int, as_json: bool,
            out: Path | None, ranks: int = 1) -> None:
    """N senders to one receiver through a 100 Gb/s leaf-spine: drop-tail, ECN + DCQCN or HPCC, PFC, ECN + PFC.

    Reports bottleneck utilisation, drops, pause frames, CNPs, bottleneck queue
    depth p50/p99/max in bytes, Jain's fairness of per-flow throughput, the completion time
    of the transfer and the flows' FCT slowdowns. --json and results.json leave the wall-clock time out (the table shows
    it), so the same seed gives the same bytes, on any number of --ranks.
    """
    relaunch(ranks)
    modes = MODES if mode == "all" else (mode,)
    try:
        base = dict(senders=senders, transfer_bytes=_size(transfer), buffer_bytes=_size(buffer), profile=profile,
                    payload_bytes=payload,
                    kmin_bytes=None if kmin is None else _size(kmin), kmax_bytes=None if kmax is None else _size(kmax),
                    pmax=pmax, pfc_xoff_bytes=_size(xoff), pfc_xon_bytes=_size(xon), seed=seed)
        ccs = CCS if cc == "both" else (cc,)
        configs = [IncastConfig(mode=m, cc=c, hpcc_profile=hpcc_profile, **base) for m in modes for c in ccs
                   if c == ccs[0] or m in ("ecn", "ecn+pfc")]
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    runs = []
    for cfg in configs:
        run = run_incast(cfg)
        if run is None:
            continue          # another rank's: rank 0 reports
        runs.append(run)
        if not as_json:
            progress.echo(format_row(run.result), err=False)
    if not on_root():
        return
    results = [{k: v for k, v in r.result.items() if k != "wall_s"} for r in runs]
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        plot_queue(runs, out / "queue_depth.png")
        plot_rates(runs, out / "flow_rates.png")
        (out / "results.json").write_text(json.dumps({"results": results}, indent=2) + "\n")
        if not as_json:
            written = [out / "queue_depth.png", out / "flow_rates.png", out / "results.json"]
            click.echo("wrote " + ", ".join(str(p) for p in written if p.exists()))   # no PNG: DATAPLANE_PLOTS=0
    if as_json:
        click.echo(json.dumps({"results": results}))


__all__ = ["MODES", "JSON_KEYS", "IncastConfig", "IncastRun", "run_incast", "build_network", "measure", "jain", "plot_queue",
           "plot_rates", "command"]
