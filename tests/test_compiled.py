"""The compiled build (``DATAPLANE_COMPILE=1``, dataplane/compiled.py) writes the pinned outputs.

A copy of this tree is built as ``DATAPLANE_COMPILE=1 python setup.py build_ext --inplace``
builds it (mypyc, C extensions beside the sources), and in one process that loads every module
of ``MODULES`` compiled, the fingerprints of the built-in RDMA scenarios and benchmark workloads
(``tests/net/rdma/test_outputs_pinned.py``: every frame every port sent, ``--json``, the files
written) and the decision cache's outputs (``tests/net/devices/test_decision_cache_outputs.py``)
must be the ones the pure-Python code makes. Both run in the background from collection on
(``start_build``, ``tests/compiled_job.py``). CPython only, and skipped where the machine cannot
compile (no mypyc, no C compiler or Python headers).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from dataplane.compiled import MODULES, compiled_modules

ROOT = Path(__file__).resolve().parent.parent
COPIED = ("dataplane", "grammar", "programs", "topologies", "jobs", "tools", "tests", "_build")
PROVING = ("tests/net/rdma/test_outputs_pinned.py", "tests/net/devices/test_decision_cache_outputs.py")

pytestmark = [
    pytest.mark.no_pypy,
    pytest.mark.skipif(sys.implementation.name != "cpython", reason="mypyc compiles for CPython only"),
]


def _can_compile() -> str | None:
    """Why this machine cannot build the compiled modules, or None."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc (mypy) is not installed"
    if not Path(sysconfig.get_paths()["include"], "Python.h").exists():
        return "no Python headers"
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc})"
    return None


def _env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DATAPLANE_PYPY"}   # no PyPy re-run inside
    env["PYTHONPATH"] = str(tree)
    return env


def start_build(config: pytest.Config) -> None:
    """Copy this tree to a new folder and start building it there and running ``PROVING`` on the
    build, in the background (``tests/compiled_job.py``); the ``compiled_tree`` fixture waits
    for it. tests/conftest.py calls it at collection, so that the job (two minutes of CPU)
    shares the cores with the rest of the suite instead of running alone in its turn. Does
    nothing where the machine cannot compile."""
    if sys.implementation.name != "cpython" or _can_compile() is not None:
        return
    tree = Path(tempfile.mkdtemp(prefix="dataplane-compiled-"))
    for name in COPIED:
        shutil.copytree(ROOT / name, tree / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "_data", ".pytest_cache"))
    for name in ("setup.py", "pyproject.toml"):
        shutil.copy(ROOT / name, tree / name)
    log = open(tree / "build.log", "wb")
    proc = subprocess.Popen([sys.executable, "tests/compiled_job.py", *PROVING], cwd=tree, env=_env(tree),
                            stdout=log, stderr=subprocess.STDOUT)
    config.dataplane_compiled_build = (tree, proc, log)


@pytest.fixture(scope="module")
def compiled_tree(request: pytest.FixtureRequest) -> Path:
    why = _can_compile()
    if why:
        pytest.skip(f"cannot compile here: {why}")
    if getattr(request.config, "dataplane_compiled_build", None) is None:
        start_build(request.config)
    tree, proc, _ = request.config.dataplane_compiled_build
    try:
        proc.wait(timeout=1800)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    built = (tree / "build.rc").read_text() if (tree / "build.rc").exists() else "none"
    assert built == "0", (tree / "build.log").read_text(errors="replace")[-4000:]
    return tree


def test_an_install_without_the_variable_runs_the_sources():
    """Nothing in this checkout or install was compiled unless asked for (CI installs it plainly)."""
    if os.environ.get("CI") != "true":
        pytest.skip("a developer's checkout may hold an in-place build")
    assert compiled_modules() == []


def test_the_build_compiles_every_module_listed(compiled_tree: Path):
    r = subprocess.run([sys.executable, "-m", "dataplane", "--version"], cwd=compiled_tree, env=_env(compiled_tree),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"{len(MODULES)} of {len(MODULES)} compiled with mypyc" in r.stdout


def test_the_compiled_modules_write_the_pinned_outputs(compiled_tree: Path):
    proved = compiled_tree / "prove.rc"
    assert proved.exists() and proved.read_text() == "0", \
        (compiled_tree / "prove.log").read_text(errors="replace")[-6000:] if (compiled_tree / "prove.log").exists() \
        else "the pinned outputs never ran"
