"""pytest plugin: every ``NAME.stf`` next to a ``NAME.p4`` is one test item.

Installed with the package (entry point ``pytest11``), so ``pytest`` in a project that
keeps P4 programs with their STF tests runs them with no conftest. A failing item
shows the port, the expected and received bytes, and where they differ.
"""
from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collect_file(parent, file_path: Path):
    if file_path.suffix == ".stf" and file_path.with_suffix(".p4").is_file():
        return StfFile.from_parent(parent, path=file_path)
    return None


class StfFile(pytest.File):
    def collect(self):
        yield StfItem.from_parent(self, name=self.path.stem)


class StfFailure(Exception):
    pass


class StfItem(pytest.Item):
    def runtest(self) -> None:
        from dataplane.errors import CompileError, DataplaneError
        from dataplane.testing.stf_runner import run_stf_file

        try:
            result = run_stf_file(self.path.with_suffix(".p4"), self.path)
        except CompileError as err:
            raise StfFailure(err.render()) from None
        except DataplaneError as err:
            raise StfFailure(str(err)) from None
        if not result.passed:
            raise StfFailure(result.report())

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, StfFailure):
            return f"{self.path.name}: {excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, 0, f"stf: {self.path.name}"
