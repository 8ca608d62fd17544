"""Option types shared by the ``dataplane`` commands: output paths checked before any work, durations with units.

A bad value is a usage error when the command line is read, so a long run never fails at
its end because its output folder cannot be made (the folder itself is made when the command
writes into it), and ``--duration 10`` is not 10 ns.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click


class OutputDir(click.Path):
    """A folder to write into: checked when the command line is read (it, or the nearest folder
    above it that exists, must be a writable folder), made only when the command writes into it,
    so a command that fails on its other input leaves no empty folder behind."""

    def __init__(self) -> None:
        super().__init__(file_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        path = super().convert(value, param, ctx)
        existing = Path(path).absolute()
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir():
            self.fail(f"{value}: cannot create or write to this folder: {existing} is not a folder", param, ctx)
        if not os.access(existing, os.W_OK | os.X_OK) or str(existing.resolve()).startswith(("/proc", "/sys")):
            self.fail(f"{value}: cannot create or write to this folder: {existing} is not writable", param, ctx)
        return path


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
