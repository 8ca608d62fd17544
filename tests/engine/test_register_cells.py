"""v1model registers keep their cells in the smallest unsigned ``array`` that holds their width
(``externs.register_cells``), not a list of 8-byte references: the same values read back, the
same runs. Widths on each item size's edge and one past it, the largest value of each width
written and read back (through the control plane and through a P4 program's masked write), and
the built-in scenarios whose programs keep registers (the allreduce fat-tree, with loss, and the
incast's ECN switches) give the same ``--json`` and report as with list cells."""
from __future__ import annotations

import json
from array import array
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.engine import externs
from dataplane.engine.externs import Register, register_cells

# (width, bytes a cell): 8-bit items up to 8 bits, 16 up to 16, 32 up to 32, 64 up to 64.
EDGES = [(1, 1), (8, 1), (9, 2), (16, 2), (17, 4), (32, 4), (33, 8), (48, 8), (64, 8)]


@pytest.mark.parametrize("width, item", EDGES)
def test_each_width_gets_the_smallest_item_that_holds_it(width: int, item: int) -> None:
    cells = register_cells(5, width)
    assert isinstance(cells, array) and cells.itemsize == item and list(cells) == [0] * 5
    r = Register("r", 5, width)
    r.cp_write(4, 2**width - 1)
    r.write(None, 3, 2**width + 7)          # a write keeps the low ``width`` bits, as BMv2
    assert r.cp_read(4) == 2**width - 1 and r.read(None, 3, width) == 7 % 2**width
    r.reset()
    assert list(r.values) == [0] * 5 and len(r.values) == 5


def test_past_64_bits_the_cells_are_a_list() -> None:
    r = Register("wide", 3, 65)
    assert isinstance(r.values, list)
    r.cp_write(1, 2**65 - 1)
    assert r.cp_read(1) == 2**65 - 1
    with pytest.raises(externs.ExternError, match="does not fit in 65 bits"):
        r.cp_write(1, 2**65)


def test_reset_keeps_the_cells_the_generated_code_holds() -> None:
    r = Register("r", 4, 32)
    held = r.values
    r.cp_write(2, 9)
    r.reset()
    assert r.values is held and list(held) == [0, 0, 0, 0]


SCENARIOS = {
    "allreduce fat-tree, loss": ["scenario", "allreduce", "--topology", "fat-tree", "--k", "4", "--elements", "2048",
                                 "--mode", "ina", "--loss", "0.05"],
    "incast, ecn": ["scenario", "incast", "--senders", "4", "--mode", "ecn", "--transfer", "256KB"],
}


def run(argv: list[str], out: Path) -> dict[str, Any]:
    printed = CliRunner().invoke(main, [*argv, "--json"])
    assert printed.exit_code == 0, printed.output
    written = CliRunner().invoke(main, [*argv, "--out", str(out)])
    assert written.exit_code == 0, written.output
    report = json.loads((out / "report.json").read_text())
    report.pop("provenance")         # names the output folder
    return {"json": printed.output, "report": report}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenarios_run_as_with_list_cells(name: str, tmp_path: Path, monkeypatch: Any) -> None:
    arrays = run(SCENARIOS[name], tmp_path / "arrays")
    monkeypatch.setattr(externs, "register_cells", lambda size, width: [0] * size)
    monkeypatch.setattr(externs, "no_cells", lambda width: [])      # what a Register starts with
    lists = run(SCENARIOS[name], tmp_path / "lists")
    assert arrays == lists and arrays["report"]["runs"]
