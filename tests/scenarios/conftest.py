"""Fixtures for the scenario tests."""
from __future__ import annotations

import json
from typing import Callable

import pytest
from click.testing import CliRunner

from dataplane.cli import main


@pytest.fixture(scope="session")
def loadbalance_row() -> Callable[..., dict]:
    """``dataplane scenario loadbalance --k 4 --json`` with more arguments, which must pick one
    run: its result row (the command must succeed)."""
    def run(*args: str) -> dict:
        result = CliRunner().invoke(main, ["scenario", "loadbalance", "--k", "4", "--json", *args])
        assert result.exit_code == 0, result.output
        (row,) = json.loads(result.output)["results"]
        return row
    return run
