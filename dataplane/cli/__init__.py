"""The ``dataplane`` command: the group ``main``, its entry point ``run``, and a module per
command group, imported only when its command runs (``_LAZY``).

``network`` (``run``, ``topo``), ``serve``, ``scenario``, ``collective``, ``netns``
(``exec``, ``console``, ``cleanup``) and ``report`` are the commands; beside them ``options``
(click parameter types: sizes, durations, output files and folders), ``errors`` (how an error
is shown, and the exit status), ``programs`` (a program named on the command line, loaded),
``grpc_options`` (the P4Runtime server's options) and ``emit`` (``compile --emit-python``).
"""
from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

# No command does linear algebra; numpy's OpenBLAS would start a thread per core when numpy is
# imported (measured: 0.07 s of CPU on every command here). Set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click

from dataplane import __version__
from dataplane.cli.errors import error_message, report_internal, reported_errors
from dataplane.cli.options import SEED, FiniteFloat, MacroDefine, OutputDir, OutputFile, Processes, remove_unwritten
from dataplane.cli.programs import load_switch as _load_switch
from dataplane.cli.programs import make_policy, resolve_program, warning_options
from dataplane.errors import CompileError, DataplaneError, InternalError
from dataplane.progress import for_terminal


def _parse_defines(defines: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """The macros of the ``-D`` options (``MacroDefine`` checked each), the last one of a name winning."""
    return dict(defines)


# The front end's passes (lang.frontend.PASSES), named here so that --help imports no compiler.
_PASS_NAMES = ("preprocess", "parse", "check", "inline", "lint")

# -h as well as --help, on every command (subcommands inherit the context setting).
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


# The network commands, imported only when one runs (or ``--help`` lists them): run-packet and
# compile do not pay for their modules' imports and option decorators.
_LAZY = {"run": ("dataplane.cli.network", "run_command"), "topo": ("dataplane.cli.network", "topo_group"),
         "scenario": ("dataplane.cli.scenario", "scenario_group"),
         "collective": ("dataplane.cli.collective", "collective_command"), "serve": ("dataplane.cli.serve", "serve_command"),
         "report": ("dataplane.cli.report", "report_command"), "exec": ("dataplane.cli.netns", "exec_command"),
         "console": ("dataplane.cli.netns", "console_command"), "cleanup": ("dataplane.cli.netns", "cleanup_command")}


class _Commands(click.Group):
    """``dataplane``'s group: the commands defined here, and ``_LAZY``'s when asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *_LAZY})

    def invoke(self, ctx: click.Context):
        """The command, and after a failure (an error, a usage error, an interrupt) its new
        ``--out`` folders removed if nothing was written in them (``options.remove_unwritten``)."""
        try:
            return super().invoke(ctx)
        except SystemExit as exit_:
            if exit_.code not in (None, 0):
                remove_unwritten(ctx)
            raise
        except BaseException:
            remove_unwritten(ctx)
            raise

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in _LAZY:
            import importlib

            module, attr = _LAZY[name]
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)


@click.group(cls=_Commands, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="dataplane")
@click.pass_context
def main(ctx: click.Context) -> None:
    """dataplane: run P4_16 programs on an emulated data plane."""
    if ctx.invoked_subcommand != "run-packet":   # (which turns it on once its switch is loaded)
        _collect_garbage()


@main.command()
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
def compile(program: str, output: Path | None, check: bool, include_dirs: tuple[Path, ...],
            defines: tuple[tuple[str, str], ...], timings: bool, p4info: Path | None, device_config: Path | None,
            emit_python: Path | None, werror: bool, wno: tuple[str, ...], pp: Path | None = None,
            dump_after: str | None = None, max_compile_time: float | None = None) -> None:
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


def _collect_garbage() -> None:
    """The collector back on, what was made while it was off left out of its walks (``gc.freeze``)."""
    global _PAUSED_GC
    if _PAUSED_GC:
        _PAUSED_GC = False
        gc.freeze()
        gc.enable()


_PAUSED_GC = False


def run() -> None:
    """Entry point that turns any project error into a message and a status, never a traceback:
    1 for a user's error, 2 for a usage error (click), 3 for a bug in dataplane (``errors``).

    CPython's cyclic collector is off until the command has loaded what it runs, and what was
    made until then is frozen (``gc.freeze``): imports and a loaded program are objects that
    all stay alive, which it would only walk (about 4% of a ``run-packet``'s start)."""
    global _PAUSED_GC
    if sys.implementation.name == "cpython" and gc.isenabled():
        _PAUSED_GC = True
        gc.disable()
    try:
        main(standalone_mode=True)
    except InternalError as err:
        report_internal(err)
    except DataplaneError as err:
        click.echo(error_message(err), err=True)
        sys.exit(1)
    except BrokenPipeError:    # the reader of our output went away (``| head``): nothing to say
        sys.exit(1)
    except Exception as err:   # no layer made it a user-facing error: a bug, reported as one
        report_internal(err)


@main.command("test")
@click.argument("program")
@click.argument("stf", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seed", type=SEED, default=0, help="Seed of the switch's random source (0..2^64-1).")
@warning_options
@click.option("--engine", type=click.Choice(["auto", "batch", "packet"]), default="auto", show_default=True,
              help="auto: the batch (numpy) engine when it accepts the program, else per packet; "
                   "batch: fail if it does not; packet: the per-packet engine.")
@click.option("-v", "--verbose", is_flag=True, help="Say which engine ran and why.")
def test_command(program: str, stf: Path, seed: int, werror: bool, wno: tuple[str, ...], engine: str,
                 verbose: bool) -> None:
    """Run the STF packet test STF against PROGRAM, as p4c's BMv2 driver does; exit 1 on a mismatch."""
    from dataplane.testing.stf import load_stf
    from dataplane.testing.stf_runner import run_stf

    sw = _load_switch(program, None, make_policy(werror, wno), seed=seed)
    with reported_errors():
        result = run_stf(sw, load_stf(str(stf)), str(stf), engine=engine,
                         echo=click.echo if verbose else None)
    click.echo(f"{stf}: {result.report()}")
    sys.exit(0 if result.passed else 1)


@main.command("run-packet")
@click.argument("program")
@click.option("--entries", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Runtime JSON or simple_switch_CLI command file.")
@click.option("--port", type=click.IntRange(min=0), default=0, show_default=True, help="Ingress port.")
@click.option("--packet", "packet_hex", help="One packet as hex.")
@click.option("--pcap", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Packets from a pcap.")
@click.option("--out", type=OutputDir(), help="Write one pcap per egress port here.")
@click.option("--trace", is_flag=True, help="Print each packet's path through the pipeline.")
@warning_options
@click.option("--engine", type=click.Choice(["auto", "batch", "packet"]), default="auto", show_default=True,
              help="auto: the batch (numpy) engine when it accepts the program, else per packet; "
                   "batch: fail if it does not; packet: the per-packet engine.")
@click.option("--jobs", type=Processes(), default=None,
              help="Processes that replay a capture to pcaps, on either engine (at most the CPUs; default: up to 2, as the "
                   "CPUs allow); the pcaps and counters are the same with any number. A program with state "
                   "that depends on packet order (registers, meters, random, ...) runs on one; -v says why.")
@click.option("-v", "--verbose", is_flag=True, help="Say which engine ran and why, and how many jobs.")
def run_packet(program: str, entries: Path | None, port: int, packet_hex: str | None, pcap: Path | None,
               out: Path | None, trace: bool, werror: bool, wno: tuple[str, ...], engine: str, verbose: bool,
               jobs: int | None) -> None:
    """Send packets through one switch running PROGRAM and show what comes out."""
    from dataplane.replay.run import run_packets

    if (packet_hex is None) == (pcap is None):
        raise click.UsageError("give exactly one of --packet HEX or --pcap FILE")
    if entries is None and not Path(program).is_file():
        # A built-in program comes with its control-plane config: use it unless told otherwise.
        default = resolve_program(program).with_suffix(".json")
        entries = default if default.is_file() else None
    sw = _load_switch(program, entries, make_policy(werror, wno))
    _collect_garbage()
    with reported_errors(), for_terminal() as line:
        run_packets(sw, port, packet_hex=packet_hex, pcap=pcap, out=out, trace=trace,
                    echo=lambda text: line.echo(text, err=False), engine=engine, verbose=verbose, jobs=jobs)
