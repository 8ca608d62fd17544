"""Programs named on the command line: a .p4 path or a built-in program, loaded as a switch.

Shared by ``dataplane`` subcommands in several modules (``compile``, ``packet``, ``serve``,
``network``), so that none of them imports another.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

import click

from dataplane.cli.errors import reported_errors
from dataplane.diagnostics import WARNINGS, WarningPolicy


def warning_options(fn: Callable) -> Callable:
    """``--Werror`` and ``--Wno CODE`` on a command that compiles programs; they reach it as
    ``werror`` and ``wno`` (see ``make_policy``)."""
    fn = click.option("--Wno", "wno", multiple=True, type=click.Choice(sorted(WARNINGS)), metavar="CODE",
                      help=f"Do not report warning CODE ({', '.join(WARNINGS)}); may be repeated.")(fn)
    fn = click.option("--Werror", "werror", is_flag=True, help="Treat warnings as errors (exit status 1).")(fn)
    return fn


def make_policy(werror: bool, wno: Iterable[str]) -> WarningPolicy:
    """The warning policy the ``--Werror``/``--Wno`` options ask for."""
    return WarningPolicy(frozenset(wno), werror)


def check_topology_programs(spec: Any, policy: WarningPolicy) -> None:
    """Compile every program a topology names under ``policy`` (``run --Werror``), printing warnings."""
    paths = [s.program for s in spec.switches.values()] + [d.program for d in spec.dpus.values()]
    paths += [h.xdp.program for h in spec.hosts.values() if getattr(h, "xdp", None) is not None]
    for path in dict.fromkeys(paths):
        compile_checked(path, policy)


def compile_checked(path: Path, policy: WarningPolicy, **kwargs: Any):
    """Compile ``path`` under ``policy`` (through the compile cache, ``dataplane.lang.compile_cache``),
    print its warnings; errors are reported and exit 1."""
    from dataplane.lang.compile_cache import compile_file_cached

    with reported_errors():
        result = compile_file_cached(path, warnings=policy, **kwargs)
    for w in result.warnings:
        click.echo(w.render(), err=True)
    return result


def resolve_program(name: str) -> Path:
    """A path to a P4 file, or the name of a built-in program (``ipv4_router``)."""
    path = Path(name)
    if path.is_file():
        return path
    from dataplane.resources import builtin_program

    try:
        return builtin_program(name)
    except FileNotFoundError:
        raise click.BadParameter(f"no such file, and no built-in program named {name!r}",
                                 param_hint="PROGRAM") from None


def load_switch(program: str, entries: Path | None, policy: WarningPolicy | None = None, *, seed: int = 0):
    """Load PROGRAM (see ``resolve_program``) with ``entries`` and a random source seeded with
    ``seed``; errors become messages and exit 1. The program's warnings are printed, under
    ``policy`` (``--Werror``, ``--Wno``)."""
    from dataplane.control.loader import load_entries
    from dataplane.control.switch import Switch
    from dataplane.progress import for_terminal

    path = resolve_program(program)
    with for_terminal():      # a large program compiles for seconds: name its passes
        result = compile_checked(path, policy or WarningPolicy())
    with reported_errors():
        sw = Switch(result.program, seed=seed)
        warnings = load_entries(sw, entries) if entries is not None else []
    for w in warnings:
        click.echo(f"warning: {w}", err=True)
    return sw


def print_programs(spec: Any) -> None:
    """``dataplane run``: which program each switch runs, and why (dataplane.net.topology.programs), before the run."""
    from dataplane.net.topology.programs import describe, reason
    from dataplane.progress import echo

    for group in describe(spec.switches):
        echo(f"{', '.join(group['switches'])}: {group['program']} ({reason(group)})", err=False)


def programs_json(spec: Any) -> dict:
    """``--json``'s "programs": switch -> {"program", "named" (what the topology names, or null),
    "given" (true: a --program)}."""
    from dataplane.net.topology.programs import display_path

    return {name: {"program": display_path(sw.program), "named": sw.named_program, "given": sw.program_given}
            for name, sw in spec.switches.items()}
