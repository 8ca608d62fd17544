"""Programs named on the command line: a .p4 path or a built-in program, loaded as a switch.

Shared by ``dataplane`` subcommands in several modules (``cli``, ``cli_serve``), so that
none of them imports another.
"""
from __future__ import annotations

from pathlib import Path

import click

from dataplane.cli_errors import reported_errors


def resolve_program(name: str) -> Path:
    """A path to a P4 file, or the name of a built-in program (``ipv4_router``)."""
    path = Path(name)
    if path.is_file():
        return path
    from dataplane.resources import builtin_program

    try:
        return builtin_program(name)
    except FileNotFoundError:
        raise click.BadParameter(f"no such file, and no built-in program named {name!r}", param_hint="PROGRAM")


def load_switch(program: str, entries: Path | None):
    """Load PROGRAM (see ``resolve_program``) with ``entries``; errors become messages and exit 1."""
    from dataplane.control.loader import load_entries
    from dataplane.control.switch import Switch

    path = resolve_program(program)
    with reported_errors():
        sw = Switch.from_file(path)
        warnings = load_entries(sw, entries) if entries is not None else []
    for w in warnings:
        click.echo(f"warning: {w}", err=True)
    return sw
