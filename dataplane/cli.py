"""The ``dataplane`` command."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from dataplane import __version__
from dataplane.errors import CompileError, DataplaneError


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


def _parse_defines(defines: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for d in defines:
        name, _, value = d.partition("=")
        out[name] = value or "1"
    return out


@click.group()
@click.version_option(__version__, prog_name="dataplane")
def main() -> None:
    """dataplane: run P4_16 programs on an emulated data plane."""


@main.command()
@click.argument("program")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the IR as JSON here.")
@click.option("--check", is_flag=True, help="Only check the program; print nothing on success.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="Add a directory to the #include <...> search path.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a preprocessor macro.")
@click.option("--timings", is_flag=True, help="Print how long each front-end pass took.")
def compile(program: str, output: Path | None, check: bool, include_dirs: tuple[Path, ...],
            defines: tuple[str, ...], timings: bool) -> None:
    """Compile PROGRAM (a .p4 file or a built-in program name) and summarise it."""
    from dataplane.ir.serialize import program_to_json
    from dataplane.ir.summary import summarize
    from dataplane.lang.frontend import compile_file

    path = resolve_program(program)
    try:
        result = compile_file(path, include_dirs=include_dirs, defines=_parse_defines(defines))
    except CompileError as err:
        click.echo(err.render(), err=True)
        n = len([d for d in err.diagnostics if d.severity == "error"])
        click.echo(f"{n} error{'s' if n != 1 else ''}", err=True)
        sys.exit(1)
    for w in result.warnings:
        click.echo(w.render(), err=True)
    if output is not None:
        output.write_text(program_to_json(result.program) + "\n")
    if not check:
        click.echo(summarize(result.program))
        if output is not None:
            click.echo(f"IR written to {output}")
    if timings:
        click.echo(" ".join(f"{k}={v * 1000:.1f}ms" for k, v in result.timings.items()), err=True)


def run() -> None:
    """Entry point that turns any project error into a message and a status, never a traceback."""
    try:
        main(standalone_mode=True)
    except DataplaneError as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(1)
