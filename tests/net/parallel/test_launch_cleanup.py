"""mpiexec and every rank end when the ``dataplane run --ranks 2`` that started them ends,
however it ends: SIGTERM, SIGINT or SIGKILL of the parent, or SIGKILL of mpiexec itself (the
ranks then end on their own parent-death signal). Real Open MPI (skipped without MPI): its
mpiexec answers SIGTERM and SIGINT by ending its ranks, but a killed mpiexec leaves them running,
and each rank has a process group of its own, so no group signal reaches them all.

Each case starts a run long enough to be cut (60 simulated seconds of all-to-all traffic),
waits until both ranks run, ends it, and waits at most 30 s for every process to be gone.
And the launcher starts from a process that is itself an MPI singleton (what Open MPI put in
that process's environment is not passed on)."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from functools import lru_cache

import pytest

from dataplane.net.parallel.launch import mpi_available
from dataplane.testing.processes import dataplane_command


@lru_cache(maxsize=1)
def _mpi_works() -> bool:
    if not mpi_available():
        return False
    import sys

    return subprocess.run([sys.executable, "-c", "from mpi4py import MPI"], capture_output=True).returncode == 0


pytestmark = [pytest.mark.no_pypy, pytest.mark.ranks, pytest.mark.skipif(not _mpi_works(), reason="needs MPI (mpiexec) and mpi4py"),
              pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process tree from /proc")]


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for a reaper (a container's init may never reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _start_run(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATAPLANE_MPIEXEC"}
    log = open(tmp_path / "run.log", "w")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    more = ["--oversubscribe"] if cpus < 2 else []
    parent = subprocess.Popen(dataplane_command("run", "--ranks", "2", *more, "--duration", "60s",
                                                "--traffic", "all-to-all", "--json"),
                              stdout=log, stderr=subprocess.STDOUT, env=env)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        launchers = _children(parent.pid)
        ranks = [r for m in launchers for r in _children(m)]
        if len(ranks) >= 2:
            time.sleep(2)                  # past the ranks' start (imports, the die-with-parent call)
            return parent, launchers, [r for m in launchers for r in _children(m)]
        assert parent.poll() is None, (tmp_path / "run.log").read_text()
        time.sleep(0.2)
    parent.kill()
    pytest.fail("the ranks did not start within 60 s")


def _all_gone(pids: list[int], timeout: float = 30) -> list[int]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        left = [p for p in pids if _alive(p)]
        if not left:
            return []
        time.sleep(0.2)
    return [p for p in pids if _alive(p)]


@pytest.mark.parametrize("how,status", [("SIGTERM", 128 + signal.SIGTERM), ("SIGINT", 128 + signal.SIGINT),
                                        ("SIGKILL", None)])
def test_mpiexec_and_its_ranks_end_with_the_parent(tmp_path, how, status):
    parent, launchers, ranks = _start_run(tmp_path)
    try:
        parent.send_signal(getattr(signal, how))
        left = _all_gone(launchers + ranks)
        assert not left, f"still running after the parent got {how}: {left}"
        code = parent.wait(timeout=30)
        assert code == (status if status is not None else -signal.SIGKILL)
    finally:
        for pid in [parent.pid, *launchers, *ranks]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_the_ranks_end_when_mpiexec_is_killed(tmp_path):
    parent, launchers, ranks = _start_run(tmp_path)
    try:
        for m in launchers:
            os.kill(m, signal.SIGKILL)
        assert not _all_gone(ranks), "ranks outlived their mpiexec"
        assert parent.wait(timeout=30) == 128 + signal.SIGKILL
    finally:
        for pid in [parent.pid, *launchers, *ranks]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_ranks_start_from_a_process_that_is_an_mpi_singleton(tmp_path):
    """``from mpi4py import MPI`` outside mpiexec makes a process an MPI job of one, with
    OMPI_MCA_ess=singleton and its PMIx server in the environment; a --ranks run started from it
    (a test suite, a notebook) inherited them and Open MPI's mpiexec exited 1 without a word."""
    import sys

    # (Open MPI sets them with C's setenv: os.environ does not show them, the children inherit them)
    code = ("from mpi4py import MPI; import subprocess, sys\n"
            "assert 'singleton' in subprocess.run(['env'], capture_output=True, text=True).stdout\n"
            f"sys.exit(subprocess.call({dataplane_command('run', '--ranks', '2', '--duration', '1us', '--json')!r}))")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if cpus < 2:
        code = code.replace("'--json'", "'--json', '--oversubscribe'")
    env = {k: v for k, v in os.environ.items() if k != "DATAPLANE_MPIEXEC"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '"hosts"' in proc.stdout


def test_only_a_singletons_variables_are_left_out():
    from dataplane.net.parallel.launch import launcher_environ

    mine = {"PATH": "/bin", "OMPI_MCA_btl": "self,vader", "PMIX_MCA_x": "1"}
    assert launcher_environ(mine) == mine                       # not a singleton: all of it passes
    singleton = {**mine, "OMPI_MCA_ess": "singleton", "OMPI_MCA_orte_launch": "1", "PMIX_RANK": "0",
                 "PMIX_SERVER_URI4": "x;tcp4://127.0.0.1:1", "OMPI_APP_CTX_NUM_PROCS": "1",
                 "ORTE_SCHIZO_DETECTION": "ORTE"}
    assert launcher_environ(singleton) == {"PATH": "/bin", "OMPI_MCA_btl": "self,vader"}


_FAIL_ON_RANK_1 = '''\
import os, sys
if os.environ.get("OMPI_COMM_WORLD_RANK") == "1":
    sys.path.insert(0, {root!r})
    from dataplane.net.parallel import session

    def gather(self, net, apps=()):
        raise RuntimeError("injected failure on rank 1")

    session.Session.gather = gather
'''


def test_a_failure_on_one_rank_ends_every_rank(tmp_path):
    """Rank 1 alone fails (a bug injected where the ranks gather their results): it says so and
    every rank ends with its status, 3, where rank 0 used to wait in the gathering for ever."""
    from pathlib import Path

    import dataplane

    (tmp_path / "sitecustomize.py").write_text(_FAIL_ON_RANK_1.format(root=str(Path(dataplane.__file__).parent.parent)))
    env = {k: v for k, v in os.environ.items() if k != "DATAPLANE_MPIEXEC"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    more = ["--oversubscribe"] if cpus < 2 else []
    parent = subprocess.Popen(dataplane_command("run", "--ranks", "2", *more, "--duration", "1ms", "--json"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = parent.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        launchers = _children(parent.pid)
        ranks = [r for m in launchers for r in _children(m)]
        for pid in [parent.pid, *launchers, *ranks]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        parent.communicate()
        pytest.fail("the run still waited 90 s after rank 1 failed")
    assert "injected failure on rank 1" in err
    assert parent.returncode == 3, err
    assert out == ""


def test_a_problem_every_rank_finds_is_said_once(tmp_path):
    """Started by hand under ``mpiexec -n 2`` on a topology no cut can split (its one link has no
    latency): every rank finds it, rank 0 says it once, and the run ends with status 1."""
    from dataplane.net.parallel.launch import _OPENMPI_ENV, mpiexec_path

    topo = tmp_path / "line.yaml"
    topo.write_text("name: line\ntopology:\n  nodes:\n"
                    "    s1: {kind: switch, program: ipv4_router}\n    s2: {kind: switch, program: ipv4_router}\n"
                    '  links:\n    - endpoints: ["s1:p2", "s2:p1"]\n      latency: 0ns\n')
    env = {**{k: v for k, v in os.environ.items() if k != "DATAPLANE_MPIEXEC"}, **_OPENMPI_ENV}
    proc = subprocess.run([mpiexec_path(), "-n", "2", *dataplane_command("run", str(topo), "--duration", "1us")],
                          capture_output=True, text=True, timeout=90, env=env)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("2 ranks for 1 parts") == 1, proc.stderr
