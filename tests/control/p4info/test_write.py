"""P4Info files by extension (dataplane.control.p4info.write) and ``dataplane compile --p4info``."""
from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("p4.config.v1.p4info_pb2")

from click.testing import CliRunner  # noqa: E402

from dataplane.cli import main  # noqa: E402
from dataplane.control.p4info import P4InfoError, build_p4info, read_p4info, write_p4info  # noqa: E402
from dataplane.lang.frontend import compile_source  # noqa: E402
from dataplane.testing.skeleton import v1model_program  # noqa: E402

PROGRAM = v1model_program(ingress_locals="""
    action a(bit<8> v) { meta.x = v; }
    table t { key = { meta.y : exact; } actions = { a; } }""", ingress="t.apply();")


@pytest.fixture
def info():
    return build_p4info(compile_source(PROGRAM, "p.p4").program)


@pytest.mark.parametrize("suffix", [".txtpb", ".txt", ".pb.txt", ".bin", ".pb", ".json"])
def test_every_format_round_trips(tmp_path, info, suffix):
    path = tmp_path / ("p4info" + suffix)
    write_p4info(info, path)
    assert read_p4info(path) == info


def test_text_has_p4cs_header_and_json_is_json(tmp_path, info):
    write_p4info(info, tmp_path / "a.txtpb")
    assert (tmp_path / "a.txtpb").read_text().startswith("# proto-file: p4/config/v1/p4info.proto\n")
    write_p4info(info, tmp_path / "a.json")
    assert '"tables"' in (tmp_path / "a.json").read_text()
    write_p4info(info, tmp_path / "a.bin")
    assert (tmp_path / "a.bin").read_bytes() == info.SerializeToString()


def test_unknown_extensions_and_bad_files_are_clear_errors(tmp_path, info):
    with pytest.raises(P4InfoError, match="unknown P4Info file kind"):
        write_p4info(info, tmp_path / "a.yaml")
    (tmp_path / "bad.txtpb").write_text("tables { nonsense: 1 }")
    with pytest.raises(P4InfoError, match="not a valid P4Info"):
        read_p4info(tmp_path / "bad.txtpb")
    with pytest.raises(P4InfoError, match="cannot read"):
        read_p4info(tmp_path / "missing.bin")


def test_compile_writes_the_p4info(tmp_path, info):
    prog = tmp_path / "p.p4"
    prog.write_text(PROGRAM)
    out = tmp_path / "p.p4info.txtpb"
    result = CliRunner().invoke(main, ["compile", "--check", str(prog), "--p4info", str(out)])
    assert result.exit_code == 0, result.output
    assert read_p4info(out) == build_p4info(compile_source(PROGRAM, str(prog)).program)


def test_compile_reports_p4info_errors_without_a_traceback(tmp_path):
    prog = tmp_path / "p.p4"
    prog.write_text(v1model_program(ingress_locals="""
        @id(0x02000001) action a() { }
        table t { key = { meta.y : exact; } actions = { a; } }""", ingress="t.apply();"))
    proc = subprocess.run([sys.executable, "-m", "dataplane", "compile", "--check", str(prog),
                           "--p4info", str(tmp_path / "x.bin")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert f"{prog}:" in proc.stderr and "@id has the wrong 8-bit prefix" in proc.stderr   # located
