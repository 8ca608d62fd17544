"""--ranks N: when it launches mpiexec, and the errors when it cannot."""
from __future__ import annotations

import pytest

from dataplane.net.parallel import launch, session
from dataplane.net.parallel.runtime import ParallelError


@pytest.fixture
def one_process(monkeypatch):
    for var in session._SIZE_VARS:
        monkeypatch.delenv(var, raising=False)


def test_one_rank_launches_nothing(one_process):
    assert launch.relaunch(1) is None
    assert session.mpi_world_size() == 1


def test_no_mpiexec_is_a_clear_error(one_process, monkeypatch):
    monkeypatch.delenv("DATAPLANE_MPIEXEC", raising=False)
    monkeypatch.setattr(launch.shutil, "which", lambda name: None)
    with pytest.raises(ParallelError, match="apt-get install openmpi-bin"):
        launch.relaunch(2)


def test_under_mpiexec_the_sizes_must_agree(monkeypatch):
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "3")
    assert session.mpi_world_size() == 3
    assert launch.relaunch(3) is None and launch.relaunch(1) is None    # already launched: run
    with pytest.raises(ParallelError, match="--ranks 2 but mpiexec started 3 ranks"):
        launch.relaunch(2)
