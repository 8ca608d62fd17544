"""``dataplane scenario vxlan``: tenants with overlapping addresses on a VXLAN overlay across a
leaf-spine, with the VTEP on a DPU (``programs/vxlan_dpu.p4``) or in the host's software.

The fabric (built in code from ``dataplane.net.topology.generators.leaf_spine``, every switch running
``programs/ecmp_router.p4`` with the generator's routes, ECMP over the spines by CRC-32 of
the outer 5-tuple): ``--hosts`` servers in blocks over the leaves (server i on leaf
i // ceil(H/L) + 1), each with its own underlay address (the generator's host address,
10.0.<leaf>.<n+1>), plus one underlay host ``stray`` on leaf1. Server i runs one VM of
tenant i % T with inner address 10.0.0.(i // T + 1) and MAC 02:00:00:00:00:(i // T + 1):
every tenant uses the same addresses.
Tenant t is VNI 5000 + t; VNI 5000 + T is configured nowhere.

Modes (the same servers, addresses and traffic):

* ``offload``: the VM is a host behind a DPU (host port 1; net port 0 to the leaf) running
  vxlan_dpu.p4 as the server's VTEP, at the DPU node's cost model (``DpuSpec`` defaults:
  400 Gb/s, 150 Mpps, 2 us);
* ``software``: the server is a host on the leaf whose software VTEP
  (``dataplane.net.apps.vxlan.SoftwareVtep``) encapsulates and decapsulates in the same way,
  charging ``host_ns_per_packet`` of CPU per packet it handles.

Traffic: every VM sends UDP to every other VM of its tenant, ``flows_per_pair`` flows per pair
(distinct inner source ports, so distinct outer source ports), ``rate`` per VM in inner
frame bits, for ``duration``; payloads are stamped (tenant, sender, receiver, flow, sequence)
and every receiver checks the stamp (``TenantSink``). The stray host sends ``stray_packets``
VXLAN frames with the unconfigured VNI to the VTEPs, which must drop them all.

Reported per tenant count: delivered (of sent), cross-tenant leaks, dropped_unknown_vni
(against injected), the share of VXLAN packets each spine carried, host CPU cores for the
overlay in each mode (CPU ns charged / duration; offload charges ``offload_ns_per_packet``,
default 0, per frame the host exchanges with its DPU) and DPU utilisation (busy / duration).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from dataplane import progress
from dataplane.cli.options import SEED, Duration, OutputDir, Whole
from dataplane.net.apps import vxlan as vx
from dataplane.net.capture.pcap import PcapWriter
from dataplane.resources import builtin_program

__all__ = ["VxlanConfig", "run_mode", "run_vxlan", "build_fabric", "format_rows", "command", "JSON_KEYS", "MODES"]

MODES = ("offload", "software")
JSON_KEYS = ("tenants", "delivered", "cross_tenant_leaks", "dropped_unknown_vni", "spine_share",
             "host_cores_software", "host_cores_offload")
VNI_BASE = 5000


@dataclass
class VxlanConfig:
    """One run's parameters (both modes share them); ``ValueError`` names what is out of range."""
    tenants: int = 2
    hosts: int = 8
    rate_bps: int = 100_000_000_000          # per VM, inner frames
    duration_ns: int = 500_000
    size: int = 1000                         # UDP payload of the inner packets
    flows_per_pair: int = 4
    leaves: int = 2
    spines: int = 2
    bandwidth_bps: int = 400_000_000_000     # every link (host-DPU is PCIe Gen5 x16 class)
    latency_ns: int = 1_000
    host_ns_per_packet: int = 1_000          # model parameter: kernel VXLAN, ~1 Mpps per core
    offload_ns_per_packet: int = 0           # host CPU per frame to/from the DPU (none modelled)
    stray_packets: int = 8
    seed: int = 1

    def __post_init__(self) -> None:
        if self.tenants < 1 or self.hosts < 2 * self.tenants:
            raise ValueError(f"need at least 2 hosts per tenant: {self.hosts} hosts, {self.tenants} tenants")
        if -(-self.hosts // self.tenants) > 253:
            raise ValueError("at most 253 hosts per tenant (inner addresses 10.0.0.1-253)")
        if not vx.STAMP.size <= self.size <= 1472:
            raise ValueError(f"size must be {vx.STAMP.size}..1472 bytes (a 1500-byte tenant MTU)")
        if -(-self.hosts // self.leaves) + 1 > 253:
            raise ValueError("at most 252 hosts per leaf: add leaves")
        if self.rate_bps <= 0 or self.duration_ns <= 0 or self.flows_per_pair < 1:
            raise ValueError("rate, duration and flows per pair must be positive")

    def tenant(self, i: int) -> int:
        return i % self.tenants

    def inner_ip(self, i: int) -> int:
        return 0x0A000000 + i // self.tenants + 1

    def inner_mac(self, i: int) -> int:
        # The same in every tenant, like the IPs: a frame delivered to the wrong tenant then
        # passes the VM's MAC filter and reaches the sink, which counts it as a leak.
        return 0x020000000000 | (i // self.tenants + 1)


@dataclass
class PortTap:
    """Counts the VXLAN packets a port sends, by outer source port; sits in the port's
    ``capture`` slot (and passes packets on to a pcap writer when given one)."""
    sports: dict[int, int] = field(default_factory=dict)
    writer: Any = None

    def write(self, time_ns: int, data: bytes) -> None:
        if len(data) >= 38 and data[12:14] == b"\x08\x00" and data[23] == 17 and data[36:38] == b"\x12\xb5":
            sport = int.from_bytes(data[34:36], "big")
            self.sports[sport] = self.sports.get(sport, 0) + 1
        if self.writer is not None:
            self.writer.write(time_ns, data)


def _spine_sports(taps: list[PortTap]) -> dict[int, int]:
    """Packets per outer source port over all of a spine's ports."""
    out: dict[int, int] = {}
    for tap in taps:
        for sport, n in tap.sports.items():
            out[sport] = out.get(sport, 0) + n
    return dict(sorted(out.items()))


@dataclass
class Fabric:
    """A built run: the network and everything the measurement reads."""
    cfg: VxlanConfig
    mode: str
    net: Any
    senders: list = field(default_factory=list)
    sinks: list = field(default_factory=list)
    vteps: list = field(default_factory=list)        # SoftwareVteps (software mode)
    endpoints: list = field(default_factory=list)    # the VMs (Hosts or VirtualMachines)
    vtep_ips: list[int] = field(default_factory=list)   # server i's underlay (VTEP) address
    gateways: list[int] = field(default_factory=list)   # server i's leaf port MAC
    taps: dict[str, list[PortTap]] = field(default_factory=dict)   # spine -> a tap per port
    stray: Any = None
    writers: list = field(default_factory=list)
    dpu_busy_in_window: list[float] = field(default_factory=list)   # each DPU's busy ns in [0, duration]


def build_fabric(cfg: VxlanConfig, mode: str, capture_dir: Path | None = None) -> Fabric:
    """The network for ``mode`` with its apps scheduled; ``capture_dir`` gets pcaps of spine1's
    port to leaf1, server 1's link and (offload) DPU 1's uplink."""
    from dataplane.control.loader import apply_runtime_config
    from dataplane.control.runtime_json import parse_runtime_json
    from dataplane.net.fabric.network import Network
    from dataplane.net.topology.generators import leaf_spine, runtime_json_text
    from dataplane.net.topology.spec import DpuSpec, HostSpec, LinkSpec, SwitchSpec, TopologySpec

    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
    per_leaf = -(-cfg.hosts // cfg.leaves)
    gen = leaf_spine(cfg.leaves, cfg.spines, per_leaf + 1, name="vxlan")   # + 1: a slot for the stray host
    slots = {(gh.switch, gh.port): gh for gh in gen.hosts.values()}
    server = [slots[(f"leaf{i // per_leaf + 1}", i % per_leaf + 1)] for i in range(cfg.hosts)]
    stray_slot = slots[("leaf1", per_leaf + 1)]

    spec = TopologySpec(f"vxlan-{mode}")
    for name in gen.switches:
        spec.switches[name] = SwitchSpec(name, builtin_program("ecmp_router"))

    def link(a: tuple[str, int], b: tuple[str, int]) -> None:
        spec.links.append(LinkSpec(a, b, cfg.bandwidth_bps, cfg.latency_ns, (1024, "packets"), 9000))

    for a, b in gen.switch_links:
        link(a, b)
    for i, gh in enumerate(server):
        h = f"h{i + 1}"
        if mode == "offload":
            spec.hosts[h] = HostSpec(h, cfg.inner_mac(i), cfg.inner_ip(i), 24, None, _tenant_arp(cfg, i))
            spec.dpus[f"dpu{i + 1}"] = DpuSpec(f"dpu{i + 1}", builtin_program("vxlan_dpu"), net_ports=(0,))
            link((h, 0), (f"dpu{i + 1}", 1))
            link((f"dpu{i + 1}", 0), (gh.switch, gh.port))
        else:
            spec.hosts[h] = HostSpec(h, gh.mac, gh.ip, gh.prefix_len, gh.gateway, dict(gh.static_arp))
            link((h, 0), (gh.switch, gh.port))
    spec.hosts["stray"] = HostSpec("stray", stray_slot.mac, stray_slot.ip, 24, stray_slot.gateway,
                                   dict(stray_slot.static_arp))
    link(("stray", 0), (stray_slot.switch, stray_slot.port))

    net = Network.from_spec(spec, seed=cfg.seed)
    for name, node in net.switches.items():
        apply_runtime_config(node.api, parse_runtime_json(runtime_json_text(gen.entries[name]), f"<{name}>"))
    for node in net.nodes():
        for port in node.ports.values():
            port.record_depth = False
    gateway = [gh.static_arp[gh.gateway] for gh in server]
    fab = Fabric(cfg, mode, net, vtep_ips=[gh.ip for gh in server], gateways=gateway)
    for i, gh in enumerate(server):
        vni = VNI_BASE + cfg.tenant(i)
        peers = [j for j in range(cfg.hosts) if j != i and cfg.tenant(j) == cfg.tenant(i)]
        if mode == "offload":
            api = net.dpu(f"dpu{i + 1}").api
            api.table_set_default("vtep_config", "set_vtep", {"vtep_ip": gh.ip, "vtep_mac": gh.mac,
                                                             "gateway_mac": gateway[i], "uplink_port": 0})
            api.table_add("tenant_of_port", "set_tenant", [1], [vni])
            api.table_add("vni_to_port", "to_host", [vni], [1])
            for j in peers:
                api.table_add("remote_vtep", "set_remote_vtep", [vni, cfg.inner_ip(j)], [server[j].ip, gateway[i], 0])
            vm = net.host(f"h{i + 1}")
        else:
            vtep = vx.SoftwareVtep(net.host(f"h{i + 1}"), gateway[i], cfg.host_ns_per_packet)
            fab.vteps.append(vtep)
            vm = vtep.add_vm(HostSpec(f"vm{i + 1}", cfg.inner_mac(i), cfg.inner_ip(i), 24, None,
                                      _tenant_arp(cfg, i)), vni)
            for j in peers:
                vtep.add_remote(vni, cfg.inner_ip(j), server[j].ip)
        fab.endpoints.append(vm)
        # Staggered starts (a fraction of one packet gap apart) so hosts do not send in lockstep.
        gap = vx.pk.udp_frame_len(cfg.size) * 8 * 1_000_000_000 // cfg.rate_bps
        fab.senders.append(vx.TenantSender(vm, cfg.tenant(i), i, [(j, cfg.inner_ip(j)) for j in peers], cfg.rate_bps,
                                           cfg.size, cfg.duration_ns, i * gap // cfg.hosts, cfg.flows_per_pair))
        fab.sinks.append(vx.TenantSink(vm, cfg.tenant(i), i, {j: cfg.inner_ip(j) for j in peers}))
    if mode == "offload":
        # Busy time is only known from the last arrival on, so take it when the window ends.
        net.sim.at(cfg.duration_ns, lambda: fab.dpu_busy_in_window.extend(d.busy_ns() for d in net.dpus.values()))
    interval = max(1, cfg.duration_ns // max(1, cfg.stray_packets))
    fab.stray = vx.StraySender(net.host("stray"), [gh.ip for gh in server], VNI_BASE + cfg.tenants,
                               cfg.stray_packets, stray_slot.static_arp[stray_slot.gateway], interval, interval // 2)
    for s in range(1, cfg.spines + 1):
        ports = net.switch(f"spine{s}").ports
        fab.taps[f"spine{s}"] = [PortTap() for _ in ports]
        for port, tap in zip(ports.values(), fab.taps[f"spine{s}"]):
            port.capture = tap
    if capture_dir is not None:
        capture_dir.mkdir(parents=True, exist_ok=True)
        net.switch("spine1").ports[1].capture.writer = _writer(fab, capture_dir / "spine1-p1.pcap")
        net.host("h1").ports[0].capture = _writer(fab, capture_dir / "h1-eth0.pcap")
        if mode == "offload":
            net.dpu("dpu1").ports[0].capture = _writer(fab, capture_dir / "dpu1-p0.pcap")
    return fab


def _writer(fab: Fabric, path: Path) -> PcapWriter:
    w = PcapWriter(path)
    fab.writers.append(w)
    return w


def _tenant_arp(cfg: VxlanConfig, i: int) -> dict[int, int]:
    """Static ARP for a VM: its tenant's peers (the VTEPs answer no ARP; this keeps runs free of it)."""
    return {cfg.inner_ip(j): cfg.inner_mac(j) for j in range(cfg.hosts) if j != i and cfg.tenant(j) == cfg.tenant(i)}


def measure(fab: Fabric, wall_s: float) -> dict[str, Any]:
    """One mode's figures (see the module docstring)."""
    cfg, net = fab.cfg, fab.net
    dur = cfg.duration_ns
    sinks = fab.sinks
    sent = sum(s.stats["sent"] for s in fab.senders)
    expected = {(s.index, peer): n for s in fab.senders for peer, n in s.sent_to.items()}
    got = {(sender, k.index): n for k in sinks for sender, n in k.from_sender.items()}
    if fab.mode == "offload":
        counters = {name: sum(d.api.counter_read(name, 0)[0] for d in net.dpus.values()) for name in vx.COUNTERS}
        util = [b / dur for b in fab.dpu_busy_in_window]
        load = sum(d.busy_ns() for d in net.dpus.values()) / dur / len(net.dpus)
        frames = sum(h.stats.tx_frames + h.stats.rx_frames for h in fab.endpoints)
        cores = cfg.offload_ns_per_packet * frames / dur
    else:
        counters = {name: sum(v.counters[name] for v in fab.vteps) for name in vx.COUNTERS}
        util, load = [], None
        cores = sum(v.cpu_ns for v in fab.vteps) / dur
    per_spine = {name: _spine_sports(taps) for name, taps in fab.taps.items()}
    counts = {name: sum(sports.values()) for name, sports in per_spine.items()}
    total = sum(counts.values())
    delivered = sum(k.stats["delivered"] for k in sinks)
    return {
        "mode": fab.mode, "sent": sent, "delivered": delivered,
        "every_pair_complete": expected == got,
        "cross_tenant_leaks": sum(k.stats["cross_tenant_leaks"] for k in sinks),
        "misdelivered": sum(k.stats["misdelivered"] + k.stats["foreign"] + k.stats["duplicates"] for k in sinks),
        "dropped_unknown_vni": counters["dropped_unknown_vni"], "injected_unknown_vni": fab.stray.sent,
        "counters": counters,
        "spine_share": {s: round(n / total, 4) if total else 0.0 for s, n in counts.items()},
        "spine_sports": {s: len(sports) for s, sports in per_spine.items()},   # distinct outer source ports
        "host_cores": round(cores, 3), "host_cores_per_host": round(cores / cfg.hosts, 3),
        "dpu_utilisation_mean": round(sum(util) / len(util), 4) if util else None,
        "dpu_utilisation_max": round(max(util), 4) if util else None,
        "dpu_load_mean": round(load, 4) if load is not None else None,
        # DPU drops other than the stray packets (pipeline queue full, other program drops).
        "dpu_drops": (sum(d.stats.dropped for d in net.dpus.values()) - counters["dropped_unknown_vni"]
                      if fab.mode == "offload" else None),
        "mean_delay_ns": round(sum(k.delay_ns for k in sinks) / delivered) if delivered else None,
        "sim_ns": net.sim.now, "wall_s": round(wall_s, 2),
    }


def run_mode(cfg: VxlanConfig, mode: str, capture_dir: Path | None = None, keep: bool = False) -> dict[str, Any]:
    """Build, run to the end (every packet delivered or dropped) and measure one mode."""
    wall = time.perf_counter()
    fab = build_fabric(cfg, mode, capture_dir)
    # How far: simulated time against the VMs' sending time (the drain after it is short).
    progress.stage(f"vxlan {mode}, {cfg.tenants} tenant{'s' if cfg.tenants != 1 else ''}", cfg.duration_ns, "ns")
    try:
        fab.net.run()
    finally:
        for w in fab.writers:
            w.close()
    result = measure(fab, time.perf_counter() - wall)
    result["sport_by_spine"] = {name: _spine_sports(taps) for name, taps in fab.taps.items()}
    if keep:
        result["fabric"] = fab
    return result


def run_vxlan(cfg: VxlanConfig, out: Path | None = None) -> dict[str, Any]:
    """Both modes for one configuration, merged into one result row (``JSON_KEYS`` and more)."""
    runs = {m: run_mode(cfg, m, out / f"pcap-{cfg.tenants}t-{m}" if out is not None else None) for m in MODES}
    off, sw = runs["offload"], runs["software"]
    return {
        "tenants": cfg.tenants, "hosts": cfg.hosts, "leaves": cfg.leaves, "rate_bps": cfg.rate_bps, "duration_ns": cfg.duration_ns,
        "sent": off["sent"], "delivered": off["delivered"], "delivered_software": sw["delivered"],
        "cross_tenant_leaks": off["cross_tenant_leaks"] + sw["cross_tenant_leaks"],
        "dropped_unknown_vni": off["dropped_unknown_vni"], "injected_unknown_vni": off["injected_unknown_vni"],
        "spine_share": off["spine_share"],
        "host_cores_software": sw["host_cores"], "host_cores_offload": off["host_cores"],
        "host_ns_per_packet": cfg.host_ns_per_packet,
        "dpu_utilisation_mean": off["dpu_utilisation_mean"], "dpu_utilisation_max": off["dpu_utilisation_max"],
        "dpu_load_mean": off["dpu_load_mean"], "dpu_drops": off["dpu_drops"],
        "wall_s": round(off["wall_s"] + sw["wall_s"], 2),
        "modes": runs,
    }


def format_rows(rows: list[dict[str, Any]]) -> str:
    """The human-readable table: one line per (tenant count, mode)."""
    r0 = rows[0]
    spines = "/".join(r0["spine_share"])
    head = ["tenants", "Gbps/VM", "mode", "delivered/sent pkts", "leaked pkts", "unknown-VNI dropped/injected pkts",
            f"{spines} share", "host cores", "cores/server", "DPU util mean/max", "wall"]
    table = [head]
    for r in rows:
        for m in MODES:
            x = r["modes"][m]
            util = (f"{x['dpu_utilisation_mean'] * 100:.1f}% / {x['dpu_utilisation_max'] * 100:.1f}%"
                    if x["dpu_utilisation_mean"] is not None else "-")
            table.append([str(r["tenants"]), f"{r['rate_bps'] / 1e9:g}", m, f"{x['delivered']}/{x['sent']}",
                          str(x["cross_tenant_leaks"]),
                          f"{x['dropped_unknown_vni']}/{x['injected_unknown_vni']}",
                          "/".join(f"{v:.3f}" for v in x["spine_share"].values()), f"{x['host_cores']:.2f}",
                          f"{x['host_cores_per_host']:.2f}", util, f"{x['wall_s']:.1f} s"])
    widths = [max(len(line[c]) for line in table) for c in range(len(head))]
    lines = [f"VXLAN overlay: {r0['hosts']} servers (one VM each) on {r0['leaves']} leaves x {len(r0['spine_share'])} "
             f"spines, VMs sending for {r0['duration_ns'] / 1000:g} us; "
             f"every tenant reuses the same inner IPs and MACs"]
    lines += ["  ".join(cell.ljust(w) if c == 2 else cell.rjust(w) for c, (cell, w) in enumerate(zip(line, widths)))
              for line in table]
    lines.append(f"software: {r0['host_ns_per_packet']} ns of host CPU per packet encapsulated, decapsulated or "
                 f"dropped (a model parameter); offload: the DPUs do the work")
    return "\n".join(lines)


def _tenant_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise click.BadParameter(f"{text!r} is not a list of tenant counts like 2 or 1,2,4", param_hint="--tenants")
    return values


@click.command("vxlan")
@click.option("--tenants", default="2", show_default=True, help="Tenants (VNIs); a comma list runs each.")
@click.option("--hosts", type=click.IntRange(2, 1000), default=8, show_default=True, help="Servers, one VM each.")
@click.option("--rate", default="100Gbps", show_default=True, help="Offered load per VM (inner frames).")
@click.option("--duration", type=Duration(), default="500us", show_default=True,
              help="How long the VMs send (simulated), with its unit: ns, us, ms or s.")
@click.option("--size", type=Whole(vx.STAMP.size, 1472), default=1000, show_default=True,
              help="UDP payload bytes of inner packets (a 1500-byte tenant MTU).")
@click.option("--flows-per-pair", type=click.IntRange(1, 1000), default=4, show_default=True,
              help="UDP flows (distinct source ports) between each pair of VMs of a tenant.")
@click.option("--leaves", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Leaf switches; the servers are spread over them.")
@click.option("--spines", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Spine switches; every leaf links to every spine.")
@click.option("--host-ns-per-packet", type=click.IntRange(0, None), default=1000, show_default=True,
              help="Host CPU ns per packet of software VXLAN (model parameter).")
@click.option("--offload-ns-per-packet", type=click.IntRange(0, None), default=0, show_default=True,
              help="Host CPU ns per frame exchanged with the DPU.")
@click.option("--stray", "stray_packets", type=click.IntRange(0, None), default=8, show_default=True,
              help="VXLAN packets with an unconfigured VNI sent to the VTEPs.")
@click.option("--seed", type=SEED, default=1, show_default=True,
              help="Seed of the random sources (link loss, ECMP hashing, RED, switches' random externs); the same seed gives the same run.")
@click.option("--json", "as_json", is_flag=True, help="Print {\"results\": [...]} as JSON.")
@click.option("--out", type=OutputDir(), default=None,
              help="Write results.json, vxlan.png and pcaps here.")
def command(tenants: str, hosts: int, rate: str, duration: str, size: int, flows_per_pair: int, leaves: int,
            spines: int, host_ns_per_packet: int, offload_ns_per_packet: int, stray_packets: int, seed: int,
            as_json: bool, out: Path | None) -> None:
    """Tenants with overlapping addresses on VXLAN across a leaf-spine: VTEP on a DPU vs in host software.

    Reports delivered packets, cross-tenant leaks, unknown-VNI drops, the share of VXLAN
    packets per spine (outer source port entropy) and host CPU cores for software VXLAN
    against DPU offload, with the DPUs' utilisation.
    """
    from dataplane.errors import DataplaneError
    from dataplane.net.core.units import parse_rate, parse_time

    try:
        configs = [VxlanConfig(tenants=t, hosts=hosts, rate_bps=parse_rate(rate), duration_ns=parse_time(duration),
                               size=size, flows_per_pair=flows_per_pair, leaves=leaves, spines=spines,
                               host_ns_per_packet=host_ns_per_packet, offload_ns_per_packet=offload_ns_per_packet,
                               stray_packets=stray_packets, seed=seed) for t in _tenant_list(tenants)]
    except (ValueError, DataplaneError) as err:
        raise click.UsageError(str(err)) from None
    rows = [run_vxlan(cfg, out) for cfg in configs]
    if out is not None:
        from dataplane.scenarios.vxlan_plots import plot_vxlan
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps({"results": rows}, indent=2) + "\n")
        plot_vxlan(rows, out / "vxlan.png")
    if as_json:
        click.echo(json.dumps({"results": [{k: v for k, v in r.items() if k != "modes"} for r in rows]}))
    else:
        click.echo(format_rows(rows))
        if out is not None:
            plot = f", {out / 'vxlan.png'}" if (out / "vxlan.png").exists() else ""
            click.echo(f"wrote {out / 'results.json'}{plot} and pcaps in {out}/pcap-*")
