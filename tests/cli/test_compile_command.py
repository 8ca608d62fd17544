"""The `dataplane compile` command, run as a user runs it: the installed console script."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import dataplane
from dataplane.resources import data_dir

# A process per command: 14 s under PyPy against 5 here,
# and the front end's PyPy runs are tests/lang's, in-process.
pytestmark = pytest.mark.no_pypy


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    exe = shutil.which("dataplane")
    cmd = [exe, *args] if exe else [sys.executable, "-c", "from dataplane.cli import run; run()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=120)


def test_builtin_program_compiles_by_name():
    """`dataplane compile ipv4_router` finds the shipped program and summarises it."""
    r = run("compile", "ipv4_router")
    assert r.returncode == 0, r.stderr
    assert "table ipv4_lpm key(hdr.ipv4.dstAddr:lpm)" in r.stdout
    assert "V1Switch(p=MyParser" in r.stdout


def test_shipped_data_is_found_by_the_package():
    """grammar/, programs/ and topologies/ are reachable from the package."""
    for name in ("grammar", "programs", "topologies"):
        assert data_dir(name).is_dir()
    assert (data_dir("grammar") / "p4.lark").is_file()
    assert (data_dir("programs") / "ipv4_router.p4").is_file()


@pytest.mark.skipif(not os.environ.get("CI"), reason="CI installs the wheel; a developer may use -e")
def test_ci_tests_the_installed_wheel_not_the_checkout():
    """In CI the package comes from site-packages, with its data copied inside it."""
    assert "site-packages" in dataplane.__file__
    assert "_data" in str(data_dir("grammar"))


def test_json_output_holds_the_typed_ir(tmp_path):
    """-o writes the program IR; tables carry keys, match kinds and actions."""
    out = tmp_path / "ir.json"
    r = run("compile", "ipv4_router", "--check", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    data = json.loads(out.read_text())
    assert data["architecture"] == "v1model"
    table = data["controls"]["MyIngress"]["tables"]["ipv4_lpm"]
    assert [k["match_kind"] for k in table["keys"]] == ["lpm"]
    assert [a["action"] for a in table["actions"]] == ["ipv4_forward", "drop", "NoAction"]
    assert data["headers"]["ipv4_t"]["width"] == 160


def test_syntax_error_reports_location_and_caret_without_traceback(tmp_path):
    """A malformed program prints file:line:col, the line and a caret, and exits 1."""
    bad = tmp_path / "bad.p4"
    bad.write_text("#include <core.p4>\nheader h_t { bit<8> a }\n")
    r = run("compile", str(bad))
    assert r.returncode == 1
    assert f"{bad}:2:23: error [syntax]: syntax error: unexpected '}}', expected ';'" in r.stderr
    assert "header h_t { bit<8> a }\n                      ^" in r.stderr
    assert "Traceback" not in r.stderr


def test_type_errors_are_reported_together(tmp_path):
    """Several type errors in one file come out in one run, with a count."""
    bad = tmp_path / "two.p4"
    bad.write_text(
        "#include <core.p4>\n#include <v1model.p4>\n"
        "header h_t { bit<8> a; bit<16> b; }\n"
        "control C(inout h_t h) { apply { h.a = h.b; h.c = 1; } }\n")
    r = run("compile", str(bad))
    assert r.returncode == 1
    assert "two.p4:4:40: error [type-mismatch]: type mismatch in assignment to 'h.a': expected bit<8>, got bit<16>" in r.stderr
    assert "two.p4:4:45: error [unknown-member]: header 'h_t' has no field 'c'" in r.stderr
    assert "2 errors" in r.stderr


def test_missing_program_is_a_usage_error():
    """An unknown program name is reported as such, not as a crash."""
    r = run("compile", "no_such_program")
    assert r.returncode == 2
    assert "no built-in program named 'no_such_program'" in r.stderr
    assert "Traceback" not in r.stderr


def test_defines_reach_the_preprocessor(tmp_path):
    """-D sets a macro the program tests with #ifdef."""
    prog = tmp_path / "d.p4"
    prog.write_text((data_dir("programs") / "ipv4_router.p4").read_text().replace(
        "#include <v1model.p4>", "#include <v1model.p4>\n#ifndef WITH_X\n#error WITH_X is required\n#endif"))
    assert run("compile", str(prog), "--check").returncode == 1
    assert run("compile", str(prog), "--check", "-D", "WITH_X").returncode == 0


@pytest.mark.parametrize("define, problem", [
    ("=1", "the macro name is missing"),
    ("1X=2", "'1X' is not a macro name"),
    ("A B", "'A B' is not a macro name"),
    ("A-B=1", "'A-B' is not a macro name"),
])
def test_defines_without_a_valid_name_are_usage_errors(define, problem):
    """-D needs NAME or NAME=VALUE with NAME an identifier, as cpp: a bad one is a usage error
    naming the value, before anything is compiled."""
    from click.testing import CliRunner

    from dataplane.cli import main

    r = CliRunner().invoke(main, ["compile", "--check", "ipv4_router", "-D", define])
    assert r.exit_code == 2, r.output
    assert f"Invalid value for '-D': {define!r}: {problem}" in r.output


def test_defines_take_a_value_or_default_to_one(tmp_path):
    """-D A=x defines A as x, -D B as 1 and -D E= as nothing (cpp's rules), seen in the preprocessed text."""
    from click.testing import CliRunner

    from dataplane.cli import main

    source = tmp_path / "d.p4"
    source.write_text("A B E|\n")
    r = CliRunner().invoke(main, ["compile", str(source), "--dump-after", "preprocess", "-D", "A=x", "-D", "B",
                                  "-D", "E="])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("x 1 |")


def test_max_compile_time_bounds_the_front_end():
    """--max-compile-time SECONDS: a budget the front end cannot meet is an error located where it
    stopped (exit 1); one it meets compiles; zero or less, or no finite number, is a usage error."""
    from click.testing import CliRunner

    from dataplane.cli import main

    r = CliRunner().invoke(main, ["compile", "--check", "ipv4_router", "--max-compile-time", "1e-9"])
    assert r.exit_code == 1
    assert "ipv4_router.p4:1:1: error [limit]: the compile took longer than its limit of 1e-09 s" in r.output
    assert CliRunner().invoke(main, ["compile", "--check", "ipv4_router", "--max-compile-time", "600"]).exit_code == 0
    for bad in ("0", "-1", "nan", "inf"):
        r = CliRunner().invoke(main, ["compile", "--check", "ipv4_router", "--max-compile-time", bad])
        assert r.exit_code == 2 and "Invalid value for '--max-compile-time'" in r.output


def test_emit_python_writes_the_module_the_switch_runs(tmp_path):
    """--emit-python writes the generated pipeline module: importable, each statement's line
    commented with its P4 position, and the very source a switch running the program compiles."""
    import importlib.util

    from click.testing import CliRunner

    from dataplane.cli import main
    from dataplane.control.switch import Switch

    out = tmp_path / "router_pipeline.py"
    r = CliRunner().invoke(main, ["compile", "--check", "ipv4_router", "--emit-python", str(out)])  # in process: faster
    assert r.exit_code == 0, r.output
    source = out.read_text()
    program = data_dir("programs") / "ipv4_router.p4"
    lines = program.read_text().splitlines()
    ttl = next(i for i, text in enumerate(lines, 1) if "hdr.ipv4.ttl = hdr.ipv4.ttl - 1" in text)
    assert f"  # ipv4_router.p4:{ttl}:" in source
    assert source == Switch.from_file(program).dp.pipeline.source
    spec = importlib.util.spec_from_file_location("router_pipeline", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(module.build)
