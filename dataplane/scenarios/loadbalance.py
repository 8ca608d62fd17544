"""``dataplane scenario loadbalance``: ECMP, flowlets, packet spraying and adaptive routing on
collective-like traffic, with an uplink failed or slow.

Every run builds a fresh generated fabric (``scenarios.fabric``: fat-tree or leaf-spine, PFC,
100G) whose switches all run one load-balancing program (``--lb``: ``programs/ecmp.p4``,
``flowlet.p4``, ``spray.p4``, ``adaptive.p4``; ``reps``: ecmp.p4 marking by queue wait
(``--mark-us``), the hosts choosing each packet's entropy, ``dataplane.net.rdma.entropy``),
starts the workload at t = 0 on every host and runs it to the end (``--window``: the packets
in flight per flow; none by default, 96 for reps; ``--window-counts``: counted as the PSN span or as
the selective sender's pipe):

* ``permutation``: every host sends one flow of ``--size`` to a host in another rack;
* ``all-to-all``: every host sends ``--size`` split evenly over all the others;
* ``allreduce``, ``allgather``, ``reducescatter``, ``alltoall``: the collective of ``--size``
  (nccl-tests' size) over every host, NCCL's default algorithm (``dataplane collective``'s).

Flows are RDMA reliable connections (``dataplane.net.rdma``) whose receiver is ``--receiver``:
``gbn`` (go-back-N: in order only, as RoCE NICs) or ``sack`` (places out-of-order packets and
resends only holes); several give one run each. Each ``--event`` is a run too: ``none``,
``down`` (``--event-link`` failed from the start, the routes converged without it) and
``slow`` (it runs at ``--slow-rate`` of its rate, the routes unaware unless ``--wcmp``
weighs them by capacity, ``loadbalance.routes``).

Reported per run (``dataplane.net.loadbalance.metrics``): aggregate goodput (flows: the sum of
each flow's bytes over its completion time; collectives: busbw) and its fraction of the
bisection (the same for a perfect balancer on the fabric as built; collectives: of the
ideal-ECMP bound), the ideal fraction left under the event, completion times (the last, mean
and p99 over flows or ranks), packets that arrived out of order, retransmissions and the
spurious ones (duplicates at the receiver), uplink utilisation (busiest, and busiest over
mean), PFC pause frames and drops, the switches' queues (p50/p99/max of the bytes waiting
behind every frame a switch sent) and the flows' FCT slowdowns (mean, p99); in ``--json``,
``--out`` (results.json) and ``--report``.

``--ack-priority``: ACKs (and NAKs) in a class the switches serve first
(``LbConfig.ack_priority``: 8 queues a port in strict priority, ACKs with DSCP 48).

``--cc``: the hosts' congestion control (``_loadbalance_cc``). ``none`` (the default), ``dcqcn``
(the switches mark ECN), or ``hpcc``: HPCC's senders, the switches stamping HPCC's records by
``programs/hpcc.p4``. hpcc.p4 is ecn.p4's router, whose ECMP is ``ecmp.p4``'s with hash seed 0
and the 5-tuple; the other schemes' programs stamp no records (and reorder, which HPCC's
go-back-N receiver drops), so ``--cc hpcc`` takes ``--lb ecmp`` with those hash settings only,
its default then, and refuses the rest rather than run HPCC blind. HPCC runs with the go-back-N
receiver only: under ``--cc hpcc`` the receiver is gbn unless ``--receiver`` says otherwise,
and ``--receiver sack`` is refused.
"""
from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import click

from dataplane.cli.options import OutputDir, fabric_options
from dataplane.scenarios._ranks import on_root, ranks_option, relaunch

SCHEME_NAMES = ("ecmp", "flowlet", "spray", "adaptive", "reps")
CCS = ("none", "dcqcn", "hpcc")
#: --path-quantum's default, raised to --quantum when that is coarser (path mode needs no finer)
PATH_QUANTUM = 128 << 10


def _choices(text: str, allowed: tuple[str, ...], option: str) -> list[str]:
    chosen = [w.strip() for w in text.split(",") if w.strip()]
    bad = [w for w in chosen if w not in allowed]
    if bad or not chosen:
        raise click.BadParameter(f"{', '.join(bad) or 'nothing'}: choose from {', '.join(allowed)}", param_hint=option)
    return list(dict.fromkeys(chosen))


_CC_TEXT = {"none": "no congestion control", "dcqcn": "DCQCN",
            "hpcc": "HPCC (programs/hpcc.p4, go-back-N receiver)"}


