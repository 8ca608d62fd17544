"""Which program each switch runs: the one its topology names, or a ``--program`` given on the
command line (``load_topology(path, program=...)``).

The P4 tutorials' ``topology.json`` names the compiled BMv2 JSON (``"program":
"build/firewall.json"``) for the switches that run something other than the exercise's default,
and their Makefile compiles ``firewall.p4`` (the exercise's, or the student's copy of the
solution) to it and starts every other switch with ``DEFAULT_PROG``. So a ``--program`` stands
for what a switch names when the two agree without directory and extension
(``build/firewall.json``, ``firewall.p4`` and ``solution/firewall.p4`` all say ``firewall``), and
it fills in the switches that name none. ``--program`` may be given several times (the
firewall exercise: ``--program solution/firewall.p4 --program basic.p4``); then the one that
stands for no named program fills in the rest. A ``--program`` that would run on no switch is
an error, never ignored.

``SwitchSpec.named_program`` keeps what the topology wrote and ``program_given`` whether the
program came from the command line, so a run can say which program each switch runs and why
(``describe``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from dataplane.control.config_errors import ConfigError
from dataplane.net.topology.reader import Reader, resolve_program_arg

__all__ = ["ProgramArgs", "program_name", "as_list", "describe", "reason", "display_path"]


def program_name(text: str | Path) -> str:
    """What a program is called without directory and extension: ``build/firewall.json`` -> ``firewall``."""
    return Path(str(text).strip()).stem


def as_list(program: Any) -> list[str | Path]:
    """``load_topology``'s ``program``: None, one program, or several."""
    if program is None:
        return []
    if isinstance(program, (str, Path)):
        return [program]
    return list(program)


class ProgramArgs:
    """The ``--program`` files of one load and the switches they go to (see the module docstring)."""

    def __init__(self, programs: Sequence[str | Path], r: Reader):
        self.r = r
        self.given = list(programs)
        self.paths = [resolve_program_arg(p, r) for p in self.given]
        by_name: dict[str, str | Path] = {}
        for text, path in zip(self.given, self.paths):
            name = program_name(path)
            if name in by_name:
                raise ConfigError(f"--program {by_name[name]} and --program {text} are both '{name}': a switch's "
                                  f"program is replaced by the --program of the same name, so give one of them",
                                  r.file)
            by_name[name] = text
        self.fill: Path | None = None

    def __bool__(self) -> bool:
        return bool(self.paths)

    def plan(self, named: dict[str, str | None], where: int = 1, why: str | None = None) -> None:
        """Decide which ``--program`` fills in the switches that name none, given what each switch
        names (switch -> program as written, None: nothing); refuse a ``--program`` that would run
        on no switch, with ``why`` (default: what the switches name) at line ``where``."""
        names = {program_name(n) for n in named.values() if n}
        spare = [p for p in self.paths if program_name(p) not in names]
        if any(n is None for n in named.values()):
            if len(spare) > 1:
                raise ConfigError(f"--program {', '.join(_given(self, p) for p in spare)}: none of them is a program "
                                  "the topology names, and only one can run on the switches that name none",
                                  self.r.file, where)
            self.fill = spare[0] if spare else (self.paths[0] if len(self.paths) == 1 else None)
        elif spare:
            if why is None and not named:
                why = "the topology has no switches"
            elif why is None:
                listed = ", ".join(f"{sw}: {text}" for sw, text in list(named.items())[:3])
                why = f"every switch names its own program ({listed}{', ...' if len(named) > 3 else ''})"
            name = program_name(spare[0])
            raise ConfigError(f"--program {_given(self, spare[0])} would run on no switch: {why}; a --program "
                              f"replaces the program of the same name ({name}.p4, build/{name}.json) and fills in "
                              "the switches that name none", self.r.file, where)

    def instead_of(self, named: str) -> Path | None:
        """The ``--program`` that stands for the program a switch names, if one does."""
        name = program_name(named)
        return next((p for p in self.paths if program_name(p) == name), None)


def _given(args: ProgramArgs, path: Path) -> str:
    """A --program as the user gave it, without its directory."""
    return Path(str(args.given[args.paths.index(path)])).name


def display_path(path: Path, cwd: Path | None = None) -> str:
    """A program's path as a run prints it: a built-in program by its name, a file relative to the
    working directory when it is inside it, absolute otherwise."""
    try:
        from dataplane.resources import data_dir

        builtins = data_dir("programs").resolve()
    except FileNotFoundError:
        builtins = None
    path = Path(path)
    if builtins is not None and path.parent == builtins:
        return path.stem
    try:
        return str(path.relative_to((cwd or Path.cwd()).resolve()))
    except ValueError:
        return str(path)


def describe(switches: Any) -> list[dict[str, Any]]:
    """Which program each switch of ``switches`` (name -> SwitchSpec) runs and why, grouped:
    ``[{"switches": [...], "program": display path, "named": str | None, "given": bool}, ...]``
    in the order the switches come."""
    groups: dict[tuple[str, str | None, bool], list[str]] = {}
    for name, sw in switches.items():
        key = (display_path(sw.program), sw.named_program, sw.program_given)
        groups.setdefault(key, []).append(name)
    return [{"switches": names, "program": program, "named": named, "given": given}
            for (program, named, given), names in groups.items()]


def reason(group: dict[str, Any]) -> str:
    """Why a group of switches (an item of ``describe``) runs its program, in words."""
    named, given = group["named"], group["given"]
    if given:
        return f"--program, for the topology's {named}" if named else "--program; the topology names none"
    return f"the topology names {named}"
