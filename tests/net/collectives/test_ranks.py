"""``dataplane collective`` on 2 MPI ranks prints what one process prints (skipped without MPI)."""
from __future__ import annotations

import json
import subprocess
import sys
from functools import lru_cache

import pytest

from dataplane.net.parallel.launch import mpi_available
from dataplane.testing.processes import stdout_on_ranks


@lru_cache(maxsize=1)
def _mpi_works() -> bool:
    if not mpi_available():
        return False
    return subprocess.run([sys.executable, "-c", "from mpi4py import MPI"], capture_output=True).returncode == 0


pytestmark = [pytest.mark.no_pypy, pytest.mark.ranks, pytest.mark.skipif(not _mpi_works(), reason="needs MPI (mpiexec) and mpi4py")]


@pytest.mark.parametrize("op, algo", [("allreduce", "ring"), ("alltoall", "direct")])
def test_a_collective_is_identical_on_one_and_two_ranks(op, algo):
    args = ["collective", op, "--algo", algo, "--topology", "fat-tree", "--k", "4", "--sizes", "4K:64K",
            "--factor", "16", "--json"]
    outs = stdout_on_ranks(*args)
    assert outs[0] == outs[1] and '"wrong": 0' in outs[0]


def test_a_training_job_is_identical_on_one_and_two_ranks(tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text("gpus: 8\nsteps: 1\nbucket: 256KiB\nparallel: {tensor: 2}\n"
                   "model: {parameters: 400K, layers: 4, tokens: 8K, flops: 100T}\n")
    args = ["scenario", "training", str(job), "--what-if", "flap", "--flap-for", "200us", "--json"]
    outs = stdout_on_ranks(*args)
    assert outs[0] == outs[1]
    # the flap must hit the job's traffic (resends cross the ranks' cut), or the comparison proves little
    flap = [r for r in json.loads(outs[0])["results"] if r["fault"] == "flap"]
    assert flap and flap[0]["retransmitted"] > 0
