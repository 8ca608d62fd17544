"""tests/conftest.py's order of the suite, as ``pytest --collect-only`` reports it: with a PyPy run
named (DATAPLANE_PYPY), the tests marked ``simulation`` are left to it unless they are marked
``no_pypy`` too, the test judging the PyPy run comes after the rest, then the ``ranks`` ones,
and the ``realtime`` ones last; without one, every test runs here."""
from __future__ import annotations

import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.no_pypy      # the order is the CPython run's; the PyPy run moves nothing

ROOT = Path(__file__).resolve().parent.parent
FILES = ["tests/scenarios/test_loadbalance.py", "tests/test_pypy.py", "tests/net/netns/test_console_terminal.py"]
MPI_TEST = "tests/scenarios/test_loadbalance.py::test_the_results_are_identical_on_one_and_two_ranks"
JUDGE = "tests/test_pypy.py::test_suite_passes_under_pypy"


@lru_cache(maxsize=None)   # each collection imports the package and the suite: 5 s
def collected(pypy: str | None) -> tuple[list[str], str]:
    """The node ids in run order and pytest's summary line. ``pypy``: a stand-in interpreter,
    which conftest starts as the PyPy run (``true`` ignores its arguments)."""
    env = {k: v for k, v in os.environ.items() if k != "DATAPLANE_PYPY"}
    if pypy:
        env["DATAPLANE_PYPY"] = pypy
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", *FILES],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    lines = out.stdout.splitlines()
    return [line for line in lines if line.startswith("tests/")], next(x for x in lines if "collected" in x)


def test_simulations_are_left_to_the_pypy_run_and_ranks_and_realtime_tests_come_after_it():
    ids, summary = collected("/bin/true")
    simulations = [i for i in ids if i.startswith(FILES[0])]
    assert simulations == [MPI_TEST]                   # marked no_pypy: the PyPy run would skip it
    assert "deselected" in summary
    console = [i for i in ids if i.startswith(FILES[2])]
    assert console and ids[-len(console):] == console  # realtime, last
    assert ids[-len(console) - 2:-len(console)] == [JUDGE, MPI_TEST]      # ranks, after the judge


def test_without_a_pypy_run_every_test_runs_here():
    ids, summary = collected(None)
    assert "deselected" not in summary
    assert sum(i.startswith(FILES[0]) for i in ids) > 10 and set(collected("/bin/true")[0]) < set(ids)
