"""``dataplane compile``: a program through the front end, summarised, and what it can write
(the IR as JSON, the program printed back, P4Info, the device config, the generated Python)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from dataplane.cli.errors import reported_errors
from dataplane.cli.options import FiniteFloat, MacroDefine, OutputFile
from dataplane.cli.programs import make_policy, resolve_program, warning_options
from dataplane.errors import CompileError
from dataplane.progress import for_terminal


def _parse_defines(defines: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """The macros of the ``-D`` options (``MacroDefine`` checked each), the last one of a name winning."""
    return dict(defines)


# The front end's passes (lang.frontend.PASSES), named here so that --help imports no compiler.
_PASS_NAMES = ("preprocess", "parse", "check", "inline", "lint")


@click.command("compile")
@click.argument("program")
@click.option("-o", "--output", type=OutputFile(), help="Write the IR as JSON here.")
@click.option("--check", is_flag=True, help="Only check the program; print nothing on success.")
@click.option("-I", "include_dirs", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="Add a directory to the #include <...> search path.")
@click.option("-D", "defines", multiple=True, type=MacroDefine(),
              help="Define a preprocessor macro (VALUE 1 if not given), as cpp's -D.")
@click.option("--timings", is_flag=True, help="Print how long each front-end pass took.")
@click.option("--pp", type=OutputFile(), help="Write the program printed back as P4_16 (its parse tree) here.")
@click.option("--dump-after", type=click.Choice(_PASS_NAMES), metavar="PASS",
              help=f"Stop after front-end pass PASS ({', '.join(_PASS_NAMES)}) and print what it made: "
                   "the preprocessed text, the parse tree as P4, or the program IR as JSON.")
@click.option("--p4info", type=OutputFile(),
              help="Write the program's P4Info (p4c's ids and names) here: text (.txtpb, .txt), "
                   "binary (.bin, .pb) or JSON (.json) by the extension.")
@click.option("--device-config", type=OutputFile(),
              help="Write the P4Runtime device config (the preprocessed program) here.")
@click.option("--emit-python", type=OutputFile(),
              help="Write the generated Python pipeline module here, its lines commented with their P4 positions.")
@click.option("--max-compile-time", type=FiniteFloat(min=0, min_open=True), metavar="SECONDS",
              help="Stop with an error if the front end takes longer than this (default: no limit; "
                   "size, macro expansion and nesting are bounded regardless).")
@warning_options
def compile_command(program: str, output: Path | None, check: bool, include_dirs: tuple[Path, ...],
                    defines: tuple[tuple[str, str], ...], timings: bool, p4info: Path | None,
                    device_config: Path | None, emit_python: Path | None, werror: bool, wno: tuple[str, ...],
                    pp: Path | None = None, dump_after: str | None = None,
                    max_compile_time: float | None = None) -> None:
    """Compile PROGRAM (a .p4 file or a built-in program name) and summarise it."""
    from dataplane.lang.bounded import deep_call
    from dataplane.lang.frontend import compile_file
    from dataplane.lang.limits import CompileLimits

    path = resolve_program(program)
    limits = CompileLimits(seconds=max_compile_time)
    try:
        with for_terminal():
            result = compile_file(path, include_dirs=include_dirs, defines=_parse_defines(defines),
                                  warnings=make_policy(werror, wno), stop_after=dump_after, limits=limits)
    except CompileError as err:
        click.echo(err.render(), err=True)
        n = len([d for d in err.diagnostics if d.severity == "error"])
        click.echo(f"{n} error{'s' if n != 1 else ''}", err=True)
        sys.exit(1)
    # What the outputs walk nests as deep as the front end let it: give them the same room.
    deep_call(lambda: _outputs(result, path, include_dirs, _parse_defines(defines), output, check, timings, p4info,
                               device_config, emit_python, pp, dump_after), limits.nesting)


def _outputs(result, path: Path, include_dirs: tuple[Path, ...], defines: dict[str, str], output: Path | None,
             check: bool, timings: bool, p4info: Path | None, device_config: Path | None, emit_python: Path | None,
             pp: Path | None, dump_after: str | None) -> None:
    """What ``compile`` prints and writes once the program compiled."""
    from dataplane.ir.serialize import program_to_json
    from dataplane.ir.summary import summarize
    from dataplane.lang.frontend import format_timings, printed_source

    for w in result.warnings:
        click.echo(w.render(), err=True)
    if pp is not None and result.syntax is not None:
        pp.write_text(printed_source(result, defines))
    if dump_after is not None:
        _dump(result, dump_after, defines)
        if timings:
            click.echo(format_timings(result.timings), err=True)
        return
    with reported_errors():
        if output is not None:
            output.write_text(program_to_json(result.program) + "\n")
        if p4info is not None:
            _write_p4info(result.program, p4info)
        if device_config is not None:
            from dataplane.control.device_config import make_device_config

            device_config.write_bytes(make_device_config(path, include_dirs=include_dirs, defines=defines,
                                                         arch=getattr(result.program, "architecture", "v1model")))
        if emit_python is not None:
            from dataplane.cli.emit import write_python

            write_python(result.program, emit_python)
    if not check:
        click.echo(summarize(result.program))
        if output is not None:
            click.echo(f"IR written to {output}")
        if emit_python is not None:
            click.echo(f"Python pipeline written to {emit_python}")
    if timings:
        click.echo(format_timings(result.timings), err=True)


def _dump(result, after: str, defines: dict[str, str]) -> None:
    """What pass ``after`` made, on stdout (``--dump-after``)."""
    from dataplane.ir.serialize import program_to_json
    from dataplane.lang.frontend import printed_source

    if after == "preprocess":
        click.echo(result.source.text, nl=False)
    elif after == "parse":
        click.echo(printed_source(result, defines), nl=False)
    else:
        click.echo(program_to_json(result.program))


def _write_p4info(program, path: Path) -> None:
    try:
        from dataplane.control.p4info import build_p4info, write_p4info
    except (ImportError, TypeError) as err:   # PyPy has no p4runtime wheels; TypeError: a protobuf it does not fit
        raise click.ClickException(f"--p4info needs the 'p4runtime' package ({err}); "
                                   "install it with pip install p4runtime (CPython only)") from None
    write_p4info(build_p4info(program), path)
