"""pytest plugin: every ``NAME.stf`` next to a ``NAME.p4`` is one test item, and every case of a
``NAME.ptest.yaml`` next to a ``NAME.p4`` is one too (see ``dataplane.testing.packet_test``).

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
    if file_path.name.endswith(".ptest.yaml"):
        program = file_path.with_name(file_path.name[: -len(".ptest.yaml")] + ".p4")
        if program.is_file():
            return PacketTestFile.from_parent(parent, path=file_path)
    return None


class PacketTestFile(pytest.File):
    """One item per case; the switch is built once per file and the cases run in order."""

    def collect(self):
        import yaml

        spec = yaml.safe_load(self.path.read_text()) or {}
        for i, case in enumerate(spec.get("cases") or [], 1):
            yield PacketTestItem.from_parent(self, name=str(case.get("name", f"case {i}")), index=i - 1)


class PacketTestItem(pytest.Item):
    def __init__(self, *, index: int, **kwargs):
        super().__init__(**kwargs)
        self.index = index

    def runtest(self) -> None:
        from dataplane.errors import CompileError, DataplaneError
        from dataplane.testing.packet_test import run_packet_test

        cache = self.parent.__dict__.setdefault("_results", None)
        if cache is None:
            program = self.path.with_name(self.path.name[: -len(".ptest.yaml")] + ".p4")
            try:
                cache = run_packet_test(program, self.path)
            except CompileError as err:
                raise StfFailure(err.render()) from None
            except DataplaneError as err:
                raise StfFailure(str(err)) from None
            self.parent.__dict__["_results"] = cache
        result = cache[self.index]
        if not result.passed:
            raise StfFailure(result.detail)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, StfFailure):
            return f"{self.path.name} [{self.name}]: {excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, 0, f"packet test: {self.path.name} [{self.name}]"


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
