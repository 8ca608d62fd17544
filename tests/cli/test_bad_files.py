"""Every file-taking option of every ``dataplane`` command, fed bad files: an error line, never a traceback.

The options come from the click command tree itself, so an option added later is swept too:
every ``click.Path``/``click.File`` parameter, plus the string parameters that take a file or a
built-in name (PROGRAM, TOPOLOGY, --traffic). Each gets random bytes, an empty file, a
directory and a missing path (inputs), or a path that cannot be made (outputs).
"""
from __future__ import annotations

import random
import re
import traceback
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.cli.options import OutputDir, OutputFile

# String parameters that name a file (or a built-in program/topology/pattern).
FILE_OR_NAME = {"program", "topology", "traffic"}
# What the other required parameters get, so that only the swept one is bad.
VALID = {"program": "ipv4_router"}
# Extra arguments a command needs to do anything at all, and to do it quickly.
EXTRA = {"run-packet": ["--packet", "00" * 60], "run": ["--duration", "1us"]}
# --program is the program of a tutorials topology.json's switches (a YAML topology names its own).
TUTORIALS_TOPOLOGY = Path(__file__).parents[1] / "net" / "data" / "served" / "topology.json"
# --entries and --p4info of serve go with a PROGRAM.
WITH = {("run", "program"): [str(TUTORIALS_TOPOLOGY)], ("serve", "entries"): ["ipv4_router"],
        ("serve", "p4info_path"): ["ipv4_router"]}
# Commands that serve until stopped: an input they accept would never return.
SERVES = {"serve"}


def _commands(group: click.Group, path: tuple[str, ...] = ()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, path + (name,))
        elif cmd is not None:
            yield path + (name,), cmd


def _kind(param: click.Parameter) -> str | None:
    t = param.type
    if isinstance(t, OutputDir):
        return "output_dir"
    if isinstance(t, OutputFile):
        return "output_file"
    if isinstance(t, click.File):
        return "output_file" if "w" in t.mode else "input"
    if isinstance(t, click.Path):
        if not t.file_okay:
            return "input_dir"
        return "input"
    if param.name in FILE_OR_NAME:
        return "input"
    return None


def _file_params():
    for path, cmd in _commands(main):
        for p in cmd.params:
            kind = _kind(p)
            if kind is not None:
                yield pytest.param(path, cmd, p, kind, id=f"{' '.join(path)}:{p.name}")


SWEPT = list(_file_params())


def test_the_sweep_finds_the_known_options():
    ids = {p.id for p in SWEPT}
    for known in ("compile:output", "compile:program", "run:events", "run:traffic", "run:topology", "run:out",
                  "run-packet:entries", "run-packet:pcap", "test:stf", "topo leaf-spine:out",
                  "scenario allreduce:out", "serve:entries"):
        assert known in ids


def _cases(kind: str, tmp: Path) -> list[tuple[str, str, bool]]:
    """(name, value, must fail) for one kind of parameter."""
    rng = random.Random(15)
    noise = b"\xff\xfe\x00" + rng.randbytes(509)       # never UTF-8, has a NUL
    files = {}
    for suffix in (".json", ".yaml"):
        (tmp / f"random{suffix}").write_bytes(noise)
        (tmp / f"empty{suffix}").write_bytes(b"")
        files[suffix] = (str(tmp / f"random{suffix}"), str(tmp / f"empty{suffix}"))
    (tmp / "adir").mkdir()
    (tmp / "plain").write_text("x")
    missing = str(tmp / "missing" / "nothing.json")
    under_file = str(tmp / "plain" / "sub")
    if kind == "input":
        out = []
        for suffix, (rnd, empty) in files.items():
            out += [(f"random{suffix}", rnd, True), (f"empty{suffix}", empty, False)]
        return out + [("directory", str(tmp / "adir"), True), ("missing", missing, True)]
    if kind == "input_dir":
        return [("random file", files[".json"][0], True), ("missing", missing, False)]
    if kind == "output_file":
        return [("directory", str(tmp / "adir"), True), ("under a file", under_file, True),
                ("missing folder", missing, True), ("/proc", "/proc/x/y.json", True)]
    return [("random file", files[".json"][0], True), ("empty file", files[".json"][1], True),
            ("under a file", under_file, True), ("/proc", "/proc/x", True)]


@pytest.mark.parametrize("path,cmd,param,kind", SWEPT)
def test_bad_file(path, cmd, param, kind, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    blank = tmp_path / "blank.txt"          # a valid empty file for the other required file arguments
    blank.write_text("")
    (tmp_path / "files").mkdir()
    for name, value, must_fail in _cases(kind, tmp_path / "files"):
        if path[-1] in SERVES and not must_fail:
            continue
        args = list(EXTRA.get(path[-1], []))
        if param.name == "pcap":
            args = []                                   # --pcap replaces --packet
        positional = list(WITH.get((path[-1], param.name), []))
        for p in cmd.params:
            if isinstance(p, click.Argument):
                if p is param:
                    positional.append(value)
                elif p.required:
                    positional.append(VALID.get(p.name, str(blank)))
        if isinstance(param, click.Option):
            args += [param.opts[-1], value]
        result = runner.invoke(main, [*path, *positional, *args], catch_exceptions=True)
        what = f"{' '.join(path)} {param.name} <- {name}: exit {result.exit_code}\n{result.output}"
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            what + "".join(traceback.format_exception(result.exception))
        assert "Traceback" not in result.output, what
        if must_fail:
            assert result.exit_code != 0, what
        if result.exit_code != 0:
            assert re.search(r"error( \[[a-z-]+\])?:", result.output.lower()), what
