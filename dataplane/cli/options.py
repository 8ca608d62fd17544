"""Option types shared by the ``dataplane`` commands: output paths checked before any work, durations
with units, seeds, finite floats and process counts; the generated fabric's options
(``fabric_options``).

A bad value is a usage error when the command line is read, so a long run never fails at
its end because its output folder cannot be made (the folder itself is made when the command
writes into it), ``--duration 10`` is not 10 ns, ``--timeout nan`` is not a wait that never
ends and ``--jobs 1000`` does not start a thousand processes.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Callable

import click

from dataplane.errors import shown

_NEW_DIRS = "dataplane.new_output_dirs"     # ctx.meta key: (folder, nearest existing folder above it)


class OutputDir(click.Path):
    """A folder to write into: checked when the command line is read (it, or the nearest folder
    above it that exists, must be a writable folder), made only when the command writes into it,
    so a command that fails on its other input leaves no empty folder behind. A folder that did
    not exist is noted (in the context's ``meta``): if the command then fails with nothing
    written there, ``remove_unwritten`` removes it and the folders made above it."""

    def __init__(self) -> None:
        super().__init__(file_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        path = super().convert(value, param, ctx)
        existing = Path(path).absolute()
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if ctx is not None and existing != Path(path).absolute():
            ctx.meta.setdefault(_NEW_DIRS, []).append((Path(path).absolute(), existing))
        if not existing.is_dir():
            self.fail(f"{value}: cannot create or write to this folder: {existing} is not a folder", param, ctx)
        if not os.access(existing, os.W_OK | os.X_OK) or str(existing.resolve()).startswith(("/proc", "/sys")):
            self.fail(f"{value}: cannot create or write to this folder: {existing} is not writable", param, ctx)
        return path


def remove_unwritten(ctx: click.Context) -> None:
    """After a failed command: remove each ``OutputDir`` folder it was to make that holds no file
    (only empty folders, if any), and the empty folders it made above it; a folder that existed
    when the command line was read is never touched."""
    import shutil

    for folder, existing in ctx.meta.pop(_NEW_DIRS, []):
        if not folder.is_dir() or folder.is_symlink() or any(not p.is_dir() or p.is_symlink()
                                                            for p in folder.rglob("*")):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        above = folder.parent
        while above != existing and existing in above.parents:
            try:
                above.rmdir()       # only if empty: another command may have put something there
            except OSError:
                break
            above = above.parent


class OutputFile(click.Path):
    """A file to write; its folder must exist and be writable (checked when the command line is read)."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        path = super().convert(value, param, ctx)
        parent = Path(path).parent
        if not parent.is_dir():
            what = "is not a folder" if parent.exists() else "does not exist"
            self.fail(f"{value}: cannot write it: {parent} {what}", param, ctx)
        if not os.access(parent, os.W_OK) or str(parent.resolve()).startswith(("/proc", "/sys")):
            self.fail(f"{value}: cannot write it: {parent} is not writable", param, ctx)
        return path


class Duration(click.ParamType):
    """A simulated time with its unit (``500us``, ``10ms``, ``1s``): a bare number is refused, not read as ns."""

    name = "DURATION"

    def __init__(self, allow_zero: bool = False) -> None:
        self.allow_zero = allow_zero

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from dataplane.net.core.units import UnitError, parse_time

        if isinstance(value, int):
            return value
        text = str(value).strip()
        if text and text[-1].isdigit():
            self.fail(f"{text!r} has no unit: write it with ns, us, ms or s (e.g. {text}ms)", param, ctx)
        try:
            ns = parse_time(text)
        except UnitError as err:
            self.fail(str(err), param, ctx)
        if ns <= 0 and not (self.allow_zero and ns == 0):
            self.fail(f"{text!r}: must be more than zero", param, ctx)
        return ns


class Whole(click.IntRange):
    """click's ``IntRange``; a value too long to be in range is refused by its length, cut in the
    message (click would print all 5,000 digits of it, or fail on Python's 4,300-digit limit)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and len(value.strip()) > 40:
            self.fail(f"{shown(value.strip())} is not in the range {self._describe_range()}.", param, ctx)
        return super().convert(value, param, ctx)


# A seed is an unsigned 64-bit number: Python's random takes any int but seeds -1 like 1 (its
# absolute value), and numpy's generators refuse negative seeds.
SEED = Whole(0, 2**64 - 1)


class FiniteFloat(click.FloatRange):
    """click's ``FloatRange`` that refuses ``nan`` and infinities: NaN compares false with any
    bound, so ``FloatRange(0, 1)`` lets it through, and an infinite timeout never ends."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class Processes(click.IntRange):
    """A number of worker processes, 1 up to the CPUs this process may run on (``resources.available_cpus``):
    more only queue for the same cores, and each costs memory and start-up."""

    name = "N"

    def __init__(self) -> None:
        super().__init__(min=1)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from dataplane.resources import available_cpus

        n = Whole(min=1).convert(value, param, ctx)
        cpus = available_cpus()
        if n > cpus:
            self.fail(f"{n} is more than the {cpus} CPU{'s' if cpus != 1 else ''} this process may run on.",
                      param, ctx)
        return n


class MacroDefine(click.ParamType):
    """``-D NAME`` or ``-D NAME=VALUE``, as cpp takes it: ``(NAME, VALUE)``, VALUE ``1`` when not
    given. A NAME that is not an identifier (``=1``, ``1X=2``, ``A B``) is refused here rather
    than defining a macro no program can use."""

    name = "NAME[=VALUE]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from dataplane.lang.preprocess.macros import define_problem

        if isinstance(value, tuple):
            return value
        name, eq, body = str(value).partition("=")
        body = body if eq else "1"
        problem = define_problem(name, body)
        if problem is not None:
            self.fail(f"{shown(str(value))}: {problem}", param, ctx)
        return name, body


def fabric_options(*, k_max: int, leaves: tuple[int, int], spines_max: int, hosts_max: int,
                   bandwidth_help: str) -> Callable[[Callable], Callable]:
    """The generated fabric's size and links, as the commands that build one take them: ``--k``
    (fat-tree), ``--leaves``, ``--spines``, ``--hosts-per-leaf`` (leaf-spine), ``--bandwidth``,
    ``--fabric-bandwidth``, ``--latency``. The upper bounds are the command's own (a program's
    ECMP group size, the addressing plan's /24 per leaf)."""
    options = [
        click.option("--k", default=4, show_default=True, type=Whole(2, k_max), help="The fat-tree's k (even)."),
        click.option("--leaves", default=4, show_default=True, type=Whole(*leaves),
                     help="Leaf-spine: leaves."),
        click.option("--spines", default=2, show_default=True, type=Whole(1, spines_max), help="Leaf-spine: spines."),
        click.option("--hosts-per-leaf", default=4, show_default=True, type=Whole(1, hosts_max),
                     help="Leaf-spine: hosts per leaf."),
        click.option("--bandwidth", default="100Gbps", show_default=True, help=bandwidth_help),
        click.option("--fabric-bandwidth", default=None, help="Leaf-spine: the rate of links between switches."),
        click.option("--latency", default="1us", show_default=True, help="Every link's latency."),
    ]

    def apply(command: Callable) -> Callable:
        for option in reversed(options):
            command = option(command)
        return command
    return apply
