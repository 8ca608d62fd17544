"""``dataplane collective OP``: nccl-tests' table for a collective on a simulated fabric
(``dataplane.scenarios._collective`` runs it; this module reads the command line)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from dataplane.cli.errors import reported_errors
from dataplane.cli.options import OutputDir, fabric_options
from dataplane.net.collectives.algorithms import COLLECTIVES
from dataplane.scenarios._ranks import on_root, ranks_option, relaunch


def _positive_size(ctx: click.Context, param: click.Parameter, value: str) -> int:
    from dataplane.scenarios._collective import parse_size

    try:
        n = parse_size(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None
    if n < 1:
        raise click.BadParameter("must be at least 1 byte")
    return n


@click.command("collective", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("operation", type=click.Choice(list(COLLECTIVES)))
@click.option("--algo", "algorithm", default=None,
              help="Algorithm: allreduce ring|tree|hierarchical|ina, alltoall pairwise|direct, the others ring "
                   "(default: the first).")
@click.option("--topology", default="fat-tree", show_default=True,
              help="fat-tree, leaf-spine, dragonfly (generated), or a topology file (YAML, tutorial JSON).")
@fabric_options(k_max=32, leaves=(1, 255), spines_max=255, hosts_max=253, bandwidth_help="Host links' rate.")
@click.option("--sizes", default="8:16M", show_default=True,
              help="MIN:MAX in bytes, as nccl-tests' -b/-e (K, M, G are 1024-based; KB, MB, GB 1000-based).")
@click.option("--factor", default=2.0, show_default=True, type=click.FloatRange(1.0, 1024.0, min_open=True),
              help="Each size is the last times FACTOR (nccl-tests' -f).")
@click.option("--gpus", default=None, metavar="N|H1,H2,...",
              help="The ranks: the first N hosts, or hosts by name in rank order (default: every host).")
@click.option("--channels", default=1, show_default=True, type=click.IntRange(1, 32),
              help="Parallel rings/trees (NCCL's channels), each on its own connections.")
@click.option("--slice", "slice_text", default="512KiB", show_default=True, callback=_positive_size,
              help="The pipelining unit of a step (NCCL's chunk).")
@click.option("--mtu", default=4096, show_default=True, type=click.IntRange(256, 8192),
              help="The path MTU of the RDMA transport (payload bytes per packet).")
@click.option("--pfc/--no-pfc", default=True, show_default=True, help="PFC on every switch (a lossless fabric).")
@click.option("--cc", default="none", show_default=True, type=click.Choice(["none", "dcqcn"]),
              help="Host congestion control; dcqcn also marks ECN on the switches.")
@click.option("--root", default=0, show_default=True, type=click.IntRange(min=0), help="Broadcast's root rank.")
@click.option("--check-max", default="1M", show_default=True, callback=_positive_size,
              help="Check the results against numpy at sizes up to this (data moved for real).")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, 2**32 - 1),
              help="Seed of the fabric's randomness (ECN marks, loss) and of the checked data.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--out", type=OutputDir(), help="Write results.json and a busbw plot here.")
@ranks_option
def _command(operation: str, algorithm: str | None, topology: str, k: int, leaves: int, spines: int,
                       hosts_per_leaf: int, bandwidth: str, fabric_bandwidth: str | None, latency: str, sizes: str,
                       factor: float, gpus: str | None, channels: int, slice_text: int, mtu: int, pfc: bool, cc: str,
                       root: int, check_max: int, seed: int, as_json: bool, out: Path | None, ranks: int = 1) -> None:
    """Run collective OPERATION on a simulated fabric at each size and print nccl-tests' table:
    time, algbw and busbw (GB/s, nccl-tests' definitions), #wrong against numpy, and the busbw the
    topology allows the algorithm (its busiest link at line rate) with how close the run came.
    Simulated time: the same options give the same table, on any number of --ranks (MPI)."""
    from dataplane.net.apps.dcqcn_profiles import DEFAULT_PROFILE, get_profile
    from dataplane.net.core.units import UnitError, parse_rate, parse_time
    from dataplane.net.rdma import TransportConfig
    from dataplane.scenarios._collective import CollectiveConfig, format_table, result_json, run_size, size_list
    from dataplane.scenarios.fabric import FabricConfig

    try:
        size_values = size_list(sizes, factor)
        rate = parse_rate(bandwidth)
        parse_time(latency)
        if fabric_bandwidth is not None:
            parse_rate(fabric_bandwidth)
    except (ValueError, UnitError) as err:
        raise click.UsageError(str(err)) from None
    if topology == "fat-tree" and k % 2:
        raise click.BadParameter(f"k must be even, got {k}", param_hint="--k")
    from dataplane.scenarios.fabric import GENERATED

    if topology not in GENERATED and not Path(topology).is_file():
        from dataplane.resources import builtin_topology

        try:
            builtin_topology(topology)
        except FileNotFoundError:
            raise click.BadParameter(f"{topology!r} is neither a generated fabric ({', '.join(GENERATED)}) nor a "
                                     f"topology file or built-in topology", param_hint="--topology") from None
    chosen: list[str] | int | None = None
    if gpus is not None:
        chosen = int(gpus) if gpus.strip().isdigit() else [g.strip() for g in gpus.split(",") if g.strip()]
    dcqcn = get_profile(DEFAULT_PROFILE).at_rate(rate).params if cc == "dcqcn" else None
    try:
        fabric = FabricConfig(topology=topology, k=k, leaves=leaves, spines=spines, hosts_per_leaf=hosts_per_leaf,
                              bandwidth=bandwidth, fabric_bandwidth=fabric_bandwidth, latency=latency,
                              mtu=max(9000, mtu + 100), pfc=pfc, ecn=cc == "dcqcn", seed=seed)
        cfg = CollectiveConfig(operation, algorithm, fabric, chosen, channels, slice_text,
                               TransportConfig(mtu=mtu, dcqcn=dcqcn), root, check_max, seed)
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    relaunch(ranks)
    from dataplane import progress

    rows = []
    for i, size in enumerate(size_values, 1):
        progress.stage(f"collective {operation} {cfg.algorithm}: size {size} B ({i} of {len(size_values)})")
        with reported_errors():          # a topology file's located errors: exit 1
            try:
                row = run_size(cfg, size)
            except ValueError as err:
                raise click.UsageError(str(err)) from None
        if row is not None:
            rows.append(row)
    if not on_root():
        return
    ranks_used = rows[0]["ranks"] if rows else 0
    payload = result_json(cfg, rows)
    if as_json:
        click.echo(json.dumps(payload))
    else:
        click.echo(format_table(cfg, rows, ranks_used))
    if out is not None:
        from dataplane.scenarios._collective_plot import busbw_figure, plot_busbw

        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps({"results": rows, **payload, "figures": busbw_figure(cfg, rows)},
                                                     indent=2) + "\n")
        plot_busbw(cfg, rows, out / "busbw.png")


def _reported() -> click.Command:
    from dataplane.cli.scenario import _with_report

    return _with_report(_command)


#: what ``dataplane collective`` runs: the command with ``--report FILE.html``, as every scenario has
collective_command = _reported()
