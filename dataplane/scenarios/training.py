"""``dataplane scenario training``: what the network costs a training job, and what goes wrong.

A job (``dataplane.net.training.job``: a job file, or a built-in one from ``jobs/``) runs on a
fabric (``scenarios.fabric``) with one GPU per host: its communicators (data-parallel groups,
tensor groups, the pipeline's point-to-point), every GPU's program (``training.program``), and
the step decomposition per step and per GPU (``training.measure``). Then the same job again under
each fault asked for (``--what-if``), every one against the clean run:

* ``degraded``: one link at a fraction of its rate (degraded optics; default: the first GPU's
  host link at 50%);
* ``flap``: one link down for a time, then up (default: the first GPU's host link, 10 ms from the
  middle of the clean run's second step; a generated fabric's routes are static, so traffic
  hashed onto a failed fabric link waits for it, as in a fabric without fast reroute);
* ``straggler``: one GPU's compute slower by a factor (default: the last GPU, 1.5x);
* ``tenant``: another tenant's UDP flows at a rate across the fabric, host i to host i + n/2
  (default 25 Gbps each, every host but the job's first sending);
* ``loss``: random loss on every link (default 0.1%), recovered by the transport's go-back-N;
* ``down`` (asked for by name, not in the default list): one fabric link down from the start, the
  routes converged without it (default: the first GPU's rack's first uplink).

The fabric's load balancing is the job file's ``lb:`` (``dataplane.net.training.job``), or
``--lb`` (ecmp, flowlet, spray, adaptive, reps; ``dataplane scenario loadbalance`` compares them), with
``--receiver`` (gbn or sack; sack by default with a scheme), so a job's step time can be compared
across schemes and faults.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import click

from dataplane.cli.options import OutputDir
from dataplane.scenarios._ranks import on_root, ranks_option, relaunch

WHAT_IFS = ("degraded", "flap", "straggler", "tenant", "loss", "down")
DEFAULT_WHAT_IFS = WHAT_IFS[:5]


def _load(job: str):
    from dataplane.net.training.job import load_job
    from dataplane.resources import builtin_job

    path = Path(job)
    if not path.exists():
        try:
            path = builtin_job(job)
        except FileNotFoundError:
            raise click.BadParameter(f"{job!r} is neither a job file nor a built-in job (jobs/: dp16, dp128, 3d16)",
                                     param_hint="JOB") from None
    return load_job(path)


@click.command("training")
@click.argument("job", default="dp16")
@click.option("--topology", default="fat-tree", show_default=True,
              help="fat-tree, leaf-spine, dragonfly (generated), or a topology file.")
@click.option("--k", default=None, type=click.IntRange(2, 32),
              help="The fat-tree's k (default: the smallest that holds the job's GPUs).")
@click.option("--bandwidth", default="100Gbps", show_default=True, help="Host links' rate.")
@click.option("--latency", default="1us", show_default=True, help="Every link's latency.")
@click.option("--pfc/--no-pfc", default=True, show_default=True, help="PFC on every switch.")
@click.option("--what-if", "what_if", default=",".join(DEFAULT_WHAT_IFS), show_default=True,
              help=f"Faults to run against the clean run, comma-separated: {', '.join(WHAT_IFS)} (or none).")
@click.option("--degraded-rate", default=0.5, show_default=True, type=click.FloatRange(0.01, 1.0),
              help="degraded: the link's share of its rate.")
@click.option("--flap-for", "flap_ns", default="10ms", show_default=True, help="flap: how long the link is down.")
@click.option("--fault-link", default=None, metavar="A,B",
              help="The link that degrades, flaps or goes down, by its two nodes (default: the first GPU's host "
                   "link; down: its rack's first uplink).")
@click.option("--slowdown", default=1.5, show_default=True, type=click.FloatRange(1.0, 100.0),
              help="straggler: how much slower its compute is.")
@click.option("--straggler", "straggler_gpu", default=None, type=click.IntRange(min=0),
              help="straggler: which GPU (default: the last).")
@click.option("--tenant-rate", default="25Gbps", show_default=True, help="tenant: each flow's rate.")
@click.option("--loss", default=0.001, show_default=True, type=click.FloatRange(0.0, 0.5, max_open=True),
              help="loss: the chance a frame is lost on each link.")
@click.option("--lb", "lb_scheme", default=None, type=click.Choice(["ecmp", "flowlet", "spray", "adaptive", "reps"]),
              help="The fabric's load-balancing program (default: the job file's lb, else ecn.p4's ECMP).")
@click.option("--receiver", default=None, type=click.Choice(["gbn", "sack"]),
              help="The transport's receiver (default: the job file's; sack with a scheme, else gbn).")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0, 2**32 - 1),
              help="Seed of the fabric's randomness (ECN marks, loss) and of the checked data.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--out", type=OutputDir(), help="Write results.json and the GPUs' timeline here.")
@ranks_option
def command(job: str, topology: str, k: int | None, bandwidth: str, latency: str, pfc: bool, what_if: str,
            degraded_rate: float, flap_ns: str, fault_link: str | None, slowdown: float, straggler_gpu: int | None,
            tenant_rate: str, loss: float, lb_scheme: str | None, receiver: str | None, seed: int, as_json: bool,
            out: Path | None, ranks: int = 1) -> None:
    """Run a training JOB (a job file, or a built-in job: dp16, dp128, 3d16) on the fabric and report
    each step's compute, communication, exposed communication, step time and GPU idle fraction,
    then the same job under each --what-if fault against the clean run."""
    from dataplane.cli.errors import reported_errors
    from dataplane.net.core.units import UnitError, parse_rate, parse_time
    from dataplane.scenarios.fabric import FabricConfig
    from dataplane.scenarios.training_run import Fault, format_results, run_job

    with reported_errors():
        spec = _load(job)
    if lb_scheme is not None:
        from dataplane.net.loadbalance.schemes import LbConfig

        spec.lb = LbConfig(lb_scheme)
        spec.receiver = "sack"
    if receiver is not None:
        spec.receiver = receiver
    if spec.lb is not None and spec.lb.host_entropy and spec.receiver != "sack":
        raise click.BadParameter("reps sprays from the hosts and needs the sack receiver", param_hint="--receiver")
    if spec.lb is not None and spec.lb.window_counts == "pipe" and spec.receiver != "sack":
        raise click.BadParameter("the job's lb counts its window as the pipe, which needs the sack receiver",
                                 param_hint="--receiver")
    chosen = [w.strip() for w in what_if.split(",") if w.strip() and w.strip() != "none"]
    for w in chosen:
        if w not in WHAT_IFS:
            raise click.BadParameter(f"unknown fault {w!r} (one of {', '.join(WHAT_IFS)})", param_hint="--what-if")
    try:
        flap = parse_time(flap_ns)
        tenant_bps = parse_rate(tenant_rate)
        parse_rate(bandwidth)
        parse_time(latency)
    except UnitError as err:
        raise click.UsageError(str(err)) from None
    link = tuple(x.strip() for x in fault_link.split(",")) if fault_link else None
    if link is not None and len(link) != 2:
        raise click.BadParameter("name a link by its two nodes, e.g. h1,edge1_1", param_hint="--fault-link")
    count = spec.gpus if isinstance(spec.gpus, int) else len(spec.gpus)
    if k is None:
        k = 2
        while k ** 3 // 4 < count and k < 32:
            k += 2
    if k % 2:
        raise click.BadParameter(f"k must be even, got {k}", param_hint="--k")
    fabric = FabricConfig(topology=topology, k=k, bandwidth=bandwidth, latency=latency, pfc=pfc, seed=seed)
    faults = [Fault("clean")]
    for w in chosen:
        faults.append(Fault(w, link=link, rate=degraded_rate, down_ns=flap, slowdown=slowdown,
                            gpu=straggler_gpu, tenant_bps=tenant_bps, loss=loss))
    relaunch(ranks)
    wall = time.perf_counter()
    results = []
    for fault in faults:
        clean = results[0] if results else None
        with reported_errors():
            try:
                results.append(run_job(spec, fabric, fault, clean))
            except ValueError as err:
                raise click.UsageError(str(err)) from None
    if not on_root():
        return
    payload = {"job": spec.name, "gpus": count, "fabric": fabric.describe(),
               "lb": spec.lb.describe() if spec.lb is not None else None, "receiver": spec.receiver,
               "results": [r.summary() for r in results],
               "clean_steps": results[0].steps}
    if as_json:
        click.echo(json.dumps(payload))
    else:
        click.echo(format_results(spec, fabric, results))
        click.echo(f"wall clock: {time.perf_counter() - wall:.1f} s")
    if out is not None:
        from dataplane.scenarios.training_plots import plot_timelines

        out.mkdir(parents=True, exist_ok=True)
        figures = [{"kind": "timeline", "title": f"{r.fault.kind}: {r.description}",
                    "rows": [{"name": f"GPU {g}", "spans": t} for g, t in enumerate(r.timelines[:16])]}
                   for r in results]
        (out / "results.json").write_text(json.dumps({**payload, "gpus_clean": results[0].per_gpu,
                                                      "figures": figures}, indent=2) + "\n")
        plot_timelines(results, out / "timeline.png")

