"""On PyPy the command starts itself again once with PYPY_GC_NURSERY set; never on CPython,
never when the variable is set already, never when DATAPLANE_PYPY_NURSERY turns it off."""
from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from dataplane.cli import pypy_gc
from dataplane.cli.pypy_gc import relaunch_args


def test_pypy_without_the_variable_starts_the_console_script_again_with_it():
    argv = ["/venv/bin/dataplane", "scenario", "incast", "--senders", "16"]
    start, env = relaunch_args(argv, {"HOME": "/h"}, pypy=True, executable="/venv/bin/pypy3")
    assert start == ["/venv/bin/pypy3", "/venv/bin/dataplane", "scenario", "incast", "--senders", "16"]
    assert env == {"HOME": "/h", "PYPY_GC_NURSERY": "32MB"}


def test_dash_m_dataplane_is_started_again_as_dash_m_not_as_a_file():
    argv = ["/src/dataplane/__main__.py", "run", "topo.yaml"]
    start, _ = relaunch_args(argv, {}, pypy=True, executable="pypy3")
    assert start == ["pypy3", "-m", "dataplane", "run", "topo.yaml"]
    other = ["/src/other/__main__.py", "x"]        # a __main__.py of some other package: a file
    assert relaunch_args(other, {}, pypy=True, executable="pypy3")[0] == ["pypy3", "/src/other/__main__.py", "x"]


@pytest.mark.parametrize("environ, pypy", [
    ({}, False),                                        # CPython
    ({"PYPY_GC_NURSERY": "4MB"}, True),                 # the user's own size, kept
    ({"PYPY_GC_NURSERY": ""}, True),                    # set, even empty: PyPy's business
    ({"DATAPLANE_PYPY_NURSERY": "off"}, True),
    ({"DATAPLANE_PYPY_NURSERY": " OFF "}, True),
    ({"DATAPLANE_PYPY_NURSERY": ""}, True),
])
def test_nothing_to_do(environ, pypy):
    assert relaunch_args(["dataplane", "run"], environ, pypy=pypy, executable="pypy3") is None


def test_code_given_with_dash_c_is_not_started_again():
    """``pypy3 -c 'from dataplane.cli import run; run()' compile x.p4``: argv[0] is ``-c`` and the
    code itself is not in argv, so it cannot be started again (it would run ``compile`` as code)."""
    assert relaunch_args(["-c", "compile", "x.p4"], {}, pypy=True, executable="pypy3") is None


def test_our_variable_chooses_the_size():
    _, env = relaunch_args(["dataplane"], {"DATAPLANE_PYPY_NURSERY": "64MB"}, pypy=True, executable="p")
    assert env["PYPY_GC_NURSERY"] == "64MB"


def test_relaunch_execs_once_with_the_environment(monkeypatch):
    calls = []
    monkeypatch.setattr(pypy_gc.platform, "python_implementation", lambda: "PyPy")
    monkeypatch.setattr(pypy_gc.os, "execve", lambda *a: calls.append(a))
    monkeypatch.delenv("PYPY_GC_NURSERY", raising=False)
    monkeypatch.delenv("DATAPLANE_PYPY_NURSERY", raising=False)
    monkeypatch.setattr(pypy_gc.sys, "argv", ["dataplane", "compile", "x.p4"])    # no such file
    pypy_gc.relaunch_with_nursery()
    assert calls == []
    script = str(Path(pypy_gc.__file__))      # a file that exists, standing for the script
    monkeypatch.setattr(pypy_gc.sys, "argv", [script, "compile", "x.p4"])
    pypy_gc.relaunch_with_nursery()
    [(exe, args, env)] = calls
    assert args[1:] == [script, "compile", "x.p4"] and env["PYPY_GC_NURSERY"] == "32MB"


def test_run_never_replaces_its_process_only_entry_does(monkeypatch):
    """Tests (and any caller) run ``run()`` in their own process: only ``entry`` relaunches."""
    import dataplane.cli as cli

    calls = []
    monkeypatch.setattr(cli, "relaunch_with_nursery", lambda: calls.append("relaunch"))
    monkeypatch.setattr(cli, "main", lambda standalone_mode: calls.append("main"))
    monkeypatch.setattr(cli, "pause_for_startup", lambda: None)
    cli.run()
    assert calls == ["main"]
    cli.entry()
    assert calls == ["main", "relaunch", "main"]


@pytest.mark.skipif(platform.python_implementation() != "PyPy", reason="the relaunch happens on PyPy only")
def test_under_pypy_the_command_runs_after_its_relaunch():
    env = {k: v for k, v in os.environ.items() if k not in ("PYPY_GC_NURSERY", "DATAPLANE_PYPY_NURSERY")}
    r = subprocess.run([sys.executable, "-m", "dataplane", "--version"], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "dataplane, version" in r.stdout, r.stderr
