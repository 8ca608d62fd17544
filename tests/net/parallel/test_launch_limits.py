"""--ranks is range-checked before any process starts: at most the topology's switches (each
rank needs one) and, without --oversubscribe, at most the CPUs this process may run on.
``dataplane run --ranks 1000`` used to start a thousand processes on a 2-core machine.

The launcher is a script (``DATAPLANE_MPIEXEC``) that records each call, so the tests see
whether mpiexec would have been started, and with what."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.parallel import session
from dataplane.testing.processes import dataplane_command

pytest.importorskip("mpi4py")      # without it --ranks stops before the launcher, whatever the count

CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@pytest.fixture
def launcher(tmp_path, monkeypatch):
    """A recording mpiexec; returns the file it appends its arguments to."""
    log = tmp_path / "mpiexec.log"
    script = tmp_path / "mpiexec"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {log}\n')
    script.chmod(0o755)
    monkeypatch.setenv("DATAPLANE_MPIEXEC", str(script))
    for var in session._SIZE_VARS:
        monkeypatch.delenv(var, raising=False)
    return log


def _line(tmp_path: Path, switches: int) -> Path:
    """A chain of ``switches`` switches (1 us links, so each can be its own rank)."""
    names = [f"s{i}" for i in range(1, switches + 1)]
    nodes = "".join(f"    {n}: {{kind: switch, program: ipv4_router}}\n" for n in names)
    links = "".join(f'    - endpoints: ["{a}:p2", "{b}:p1"]\n' for a, b in zip(names, names[1:]))
    path = tmp_path / f"line{switches}.yaml"
    path.write_text(f"name: line\ntopology:\n  nodes:\n{nodes}  links:\n{links}")
    return path


def _run(*args: str):
    return CliRunner().invoke(main, ["run", *args, "--duration", "1us"])


def _launched(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_ranks_up_to_the_switch_count_and_not_one_more(tmp_path, launcher):
    topo = str(_line(tmp_path, CPUS + 2))
    r = _run(topo, "--ranks", str(CPUS + 3), "--oversubscribe")
    assert r.exit_code == 2 and f"{CPUS + 3} ranks for line{CPUS + 2}.yaml's {CPUS + 2} switches" in r.output
    assert _launched(launcher) == []
    r = _run(topo, "--ranks", str(CPUS + 2), "--oversubscribe")
    assert r.exit_code == 0, r.output
    assert [line.split()[:2] for line in _launched(launcher)] == [["-n", str(CPUS + 2)]]


def test_ranks_above_the_cpus_need_oversubscribe(tmp_path, launcher):
    topo = str(_line(tmp_path, CPUS + 1))
    if CPUS > 1:
        assert _run(topo, "--ranks", str(CPUS)).exit_code == 0
    r = _run(topo, "--ranks", str(CPUS + 1))
    assert r.exit_code == 2 and "--oversubscribe" in r.output and f"the {CPUS} CPU" in r.output
    assert len(_launched(launcher)) == (1 if CPUS > 1 else 0)
    assert _run(topo, "--ranks", str(CPUS + 1), "--oversubscribe").exit_code == 0
    assert _launched(launcher)[-1].split()[:2] == ["-n", str(CPUS + 1)]


def test_a_thousand_ranks_start_no_process(tmp_path, launcher):
    """The finding itself, as a user runs it: refused with a usage error, the launcher never called."""
    env = {**os.environ, "DATAPLANE_MPIEXEC": os.environ["DATAPLANE_MPIEXEC"]}
    proc = subprocess.run(dataplane_command("run", "--ranks", "1000"), capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 2 and "Invalid value for '--ranks': 1000 ranks" in proc.stderr
    assert _launched(launcher) == []
    proc = subprocess.run(dataplane_command("run", "--ranks", "1000", "--oversubscribe"), capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 2 and _launched(launcher) == []


def test_a_topology_that_cannot_be_split_is_refused_before_launching(tmp_path, launcher):
    topo = _line(tmp_path, 2)
    topo.write_text(topo.read_text().replace('p1"]', 'p1"]\n      latency: 0ns'))
    r = _run(str(topo), "--ranks", "2", "--oversubscribe")
    assert r.exit_code == 1 and "2 ranks for 1 parts" in r.output and _launched(launcher) == []


@pytest.mark.parametrize("scenario", ["allreduce", "incast"])
def test_scenario_ranks_above_the_cpus_need_oversubscribe(launcher, scenario):
    r = CliRunner().invoke(main, ["scenario", scenario, "--ranks", str(CPUS + 1)])
    assert r.exit_code == 2 and "--oversubscribe" in r.output and _launched(launcher) == []
    r = CliRunner().invoke(main, ["scenario", scenario, "--ranks", str(CPUS + 1), "--oversubscribe"])
    assert r.exit_code == 0, r.output
    assert _launched(launcher)[0].split()[:2] == ["-n", str(CPUS + 1)]
