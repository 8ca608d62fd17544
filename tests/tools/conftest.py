"""The tools under test are scripts in tools/, not a package: ``load_tool`` imports one by file."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"


@pytest.fixture(scope="module")
def load_tool():
    """``load_tool("bench_sim")``: tools/bench_sim.py as the module ``bench_sim``. While the test
    module runs, tools/ is on sys.path (tools import their siblings, some only when called) and
    the module is in sys.modules (dataclasses look their module up there); both are undone after."""
    before = set(sys.modules)
    sys.path.insert(0, str(TOOLS))

    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    try:
        yield load
    finally:
        sys.path.remove(str(TOOLS))
        for name in set(sys.modules) - before:
            if Path(getattr(sys.modules[name], "__file__", None) or "/").parent == TOOLS:
                del sys.modules[name]
