"""Generated code compiled once and kept (engine.code_cache): the same code from disk on the next
compile of the same text, a new entry for other text, the least recently used pruned."""
from __future__ import annotations

import sys

import pytest

from dataplane.engine import code_cache

pytestmark = pytest.mark.skipif(sys.implementation.name != "cpython", reason="the code cache is CPython's")


def _text(n: int) -> str:
    return "".join(f"def f{i}(x):\n    return x + {i * n}\n" for i in range(400))


def test_the_same_text_loads_its_code_from_disk_and_runs_the_same(tmp_path, monkeypatch):
    monkeypatch.setenv("DATAPLANE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DATAPLANE_CACHE", raising=False)
    first = code_cache.compiled(_text(1), "<gen>")
    (entry,) = (tmp_path / "code").glob("*.marshal")
    monkeypatch.setattr(code_cache, "compile", lambda *a: pytest.fail("compiled again"), raising=False)
    again = code_cache.compiled(_text(1), "<gen>")
    assert again is not first and again == first
    ns: dict = {}
    exec(again, ns)
    assert ns["f3"](10) == 13 and again.co_filename == "<gen>"
    monkeypatch.undo()
    monkeypatch.setenv("DATAPLANE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(code_cache, "KEEP", 2)
    for n in (2, 3):
        code_cache.compiled(_text(n), "<gen>")
    assert len(list((tmp_path / "code").glob("*.marshal"))) == 2 and not entry.exists()
