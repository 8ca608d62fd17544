"""The package under PyPy: the suite passes there, and runs give the same bytes as here.

The suite's PyPy run leaves out tests marked ``no_pypy`` (browsers, MPI, servers, terminals:
slow there and not about the interpreter) and runs beside the CPython one (tests/conftest.py).

PyPy runs long simulations 2-4x faster than CPython (``tools/bench_sim.py --interpreter``),
so it is the supported way to go fast; these tests keep it honest. They need a PyPy with
dataplane and the test extra installed, named by ``DATAPLANE_PYPY`` (``.ci/run`` builds one
when Debian's ``pypy3`` installs); without it they skip.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

PYPY = os.environ.get("DATAPLANE_PYPY", "")
ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    not PYPY or platform.python_implementation() == "PyPy",
    reason="set DATAPLANE_PYPY to a PyPy interpreter with dataplane installed")


def dataplane(python: str, *args: str, cwd: Path) -> str:
    """Run ``python -m dataplane ARGS`` and return its stdout; fail with its stderr."""
    # No PNGs (their bytes depend on the matplotlib build, so they are not compared): drawing them
    # took PyPy longer than the runs (tests/net/capture/test_plots.py draws under both).
    env = {k: v for k, v in os.environ.items() if k not in ("DATAPLANE_PYPY", "PYTHONPATH")} | {"DATAPLANE_PLOTS": "0"}
    out = subprocess.run([python, "-m", "dataplane", *args], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"{python} -m dataplane {' '.join(args)}:\n{out.stderr[-3000:]}"
    return out.stdout


def test_pypy_is_what_it_claims():
    out = subprocess.run([PYPY, "-c", "import platform, dataplane; print(platform.python_implementation())"],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "PyPy", out.stderr


def without_wall_clock(value):
    """JSON with the wall-clock figures some results carry (``wall_s``, ``load_wall_s``) removed."""
    if isinstance(value, dict):
        return {k: without_wall_clock(v) for k, v in value.items() if "wall" not in k}
    if isinstance(value, list):
        return [without_wall_clock(v) for v in value]
    return value


def without_provenance(report: dict) -> dict:
    """report.json with what names the interpreter and where it is installed taken out: the
    provenance block (command line, Python, paths) and the file paths of programs and entries
    (their hashes stay); every figure is left to compare."""
    report = dict(report)
    report.pop("provenance", None)
    for run in report.get("runs", []):
        for prog in run.get("programs", []):
            for key in ("program", "entries"):
                if isinstance(prog.get(key), str):
                    prog[key] = Path(prog[key]).name
    return report


def outputs(python: str, tmp: Path, args: list[str]) -> tuple[object, dict[str, object]]:
    out_dir = tmp / "out"
    stdout = dataplane(python, *args, "--out", str(out_dir), cwd=tmp)
    files: dict[str, object] = {}
    for p in sorted(out_dir.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            value = without_wall_clock(json.loads(data)) if p.suffix == ".json" else data
            files[str(p.relative_to(out_dir))] = without_provenance(value) if p.name == "report.json" else value
    return without_wall_clock(json.loads(stdout)), files


@pytest.mark.parametrize("args", [
    ["run", "--traffic", "incast", "--duration", "2ms", "--seed", "3", "--json"],
    ["run", "--traffic", "all-to-all", "--duration", "1ms", "--json"],
    ["scenario", "allreduce", "--workers", "4", "--elements", "20000", "--loss", "0.01", "--json"],
    ["scenario", "incast", "--senders", "4", "--transfer", "200KB", "--mode", "all", "--json"],
], ids=["run-incast", "run-all-to-all", "allreduce-loss", "incast-modes"])
def test_pypy_and_cpython_write_identical_results(tmp_path, args):
    (tmp_path / "cpython").mkdir()
    (tmp_path / "pypy").mkdir()
    c_stdout, c_files = outputs(sys.executable, tmp_path / "cpython", args)
    p_stdout, p_files = outputs(PYPY, tmp_path / "pypy", args)
    assert p_stdout == c_stdout
    assert sorted(p_files) == sorted(c_files)
    assert any(name.endswith(".pcap") for name in c_files) or args[0] == "scenario"
    for name, data in c_files.items():
        assert p_files[name] == data, f"{name} differs between CPython and PyPy"


def test_suite_passes_under_pypy(request):
    # tests/conftest.py started this run at collection, on the core pytest leaves idle.
    started = getattr(request.config, "dataplane_pypy_suite", None)
    assert started is not None, "tests/conftest.py did not start the PyPy run"
    proc, output, _ = started
    try:
        proc.wait(timeout=1800)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    text = output.read_text(errors="replace")
    assert proc.returncode == 0, text[-8000:]
