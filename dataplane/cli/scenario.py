"""``dataplane scenario NAME``: the built-in experiments, each a module in ``dataplane.scenarios``.

A scenario module defines a click command named ``command``; it is imported only when
used, so ``dataplane --help`` stays fast.
"""
from __future__ import annotations

import copy
import functools
import importlib
import pkgutil

import click

import dataplane.scenarios as scenarios_pkg
from dataplane.cli.options import OutputFile


class ScenarioGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(scenarios_pkg.__path__)
                      if not m.name.startswith("_") and _has_command(m.name))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = f"dataplane.scenarios.{name.replace('-', '_')}"
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:   # the scenario exists but something it imports does not: a bug
                raise
            return None
        command = getattr(mod, "command", None)
        return _with_report(command) if command is not None else None


_REPORTED: dict[int, click.Command] = {}


def _with_report(command: click.Command) -> click.Command:
    """The scenario's command as ``dataplane scenario`` runs it: a copy with ``--report FILE.html``
    whose ``--out`` also keeps report.json (``dataplane.report.scenario``). The module's own
    ``command`` is left as it is."""
    if id(command) in _REPORTED:
        return _REPORTED[id(command)]
    reported_command = copy.copy(command)
    reported_command.params = [*command.params, click.Option(
        ["--report"], type=OutputFile(), default=None,
        help="Write the HTML report of every network the scenario ran here (one file that opens offline); "
             "--out also keeps its data, report.json, for `dataplane report`.")]
    callback = command.callback

    @functools.wraps(callback)
    def reported(report=None, **kwargs):
        from dataplane.cli.report import write_page
        from dataplane.net.parallel.session import mpi_world_size
        from dataplane.progress import for_terminal
        from dataplane.report.scenario import run_reported

        if kwargs.get("ranks", 1) > 1 and mpi_world_size() <= 1:
            return callback(**kwargs)       # starts the ranks under mpiexec (with --report), and waits
        # A progress line on a terminal (quiet under --json, and when several ranks share it) for
        # the stages the scenario names.
        with for_terminal(quiet=bool(kwargs.get("as_json")) or mpi_world_size() > 1) as line:
            line.stage(f"scenario {command.name}: setting up")
            return run_reported(command.name, callback, kwargs, report, write_page)

    reported_command.callback = reported
    _REPORTED[id(command)] = reported_command
    return reported_command


def _has_command(module: str) -> bool:
    # A scenario module that fails to import is a bug to report (the CLI does, exit 3), not a
    # scenario to leave out of the listing without a word, as pre-commit's error handler holds.
    return hasattr(importlib.import_module(f"dataplane.scenarios.{module}"), "command")


@click.group("scenario", cls=ScenarioGroup)
def scenario_group() -> None:
    """Built-in experiments that measure what a program buys (failover, ECN, allreduce, VXLAN)."""