def _given(param: str) -> bool:
    """True if the user set option ``param`` (not its default)."""
    source = click.get_current_context().get_parameter_source(param)
    return source is None or source.name != "DEFAULT"


def _hpcc_receivers(receivers: list[str]) -> list[str]:
    """HPCC's receivers: gbn, chosen unless --receiver was given; sack refused (module docstring)."""
    if not _given("receiver_text"):
        return ["gbn"]
    if "sack" in receivers:
        raise click.BadParameter("--cc hpcc runs with the go-back-N receiver only (HPCC's records ride behind "
                                 "the ACK where sack puts its blocks): use --receiver gbn", param_hint="--receiver")
    return receivers


def _check_hpcc_switches(schemes: list[str], hash_seed: int, fields: tuple[str, ...], every: tuple[str, ...]) -> None:
    """--cc hpcc: only what programs/hpcc.p4 forwards by (module docstring)."""
    other = [s for s in schemes if s != "ecmp"]
    if other and _given("lb_text"):
        raise click.BadParameter(f"{', '.join(other)}: --cc hpcc needs switches that stamp HPCC's records, and only "
                                 "programs/hpcc.p4 (ECMP) does; besides, these schemes reorder a flow's packets, "
                                 "which the go-back-N receiver HPCC runs with drops and resends; use --lb ecmp",
                                 param_hint="--lb")
    if hash_seed:
        raise click.BadParameter("--cc hpcc runs programs/hpcc.p4, whose ECMP hash has no seed: use 0",
                                 param_hint="--hash-seed")
    if set(fields) != set(every):
        raise click.BadParameter("--cc hpcc runs programs/hpcc.p4, which hashes the whole 5-tuple",
                                 param_hint="--hash-fields")


