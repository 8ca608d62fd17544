"""cli.scenario: a scenario module that fails to import is reported as a bug, never dropped silently."""
from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

import dataplane.scenarios as scenarios_pkg
from dataplane.cli import main


@pytest.fixture
def broken_scenario(tmp_path, monkeypatch):
    (tmp_path / "broken.py").write_text("raise RuntimeError('a bug in this scenario')\n")
    (tmp_path / "needs_dep.py").write_text("import no_such_dependency_here\ncommand = None\n")
    monkeypatch.setattr(scenarios_pkg, "__path__", [*scenarios_pkg.__path__, str(tmp_path)])
    yield
    for name in ("broken", "needs_dep"):
        sys.modules.pop(f"dataplane.scenarios.{name}", None)


def test_listing_scenarios_raises_a_scenario_import_error(broken_scenario):
    """dataplane scenario --help imports every scenario; one that raises stops it with that error."""
    result = CliRunner().invoke(main, ["scenario", "--help"])
    assert isinstance(result.exception, (RuntimeError, ModuleNotFoundError))


def test_a_scenario_missing_a_dependency_is_not_an_unknown_scenario(broken_scenario):
    """ModuleNotFoundError for what a scenario imports is a bug; only the scenario itself missing
    means 'no such command'."""
    result = CliRunner().invoke(main, ["scenario", "needs-dep"])
    assert isinstance(result.exception, ModuleNotFoundError) and result.exception.name == "no_such_dependency_here"
    unknown = CliRunner().invoke(main, ["scenario", "no-such-scenario"])
    assert unknown.exit_code == 2 and "No such command" in unknown.output
