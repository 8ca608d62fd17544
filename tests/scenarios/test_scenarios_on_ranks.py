"""``dataplane scenario incast|allreduce --ranks 2`` print and write byte for byte what one process
does (skipped without MPI/mpi4py), the report's data and page too but for the command line they
record. Each scenario runs once per rank count (module-scoped: MPI starts cost about a second)
and the assertions share the runs."""
from __future__ import annotations

import html
import json
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.net.parallel.launch import mpi_available
from dataplane.testing.processes import dataplane_command

INCAST = ["incast", "--senders", "4", "--mode", "ecn+pfc", "--transfer", "200KB", "--buffer", "300KB",
          "--kmin", "40KB", "--kmax", "160KB", "--pmax", "0.2", "--xoff", "60KB", "--xon", "30KB"]
ALLREDUCE = ["allreduce", "--topology", "fat-tree", "--k", "4", "--elements", "320", "--mode", "ina",
             "--loss", "0.05", "--seed", "3"]


@lru_cache(maxsize=1)
def _mpi_works() -> bool:
    if not mpi_available():
        return False
    return subprocess.run([sys.executable, "-c", "from mpi4py import MPI"], capture_output=True).returncode == 0


def _scenario(tmp: Path, args: list[str], ranks: int) -> tuple[str, dict[str, bytes]]:
    out = tmp / f"{args[0]}-{ranks}"
    out.mkdir()
    argv = ["scenario", *args, "--json", "--out", str(out)]
    if args[0] == "incast":     # the page once (it is made from report.json, compared for both)
        argv += ["--report", str(out / "report.html")]
    if ranks == 1:
        result = CliRunner().invoke(main, argv)
        assert result.exit_code == 0, result.output
        stdout = result.output
    else:
        # With the per-rank report asked for: it goes to stderr, every output stays one process's.
        proc = subprocess.run(dataplane_command(*argv, "--ranks", str(ranks)), capture_output=True, text=True,
                              timeout=300, env={**os.environ, "DATAPLANE_RANK_STATS": "1"})
        assert proc.returncode == 0, proc.stderr
        assert f"rank {ranks - 1}: " in proc.stderr and "critical path" in proc.stderr, proc.stderr
        stdout = proc.stdout
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    # What differs, and must: the command line and the --ranks option the report records.
    prov = json.loads(files["report.json"])["provenance"]
    command = prov["command"]
    for name, old, new in (("report.json", json.dumps(command)[1:-1], "COMMAND"),
                           ("report.html", html.escape(command), "COMMAND"),
                           ("report.json", f'"ranks": {ranks}', '"ranks": N'),
                           ("report.html", f"<td>ranks</td><td>{ranks}</td>", "<td>ranks</td><td>N</td>")):
        if name in files:
            files[name] = files[name].replace(old.encode(), new.encode())
    assert prov["options"]["ranks"] == ranks
    return stdout, files


@pytest.fixture(scope="module", params=[INCAST, ALLREDUCE], ids=["incast", "allreduce"])
def runs(request, tmp_path_factory):
    if not _mpi_works():
        pytest.skip("needs MPI (mpiexec) and a working mpi4py")
    tmp = tmp_path_factory.mktemp(request.param[0])
    return request.param[0], _scenario(tmp, request.param, 1), _scenario(tmp, request.param, 2)


@pytest.mark.no_pypy
@pytest.mark.ranks
def test_json_and_files_are_identical_on_two_ranks(runs):
    _, (one, files1), (two, files2) = runs
    assert two == one
    assert sorted(files2) == sorted(files1) and {"results.json", "report.json"} <= set(files1)
    assert [name for name in files1 if files1[name] != files2[name]] == []


@pytest.mark.no_pypy
@pytest.mark.ranks
def test_the_runs_cover_what_crosses_the_cut(runs):
    """Not an empty comparison: incast paused, marked and sampled its queue; the allreduce lost
    packets on the fat-tree's links, retransmitted, and still summed within the bound."""
    name, (one, files), _ = runs
    row = json.loads(one)["results"][0]
    if name == "incast":
        assert row["pause_frames"] > 0 and row["paused_ports"] > 0 and row["cnps"] > 0
        assert row["qdepth_max_bytes"] > 0 and row["sim_ns"] > 0
    else:
        full = json.loads(files["results.json"])["results"][0]
        assert row["workers"] == 16 and row["retransmissions"] > 0
        assert 0 < row["max_abs_error"] <= full["error_bound"]