def _path_avoid(text: str) -> tuple[int, int]:
    """--path-avoid: two steps in 256ths, each 1..256."""
    try:
        up, down = (int(x) for x in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{text!r}: two steps in 256ths, e.g. 32,8", param_hint="--path-avoid") from None
    if not (1 <= up <= 256 and 1 <= down <= 256):
        raise click.BadParameter(f"{text!r}: each step 1..256", param_hint="--path-avoid")
    return up, down


def _mark_us(text: str) -> tuple[int, int]:
    """--mark-us: two whole microseconds, the first below the second."""
    try:
        kmin, kmax = (int(x) for x in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{text!r}: two whole microseconds, e.g. 2,20", param_hint="--mark-us") from None
    if not 0 <= kmin < kmax < 2**32:
        raise click.BadParameter(f"{text!r}: 0 <= KMIN < KMAX", param_hint="--mark-us")
    return kmin, kmax


def _default_link(topology: str) -> tuple[str, str]:
    return ("leaf1", "spine1") if topology == "leaf-spine" else ("edge1_1", "agg1_1")


@click.command("loadbalance")
@click.option("--topology", type=click.Choice(["fat-tree", "leaf-spine"]), default="fat-tree", show_default=True,
              help="The generated fabric.")
@fabric_options(k_max=16, leaves=(2, 64), spines_max=8, hosts_max=64,
                bandwidth_help="Every link's rate (host links with --fabric-bandwidth).")
@click.option("--workload", default="permutation", show_default=True,
              help="Comma-separated: permutation, all-to-all, allreduce, allgather, reducescatter, alltoall.")
@click.option("--size", "size_text", default="2MiB", show_default=True,
              help="Bytes each host sends (permutation, all-to-all) or the collective's size; K/M/G are 1024-based.")
@click.option("--lb", "lb_text", default=",".join(SCHEME_NAMES), show_default=True,
              help="Comma-separated schemes: ecmp, flowlet, spray, adaptive, reps (the hosts spray by entropy).")
@click.option("--receiver", "receiver_text", default="sack", show_default=True,
              help="Comma-separated receivers: gbn (go-back-N), sack (selective repeat).")
@click.option("--event", "event_text", default="none,down,slow", show_default=True,
              help="Comma-separated: none, down (--event-link failed), slow (--event-link at --slow-rate).")
@click.option("--event-link", default=None, metavar="A,B",
              help="The uplink that fails or slows, by its two switches (default: edge1_1,agg1_1; leaf1,spine1).")
@click.option("--slow-rate", default=0.5, show_default=True, type=click.FloatRange(0.01, 1.0),
              help="slow: the link's share of its rate.")
@click.option("--hash-seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1),
              help="ecmp: the hash seed (0: the crc32 of today's router).")
@click.option("--hash-fields", default="src,dst,proto,sport,dport", show_default=True,
              help="ecmp: the fields hashed.")
@click.option("--flowlet-us", default=50, show_default=True, type=click.IntRange(1, 10**6),
              help="flowlet: the gap, in us, after which a flow may move.")
@click.option("--flowlet-choice", type=click.Choice(["random", "least-loaded"]), default="random",
              show_default=True, help="flowlet: how a new flowlet's member is chosen.")
@click.option("--spray", "spray_order", type=click.Choice(["round-robin", "random"]), default="round-robin",
              show_default=True, help="spray: each flow's members in turn, or a random one per packet.")
@click.option("--quantum", "quantum_text", default="16KiB", show_default=True,
              help="adaptive, flowlet least-loaded: loads are compared in units of this many bytes (a power of two).")
@click.option("--adaptive", "adaptive_mode", type=click.Choice(["local", "path"]), default="local", show_default=True,
              help="adaptive: compare the switch's own ports' backlog (DRILL), or also the congestion each "
                   "path reported back to the source edge (CONGA).")
@click.option("--path-age-us", default=50, show_default=True, type=click.IntRange(1, 2**32 - 1),
              help="adaptive --adaptive path: a path's fed-back congestion older than this counts as none.")
@click.option("--path-quantum", "path_quantum_text", default=None,
              help="adaptive --adaptive path: the unit a path's congestion is measured and fed back in (a power "
                   "of two, no smaller than --quantum)  [default: 128KiB, or --quantum if larger]")
@click.option("--path-share", default=64, show_default=True, type=click.IntRange(0, 256),
              help="adaptive --adaptive path: how many packets in 256 (a random draw each) heed the paths' "
                   "congestion; the others go by the local backlog alone.")
@click.option("--path-avoid", "path_avoid_text", default=None, metavar="UP,DOWN",
              help="adaptive --adaptive path: instead of a share heeding the metrics, every packet passes a "
                   "member over with a chance per path, raised UP/256 by each congested report and lowered "
                   "DOWN/256 by each clear one (default: off).")
@click.option("--mark-us", "mark_text", default="2,20", show_default=True, metavar="KMIN,KMAX",
              help="reps: the switches mark CE with a probability rising from 0 to 1 as a packet's wait in "
                   "its queue goes from KMIN to KMAX microseconds.")
@click.option("--window", default=None, type=click.IntRange(1, 65536),
              help="Packets in flight per flow, every scheme (default: no bound; reps: 96).")
@click.option("--window-counts", "window_counts", type=click.Choice(["span", "pipe"]), default="span",
              show_default=True,
              help="What --window bounds: the PSNs from the oldest unacknowledged one on, or the packets "
                   "acknowledged neither cumulatively nor selectively (the pipe; the sack receiver only, and the "
                   "span kept within its reorder window).")
@click.option("--spray-acks", is_flag=True,
              help="reps: the receivers send each ACK on a fresh random entropy (UDP source port) instead of "
                   "the flow's own, so that a flow's ACKs do not all wait on one path.")
@click.option("--explore-every", default=0, show_default=True, type=click.IntRange(0, 1 << 20), metavar="N",
              help="reps: every N-th data packet takes a fresh random entropy even when the sender holds good ones "
                   "(0: only when it holds none).")
@click.option("--ack-priority", is_flag=True,
              help="ACKs and NAKs in a class the switches serve first: every switch port gets 8 queues in strict "
                   "priority, the programs queue a packet by its IP precedence, and the hosts send ACKs with "
                   "DSCP 48 (CS6, the class of RoCE's CNPs) and data with 0.")
@click.option("--wcmp", is_flag=True,
              help="Routes weighted by capacity (WCMP): each next hop in proportion to what it can carry to the "
                   "destination, the slow link's rate known to them (the routes of --event slow are otherwise "
                   "unaware of it); on an even fabric the same as ECMP's.")
@click.option("--components", is_flag=True,
              help="adaptive, flowlet least-loaded: split each switch's groups into symmetric components (DRILL): "
                   "the member in turn names the component, the least-loaded port within it takes the packet; "
                   "on an even fabric the same as without.")
@click.option("--mtu", default=4096, show_default=True, type=click.IntRange(256, 8192), help="The path MTU of the "
              "transport's payload.")
@click.option("--pfc/--no-pfc", default=True, show_default=True, help="PFC on every switch (a lossless fabric).")
@click.option("--cc", default="none", show_default=True, type=click.Choice(CCS),
              help="Host congestion control; dcqcn also marks ECN on the switches; hpcc runs programs/hpcc.p4 "
                   "and the gbn receiver (--lb ecmp only, the default then).")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, 2**32 - 1),
              help="Seed of the permutation and of the switches' random draws.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--out", type=OutputDir(), help="Write results.json here.")
