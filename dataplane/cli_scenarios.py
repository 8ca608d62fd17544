"""``dataplane scenario NAME``: the built-in experiments, each a module in ``dataplane.scenarios``.

A scenario module defines a click command named ``command``; it is imported only when
used, so ``dataplane --help`` stays fast.
"""
from __future__ import annotations

import importlib
import pkgutil

import click

import dataplane.scenarios as scenarios_pkg


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
        return getattr(mod, "command", None)


def _has_command(module: str) -> bool:
    try:
        return hasattr(importlib.import_module(f"dataplane.scenarios.{module}"), "command")
    except Exception:
        return False


@click.group("scenario", cls=ScenarioGroup)
def scenario_group() -> None:
    """Built-in experiments that measure what a program buys (failover, ECN, allreduce, VXLAN)."""
