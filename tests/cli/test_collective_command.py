"""``dataplane collective``: nccl-tests' table and JSON, its files, and clear errors for bad options."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dataplane.cli import main

SMALL = ["--topology", "leaf-spine", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2"]


def run(*args: str):
    return CliRunner().invoke(main, ["collective", *args])


def test_the_table_has_nccl_tests_columns_and_a_row_per_size():
    result = run("allreduce", *SMALL, "--sizes", "1K:4K", "--factor", "2")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if "size" in line and "busbw" in line)
    for column in ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "bound"):
        assert column in header
    rows = [line.split() for line in lines if line and not line.startswith("#")]
    assert [r[0] for r in rows] == ["1024", "2048", "4096"]
    assert [r[1] for r in rows] == ["256", "512", "1024"] and all(r[2:5] == ["float", "sum", "-1"] for r in rows)
    assert all(r[8] == "0" for r in rows)                      # #wrong
    assert "# Avg bus bandwidth" in result.output


def test_json_rows_carry_nccl_tests_fields_and_the_bound():
    result = run("alltoall", *SMALL, "--sizes", "8K", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    row = data["rows"][0]
    assert data["algorithm"] == "pairwise" and row["size"] == 8192 and row["count"] == 2048
    # busbw = algbw x (n-1)/n with 4 ranks; both rounded to 3 places
    assert row["busbw"] == pytest.approx(row["algbw"] * 3 / 4, abs=2e-3)
    assert row["wrong"] == 0 and 0 < row["bound_fraction"] <= 1


def test_out_writes_results_and_a_plot(tmp_path, plots_drawn):
    result = run("allgather", *SMALL, "--sizes", "4K:8K", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "o" / "results.json").read_text())
    assert len(data["results"]) == 2 and (tmp_path / "o" / "busbw.png").stat().st_size > 1000


@pytest.mark.parametrize("args, message", [
    (["allreduce", *SMALL, "--sizes", "4K:1K"], "MIN <= MAX"),
    (["allreduce", *SMALL, "--sizes", "lots"], "cannot read"),
    (["allreduce", *SMALL, "--algo", "butterfly"], "no algorithm 'butterfly'"),
    (["alltoall", *SMALL, "--algo", "ring"], "no algorithm 'ring'"),
    (["allreduce", *SMALL, "--gpus", "h1,h99"], "h99"),
    (["allreduce", *SMALL, "--gpus", "0"], "--gpus 0"),
    (["allreduce", "--algo", "ina", *SMALL], "fat-tree"),
    (["allreduce", *SMALL, "--bandwidth", "fast"], "bandwidth"),
    (["allreduce", "--topology", "fat-tree", "--k", "5"], "even"),
    (["allreduce", "--topology", "no-such-file.yaml"], "no-such-file"),
    (["bcast"], "bcast"),
])
def test_bad_options_are_clear_errors(args, message):
    result = run(*args, *([] if "--sizes" in args else ["--sizes", "1K"]))
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