@ranks_option
def command(topology: str, k: int, leaves: int, spines: int, hosts_per_leaf: int, bandwidth: str,
            fabric_bandwidth: str | None, latency: str, workload: str, size_text: str, lb_text: str,
            receiver_text: str, event_text: str, event_link: str | None, slow_rate: float, hash_seed: int,
            hash_fields: str, flowlet_us: int, flowlet_choice: str, spray_order: str, quantum_text: str,
            adaptive_mode: str, path_age_us: int, path_quantum_text: str | None, path_share: int,
            path_avoid_text: str | None,
            mark_text: str,
            window: int | None, window_counts: str, spray_acks: bool, explore_every: int, ack_priority: bool, wcmp: bool,
            components: bool,
            mtu: int, pfc: bool, cc: str, seed: int, as_json: bool, out: Path | None, ranks: int = 1) -> None:
    """Compare load-balancing schemes (ECMP, flowlets, packet spraying, adaptive routing) on a fabric
    under a permutation, all-to-all or a collective, clean and with one uplink failed or slow."""
    from dataplane import progress
    from dataplane.net.core.units import UnitError, parse_rate, parse_time
    from dataplane.net.loadbalance.schemes import HASH_FIELDS, LbConfig
    from dataplane.scenarios._collective import parse_size
    from dataplane.scenarios._loadbalance_run import (
        EVENTS,
        WORKLOADS,
        LbRun,
        format_cc_table,
        format_table,
        run_one,
    )
    from dataplane.scenarios.fabric import FabricConfig

    workloads = _choices(workload, WORKLOADS, "--workload")
    schemes = _choices(lb_text, SCHEME_NAMES, "--lb")
    receivers = _choices(receiver_text, ("gbn", "sack"), "--receiver")
    if cc == "hpcc":
        receivers = _hpcc_receivers(receivers)
    events = _choices(event_text, EVENTS, "--event")
    if window_counts == "pipe" and "gbn" in receivers:
        raise click.BadParameter("the pipe is counted from the selective ACKs: it needs --receiver sack "
                                 "(and no --cc hpcc)", param_hint="--window-counts")
    if spray_acks and "reps" not in schemes:
        raise click.BadParameter("only reps' hosts choose the entropy: it needs --lb reps (among the schemes)",
                                 param_hint="--spray-acks")
    if explore_every and "reps" not in schemes:
        raise click.BadParameter("only reps' hosts choose the entropy: it needs --lb reps (among the schemes)",
                                 param_hint="--explore-every")
    if ack_priority and cc == "hpcc":
        raise click.BadParameter("--cc hpcc runs programs/hpcc.p4, which queues every packet alike; the classes "
                                 "are the load-balancing programs'", param_hint="--ack-priority")
    if wcmp and cc == "hpcc":
        raise click.BadParameter("--cc hpcc runs programs/hpcc.p4 on the generator's ECMP routes; the weighted "
                                 "ones are the load-balancing programs'", param_hint="--wcmp")
    fields = tuple(_choices(hash_fields, tuple(HASH_FIELDS), "--hash-fields"))
    if cc == "hpcc":
        _check_hpcc_switches(schemes, hash_seed, fields, tuple(HASH_FIELDS))
        schemes = ["ecmp"]
    try:
        size = parse_size(size_text)
        quantum = parse_size(quantum_text)
        path_quantum = None if path_quantum_text is None else parse_size(path_quantum_text)
        rate = parse_rate(bandwidth)
        parse_time(latency)
        if fabric_bandwidth is not None:
            parse_rate(fabric_bandwidth)
    except (ValueError, UnitError) as err:
        raise click.UsageError(str(err)) from None
    if size < 1:
        raise click.BadParameter("must be at least 1 byte", param_hint="--size")
    if quantum < 1 or quantum & (quantum - 1) or quantum > 2**31:
        raise click.BadParameter(f"{quantum_text}: a power of two from 1 B to 2 GiB", param_hint="--quantum")
    if path_quantum is None:
        path_quantum = max(PATH_QUANTUM, quantum)
    if path_quantum < quantum or path_quantum & (path_quantum - 1) or path_quantum > 2**31:
        raise click.BadParameter(f"{path_quantum_text}: a power of two from --quantum to 2 GiB",
                                 param_hint="--path-quantum")
    mark = _mark_us(mark_text)
    path_avoid = None if path_avoid_text is None else _path_avoid(path_avoid_text)
    if topology == "fat-tree" and k % 2:
        raise click.BadParameter(f"k must be even, got {k}", param_hint="--k")
    link = _default_link(topology)
    if event_link is not None:
        parts = tuple(x.strip() for x in event_link.split(","))
        if len(parts) != 2 or not all(parts):
            raise click.BadParameter("name a link by its two switches, e.g. edge1_1,agg1_1", param_hint="--event-link")
        link = (parts[0], parts[1])
    from dataplane.net.apps.dcqcn_profiles import DEFAULT_PROFILE, get_profile

    dcqcn = get_profile(DEFAULT_PROFILE).at_rate(rate).params if cc == "dcqcn" else None
    base = FabricConfig(topology=topology, k=k, leaves=leaves, spines=spines, hosts_per_leaf=hosts_per_leaf,
                        bandwidth=bandwidth, fabric_bandwidth=fabric_bandwidth, latency=latency, pfc=pfc,
                        ecn=cc == "dcqcn", seed=seed)
    lbs = [LbConfig(s, hash_seed=hash_seed, hash_fields=fields, flowlet_us=flowlet_us, flowlet_choice=flowlet_choice,
                    spray_order=spray_order, load_shift=quantum.bit_length() - 1, mark_us=mark, window=window, adaptive_mode=adaptive_mode, path_age_us=path_age_us,
                    path_shift=path_quantum.bit_length() - 1, path_share=path_share,
                    path_avoid=path_avoid, window_counts=window_counts,
                    spray_acks=spray_acks and s == "reps", ack_priority=ack_priority,
                    explore_every=explore_every if s == "reps" else 0, wcmp=wcmp) for s in schemes]
    if components and not any(lb.compares_loads for lb in lbs):
        raise click.BadParameter("symmetric components split the groups of a least-loaded choice: it needs --lb "
                                 "adaptive or flowlet with --flowlet-choice least-loaded", param_hint="--components")
    lbs = [replace(lb, components=True) if components and lb.compares_loads else lb for lb in lbs]
    runs = [LbRun(w, size, FabricConfig(**{**base.__dict__, "lb": lb}), receiver, event, link, slow_rate, mtu, seed,
                  dcqcn, cc == "hpcc")
            for w in workloads for event in events for lb in lbs for receiver in receivers]
    relaunch(ranks)
    from dataplane.cli.errors import reported_errors

    wall = time.perf_counter()
    rows = []
    for i, run in enumerate(runs, 1):
        progress.stage(f"loadbalance: {run.workload}, {run.event}, {run.fabric.lb.scheme}, {run.receiver} "
                       f"({i} of {len(runs)})")
        with reported_errors():
            try:
                row = run_one(run)
            except ValueError as err:
                raise click.UsageError(str(err)) from None
        if row is not None:
            rows.append(row)
    if not on_root():
        return
    payload = {"fabric": base.describe(), "size": size, "mtu": mtu, "seed": seed, "cc": cc, "pfc": pfc,
               "event_link": list(link),
               "slow_rate": slow_rate, **({"ack_priority": True} if ack_priority else {}),
               **({"wcmp": True} if wcmp else {}), **({"components": True} if components else {}), "results": rows}
    if as_json:
        click.echo(json.dumps(payload))
    else:
        click.echo(f"loadbalance: {base.describe()}; {size} B per host; path MTU {mtu} B; "
                   f"{'PFC' if pfc else 'no PFC'}; {_CC_TEXT[cc]}; seed {seed}; "
                   + ("ACKs in a class served first; " if ack_priority else "")
                   + ("WCMP routes; " if wcmp else "") + ("symmetric components; " if components else "") +
                   f"event link {link[0]}-{link[1]}"
                   + (f" (slow: {slow_rate:.0%})" if "slow" in events else ""))
        click.echo(format_table(rows))
        click.echo("goodput in Gb/s (collectives: busbw); of bis.: of the bisection a perfect balancer gets; "
                   "ideal: what is left of it under the event")
        click.echo(format_cc_table(rows))
        click.echo("q: bytes waiting behind the frames the switches sent (p50, p99, max); slowdown: FCT over the "
                   "flow's alone on an idle fabric (mean, p99)")
        click.echo(f"wall clock: {time.perf_counter() - wall:.1f} s")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(payload, indent=2) + "\n")
