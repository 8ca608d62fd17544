"""``CommandForks``: a command run in a fork answers as a process of its own would."""
from __future__ import annotations

import os

import pytest

from dataplane.testing.forks import CommandForks

pytestmark = pytest.mark.no_pypy   # a helper of the CPython side's process-per-command tests


@pytest.fixture(scope="module")
def forks():
    driver = CommandForks()
    yield driver
    driver.close()


def test_status_stdout_and_stderr_come_back_apart(forks, tmp_path):
    done = forks.run(["--version"], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("dataplane, version") and done.stderr == ""
    done = forks.run(["run", "--duration"], tmp_path)
    assert done.returncode == 2 and done.stdout == "" and "--duration" in done.stderr


def test_each_command_has_its_own_folder_and_environment(forks, tmp_path):
    args = ["scenario", "incast", "--senders", "2", "--transfer", "64KB", "--mode", "droptail", "--out", "o"]
    for name, plots in (("a", "0"), ("b", "1")):
        (tmp_path / name).mkdir()
        done = forks.run(args, tmp_path / name, env={**os.environ, "DATAPLANE_PLOTS": plots})
        assert done.returncode == 0, done.stderr
    assert not (tmp_path / "a" / "o" / "queue_depth.png").exists()
    assert (tmp_path / "b" / "o" / "queue_depth.png").exists()


def test_a_command_past_its_timeout_is_killed_and_the_next_runs(forks, tmp_path):
    done = forks.run(["scenario", "incast", "--senders", "16"], tmp_path, timeout=1)
    assert done.returncode is None
    assert forks.run(["--version"], tmp_path).returncode == 0
