"""A bug in dataplane reads as a bug: 'internal error', the frame it failed in, how to report
it, and exit status 3, distinct from a user's error (1) and a usage error (2)."""
from __future__ import annotations

import sys

import pytest

import dataplane.lang.frontend as frontend
from dataplane.cli import run
from dataplane.cli.errors import EXIT_INTERNAL, EXIT_USAGE, EXIT_USER
from dataplane.errors import InternalError
from dataplane.resources import builtin_program


def _run(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["dataplane", *args])
    with pytest.raises(SystemExit) as info:
        run()
    return info.value.code, capsys.readouterr().err


def _broken(*_args, **_kwargs):
    raise InternalError("no code generator for expression Frob")


def test_an_internal_error_is_reported_as_a_bug_with_exit_status_3(monkeypatch, capsys):
    monkeypatch.setattr(frontend, "compile_file", _broken)
    code, err = _run(monkeypatch, capsys, "compile", str(builtin_program("ipv4_router")))
    assert code == EXIT_INTERNAL == 3
    first, where, how = err.splitlines()[:3]
    assert first == "internal error [internal]: no code generator for expression Frob"
    assert where.startswith("  in dataplane/cli/compile.py:") and where.endswith("compile_command()")   # the innermost frame of ours
    assert "This is a bug in dataplane" in how and "report it" in how and "Traceback" not in err


def test_the_frame_named_is_the_package_s_whatever_the_clone_folder_is_called(monkeypatch, capsys,
                                                                             raiser_beside_dataplane):
    """A frame from a file under another folder called ``dataplane`` (a clone's tests, a venv in
    it) is not dataplane's code: the report names the package's innermost frame, by its path
    inside the package."""
    broken = raiser_beside_dataplane("broken", "KeyError('frob')")
    monkeypatch.setattr(frontend, "compile_file", broken)
    code, err = _run(monkeypatch, capsys, "compile", str(builtin_program("ipv4_router")))
    where = err.splitlines()[1]
    assert code == EXIT_INTERNAL and where.startswith("  in dataplane/cli/compile.py:") and where.endswith("compile_command()")


def test_an_unexpected_exception_is_a_bug_too_and_the_traceback_is_on_request(monkeypatch, capsys):
    def key_error(*_a, **_k):
        return {}["missing"]
    monkeypatch.setattr(frontend, "compile_file", key_error)
    code, err = _run(monkeypatch, capsys, "compile", str(builtin_program("ipv4_router")))
    assert code == EXIT_INTERNAL and err.startswith("internal error [internal]: KeyError: 'missing'")
    assert "Traceback" not in err
    monkeypatch.setenv("DATAPLANE_TRACEBACK", "1")
    code, err = _run(monkeypatch, capsys, "compile", str(builtin_program("ipv4_router")))
    assert code == EXIT_INTERNAL and "Traceback (most recent call last)" in err and "key_error" in err


def test_user_and_usage_errors_keep_their_statuses(monkeypatch, capsys, tmp_path):
    bad = tmp_path / "bad.p4"
    bad.write_text("control c() { apply { x = 1; } }\n")
    code, err = _run(monkeypatch, capsys, "compile", str(bad))
    assert code == EXIT_USER == 1 and "error [unknown-name]" in err and "internal" not in err
    code, _ = _run(monkeypatch, capsys, "compile", "--no-such-option", str(bad))
    assert code == EXIT_USAGE == 2


def test_a_bug_inside_a_pipeline_names_the_p4_line_it_was_running(monkeypatch, capsys):
    """An exception raised under the generated code (here by a broken mark_to_drop) is reported
    with the P4 file:line:col whose generated code was running."""
    from dataplane.arch.v1model import V1ModelSwitch

    bind = V1ModelSwitch._bind_functions

    def broken_functions(self):
        def mark_to_drop(ctx, sm):
            raise KeyError("broken extern")
        return {**bind(self), "mark_to_drop": mark_to_drop}
    monkeypatch.setattr(V1ModelSwitch, "_bind_functions", broken_functions)
    program = builtin_program("ipv4_router")
    code, err = _run(monkeypatch, capsys, "run-packet", str(program), "--engine", "packet", "--packet",
                     "000000000002 000000000001 0800 45000014 00010000 40010000 c0000201 0b000001")
    lines = program.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "mark_to_drop(" in text)
    assert code == EXIT_INTERNAL, err
    assert f"while running {program}:{line}:" in err
