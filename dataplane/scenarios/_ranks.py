"""``--ranks N`` for the scenarios that run on several MPI ranks (incast, allreduce).

The command starts itself again under ``mpiexec -n N`` (``dataplane.net.parallel.launch``); each
rank builds every network with ``parallel.session.build_network``, runs its part, and
``gather_results`` brings the results to rank 0, which alone prints and writes files.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

import click

RANKS_HELP = ("Simulate on N MPI ranks (runs mpiexec -n N; the same results, byte for byte, as one), at most "
              "the CPUs this process may run on. Needs MPI and mpi4py.")


def ranks_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--ranks N`` option (default 1), and ``--oversubscribe`` (kept in the context for
    ``relaunch``, so the commands' signatures need not change)."""
    f = click.option("--oversubscribe", is_flag=True, expose_value=False, callback=_keep_oversubscribe,
                     help="Allow --ranks above the CPUs (the ranks take turns on them).")(f)
    return click.option("--ranks", type=click.IntRange(min=1), default=1, show_default=True, help=RANKS_HELP)(f)


def _keep_oversubscribe(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    ctx.meta["dataplane.oversubscribe"] = value


def relaunch(ranks: int) -> None:
    """Asked for ``ranks`` > 1 in one process: run this command under mpiexec and exit with its
    status. Under mpiexec (or for one rank) return, to run here."""
    from dataplane.net.parallel import launch
    from dataplane.net.parallel.runtime import ParallelError

    ctx = click.get_current_context(silent=True)
    oversubscribe = bool(ctx and ctx.meta.get("dataplane.oversubscribe"))
    try:
        status = launch.relaunch(ranks, oversubscribe=oversubscribe)
    except ParallelError as err:
        raise click.UsageError(str(err)) from None
    if status is not None:
        sys.exit(status)


def on_root() -> bool:
    """True in one process and on rank 0 of several: the process that prints and writes."""
    from dataplane.net.parallel.session import on_root as root

    return root()
