"""Suite-wide hooks and fixtures.

The PyPy re-run of the suite (tests/test_pypy.py) runs beside this one.
pytest keeps one core busy; CI's machine has two. When the PyPy test is collected and a PyPy
interpreter is named, its run of the suite starts at collection on the other core, and the
test that judges it is ordered last but for the tests marked ``ranks`` (two MPI ranks: two
processes, which then have both cores) and ``realtime`` (paced to the wall clock), which run
after it, on a quiet machine. Tests marked ``simulation`` (long
simulations, interpreter-independent) then run in the PyPy run only, 2-4x faster there, which
evens the two cores' work; without the PyPy run they run here. The compiled build that
tests/test_compiled.py checks starts at collection too, in the background.

PNGs are drawn only by the tests that check them (the ``plots_drawn`` fixture): elsewhere
``DATAPLANE_PLOTS=0`` holds for the session and every process it starts, since drawing a short
run's figures takes longer than the run (5 s of a run's 8 under PyPy, 1 s of 2 under CPython)
and those tests compare everything else.
"""
from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("DATAPLANE_PLOTS", "0")    # before any test starts a process (the docstring)

PYPY_SUITE_TEST = "test_pypy.py::test_suite_passes_under_pypy"
COMPILED_TESTS = "tests/test_compiled.py::"
TESTS = Path(__file__).resolve().parent


def pypy_suite_command(python: str, basetemp: Path) -> list[str]:
    """The PyPy run: the whole suite but for what is marked ``no_pypy``, stopping at the first
    failure; its own ``--basetemp`` keeps it out of this run's numbered temporary folders."""
    return [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not no_pypy",
            "--basetemp", str(basetemp), str(TESTS)]


def moves_to_pypy(item: pytest.Item) -> bool:
    """A ``simulation`` test the PyPy run takes (it skips those marked ``no_pypy``)."""
    return item.get_closest_marker("simulation") is not None and item.get_closest_marker("no_pypy") is None


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected what will not run
def pytest_collection_modifyitems(config, items):
    compiled = [item for item in items if item.nodeid.startswith(COMPILED_TESTS)]
    if compiled:
        compiled[0].module.start_build(config)     # in the background from now on
    judged = [item for item in items if item.nodeid.endswith(PYPY_SUITE_TEST)]
    if not judged:
        return
    rest = [item for item in items if item not in judged]
    pypy = os.environ.get("DATAPLANE_PYPY", "")
    if pypy and platform.python_implementation() != "PyPy":
        moved = [item for item in rest if moves_to_pypy(item)]
        if moved:
            config.hook.pytest_deselected(items=moved)
            rest = [item for item in rest if not moves_to_pypy(item)]
    realtime = [item for item in rest if item.get_closest_marker("realtime")]
    ranks = [item for item in rest if item.get_closest_marker("ranks") and item not in realtime]
    items[:] = [item for item in rest if item not in realtime and item not in ranks] + judged + ranks + realtime
    if pypy and platform.python_implementation() != "PyPy":
        work = Path(tempfile.mkdtemp(prefix="dataplane-pypy-suite-"))
        env = {k: v for k, v in os.environ.items() if k not in ("DATAPLANE_PYPY", "PYTHONPATH")}
        log = open(work / "output.txt", "wb")
        # Run from elsewhere: ``-m`` puts the working directory on sys.path, and from the
        # checkout that would import its source instead of the PyPy environment's package.
        proc = subprocess.Popen(pypy_suite_command(pypy, work / "tmp"), cwd=work, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
        config.dataplane_pypy_suite = (proc, work / "output.txt", log)


def _end(proc: subprocess.Popen, log) -> None:
    """A background process of the session killed if it still runs, its log closed."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    log.close()


def pytest_unconfigure(config):
    compiled = getattr(config, "dataplane_compiled_build", None)    # tests/test_compiled.py's
    if compiled is not None:
        tree, proc, log = compiled
        _end(proc, log)
        shutil.rmtree(tree, ignore_errors=True)
    started = getattr(config, "dataplane_pypy_suite", None)
    if started is not None:
        proc, _, log = started
        _end(proc, log)


class OneRankComm:
    """An MPI communicator of one rank: what ``ParallelSimulator`` calls, without MPI."""

    def Get_rank(self) -> int:
        return 0

    def Get_size(self) -> int:
        return 1

    def alltoall(self, items: list) -> list:
        return items

    def allreduce(self, value, op=None):
        return value

    def allgather(self, value) -> list:
        return [value]


@pytest.fixture
def plots_drawn(monkeypatch) -> None:
    """PNGs drawn in this test and the processes it starts, as a user's runs draw them."""
    monkeypatch.setenv("DATAPLANE_PLOTS", "1")


@pytest.fixture
def one_rank_comm() -> OneRankComm:
    """A communicator for a ``ParallelSimulator`` run in the test's process, as one rank."""
    return OneRankComm()


@pytest.fixture
def raiser_beside_dataplane(tmp_path: Path):
    """``make(name, raised)``: a function ``name`` that raises ``raised``, defined in
    ``tmp_path/dataplane/tests/NAME.py``: a frame whose path holds ``/dataplane/`` but that is no
    part of the package, as every test's and tool's frame is in a clone folder named ``dataplane``
    (the name most users give it)."""
    def make(name: str, raised: str):
        folder = tmp_path / "dataplane" / "tests"
        folder.mkdir(parents=True, exist_ok=True)
        source = folder / f"{name}.py"
        source.write_text(f"def {name}(*args, **kwargs):\n    raise {raised}\n")
        spec = importlib.util.spec_from_file_location(f"beside_dataplane_{name}", source)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return getattr(module, name)
    return make
