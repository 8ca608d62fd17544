"""``dataplane scenario NAME``: the built-in experiments, each a module in ``dataplane.scenarios``.

A scenario module defines a click command named ``command``; it is imported only when
used, so ``dataplane --help`` stays fast.
"""
from __future__ import annotations

import functools
import importlib
import pkgutil

import click

import dataplane.scenarios as scenarios_pkg
from dataplane.cli_types import OutputFile


class ScenarioGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(scenarios_pkg.__path__)
                      if not m.name.startswith("_") and _has_command(m.name))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = name.replace("-", "_")
        try:
            mod = importlib.import_module(f"dataplane.scenarios.{module}")
        except ModuleNotFoundError:
            return None
        command = getattr(mod, "command", None)
        return _with_report(command) if command is not None else None


def _with_report(command: click.Command) -> click.Command:
    """Give a scenario's command ``--report FILE.html``, and make its ``--out`` keep report.json
    (``dataplane.report.scenario``); done once per command object."""
    if any(p.name == "report" for p in command.params):
        return command
    command.params.append(click.Option(
        ["--report"], type=OutputFile(), default=None,
        help="Write the HTML report of every network the scenario ran here (one file that opens offline)."))
    callback = command.callback

    @functools.wraps(callback)
    def reported(report=None, **kwargs):
        from dataplane.cli_report import write_page
        from dataplane.report.scenario import run_reported

        return run_reported(command.name, callback, kwargs, report, write_page)

    command.callback = reported
    return command


def _has_command(module: str) -> bool:
    try:
        return hasattr(importlib.import_module(f"dataplane.scenarios.{module}"), "command")
    except Exception:
        return False


@click.group("scenario", cls=ScenarioGroup)
def scenario_group() -> None:
    """Built-in experiments that measure what a program buys (failover, ECN, allreduce, VXLAN)."""
