"""tools/mutation_check.py: its table stays runnable (every planted text is in its file exactly
once, every named test exists), a planted file is put back byte for byte with its modification
time, from memory or from the journal a killed run leaves, and -k picks entries by what they say."""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mc(load_tool):
    return load_tool("mutation_check")


def test_every_entry_can_be_planted_and_names_tests_that_exist(mc):
    """A stale entry (its text edited away, or a test renamed) is reported here, before anyone
    runs the check: update the entry in tools/mutation_check.py to the code as it is now."""
    stale = []
    for m in mc.MUTATIONS:
        text = (ROOT / m.path).read_text()
        if text.count(m.old) != 1 or m.old == m.new:
            stale.append(f"{m.rule}: {m.old!r} occurs {text.count(m.old)} times in {m.path}")
        for node in m.tests:
            path, _, name = node.partition("::")
            assert (ROOT / path).is_file(), f"{m.rule}: no test file {path}"
            if name:
                tree = ast.parse((ROOT / path).read_text())
                names = {f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
                assert name.split("[")[0] in names, f"{m.rule}: no test {node}"
    assert stale == []
    assert len({(m.path, m.old, m.new) for m in mc.MUTATIONS}) == len(mc.MUTATIONS)


def test_a_planted_file_is_put_back_with_its_mtime(mc, tmp_path, monkeypatch):
    target = tmp_path / "code.py"
    target.write_bytes(b"limit = 1 if a >= b else 2\n")
    os.utime(target, ns=(1_600_000_000_000_000_000, 1_600_000_000_123_456_789))
    restorer = mc.Restorer()
    monkeypatch.setattr(restorer, "journal", tmp_path / "journal.json")
    saved = restorer.plant(target, b"limit = 1 if a > b else 2\n", 1_700_000_000)
    assert target.read_bytes() == b"limit = 1 if a > b else 2\n" and restorer.journal.exists()
    assert target.stat().st_mtime_ns == 1_700_000_000 * 10**9
    restorer.restore(saved)
    assert target.read_bytes() == b"limit = 1 if a >= b else 2\n"
    assert target.stat().st_mtime_ns == 1_600_000_000_123_456_789 and not restorer.journal.exists()


def test_a_killed_run_s_journal_puts_the_file_back_on_the_next_start(mc, tmp_path, monkeypatch):
    target = tmp_path / "code.py"
    target.write_bytes(b"x <= y\n")
    mtime = target.stat().st_mtime_ns
    restorer = mc.Restorer()
    monkeypatch.setattr(restorer, "journal", tmp_path / "journal.json")
    restorer.plant(target, b"x < y\n", 1_700_000_000)      # ... and the process dies here
    again = mc.Restorer()
    monkeypatch.setattr(again, "journal", tmp_path / "journal.json")
    assert again.replay() == str(target)
    assert target.read_bytes() == b"x <= y\n" and target.stat().st_mtime_ns == mtime
    assert again.replay() is None


def test_k_selects_by_rule_file_or_test_but_not_by_the_common_prefixes(mc):
    assert {m.path for m in mc.selected(mc.MUTATIONS, "pacer")} == {"dataplane/net/core/pacing.py"}
    assert all("tap" in m.rule.lower() or "netns" in m.path for m in mc.selected(mc.MUTATIONS, "tap"))
    assert mc.selected(mc.MUTATIONS, "dataplane/") == []
    assert mc.where(mc.MUTATIONS[0]).startswith(mc.MUTATIONS[0].path + ":")
