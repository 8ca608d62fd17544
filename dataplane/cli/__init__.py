"""The ``dataplane`` command: the group ``main``, its entry point ``run``, and a module per
command group, imported only when its command runs (``_LAZY``).

``compile``, ``packet`` (``run-packet``, ``test``), ``network`` (``run``), ``topo``,
``serve``, ``scenario``, ``collective``, ``netns`` (``exec``, ``console``, ``cleanup``) and
``report`` are the commands; beside them ``options``
(click parameter types: sizes, durations, output files and folders), ``errors`` (how an error
is shown, and the exit status), ``programs`` (a program named on the command line, loaded),
``grpc_options`` (the P4Runtime server's options), ``emit`` (``compile --emit-python``) and
``pypy_gc`` (on PyPy, the command started again with a larger nursery: ``entry``).
"""
from __future__ import annotations

import os
import sys

# No command does linear algebra; numpy's OpenBLAS would start a thread per core when numpy is
# imported (measured: 0.07 s of CPU on every command here). Set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click

from dataplane import __version__
from dataplane.cli.errors import error_message, report_internal
from dataplane.cli.options import remove_unwritten
from dataplane.cli.pypy_gc import relaunch_with_nursery
from dataplane.errors import DataplaneError, InternalError
from dataplane.gc_pause import end_startup_pause, pause_for_startup

# -h as well as --help, on every command (subcommands inherit the context setting).
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


# Every command's module, imported only when it runs (or ``--help`` lists them): run-packet and
# compile do not pay for the network commands' imports and option decorators.
_LAZY = {
    "compile": ("dataplane.cli.compile", "compile_command"),
    "run-packet": ("dataplane.cli.packet", "run_packet"),
    "test": ("dataplane.cli.packet", "test_command"),
    "run": ("dataplane.cli.network", "run_command"),
    "topo": ("dataplane.cli.topo", "topo_group"),
    "serve": ("dataplane.cli.serve", "serve_command"),
    "scenario": ("dataplane.cli.scenario", "scenario_group"),
    "collective": ("dataplane.cli.collective", "collective_command"),
    "report": ("dataplane.cli.report", "report_command"),
    "exec": ("dataplane.cli.netns", "exec_command"),
    "console": ("dataplane.cli.netns", "console_command"),
    "cleanup": ("dataplane.cli.netns", "cleanup_command"),
}


class _Commands(click.Group):
    """``dataplane``'s group: ``_LAZY``'s commands, each added when asked for."""

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


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the version, and whether this install compiled the simulator's hot modules."""
    if not value or ctx.resilient_parsing:
        return
    from dataplane.compiled import MODULES, compiled_modules

    n = len(compiled_modules())
    how = f"{n} of {len(MODULES)} compiled with mypyc" if n else "pure Python (DATAPLANE_COMPILE=1 at install compiles them)"
    click.echo(f"dataplane, version {__version__}\nsimulator's hot modules: {how}")
    ctx.exit()


@click.group(cls=_Commands, context_settings=CONTEXT_SETTINGS)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version (and whether the simulator is compiled) and exit.")
@click.pass_context
def main(ctx: click.Context) -> None:
    """dataplane: run P4_16 programs on an emulated data plane."""
    if ctx.invoked_subcommand != "run-packet":   # (which turns it on once its switch is loaded)
        end_startup_pause()


def run() -> None:
    """Entry point that turns any project error into a message and a status, never a traceback:
    1 for a user's error, 2 for a usage error (click), 3 for a bug in dataplane (``errors``).

    CPython's cyclic collector is off until the command has loaded what it runs, and what was
    made until then is frozen (``gc_pause.end_startup_pause``): imports and a loaded program are objects that
    all stay alive, which it would only walk (about 4% of a ``run-packet``'s start)."""
    pause_for_startup()
    try:
        _run_main()
    except SystemExit as exit_:
        if exit_.code and "mpi4py.MPI" in sys.modules:     # one of several MPI ranks, maybe
            from dataplane.net.parallel.session import end_every_rank

            end_every_rank(exit_)
        raise


def _run_main() -> None:
    """``main``, every failure turned into a message and ``SystemExit`` (``run``)."""
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


def entry() -> None:
    """The installed ``dataplane`` script and ``python -m dataplane``: on PyPy first started again
    with a larger nursery (``pypy_gc``), then ``run``. Tests call ``run`` in their own process,
    which must never be replaced."""
    relaunch_with_nursery()
    run()
