"""--Werror and --Wno on the commands that compile a program: warnings print with their codes,
--Wno CODE leaves one out, --Werror fails with exit status 1, an unknown code is a usage error."""
from __future__ import annotations

import sys

import pytest

from dataplane.cli import run

SRC = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct hs { h_t h; }
struct m_t { }
parser P(packet_in pk, out hs h, inout m_t m, inout standard_metadata_t s) {
    state start { pk.extract(h.h); transition accept; } }
control VC(inout hs h, inout m_t m) { apply { } }
control IG(inout hs h, inout m_t m, inout standard_metadata_t s) {
    action spare() { }
    apply { s.egress_spec = 1; }
}
control EG(inout hs h, inout m_t m, inout standard_metadata_t s) { apply { } }
control CC(inout hs h, inout m_t m) { apply { } }
control DP(packet_out pk, in hs h) { apply { pk.emit(h.h); } }
V1Switch(P(), VC(), IG(), EG(), CC(), DP()) main;
"""


def _run(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["dataplane", *args])
    with pytest.raises(SystemExit) as info:
        run()
    return info.value.code, capsys.readouterr().err


@pytest.fixture
def program(tmp_path):
    p = tmp_path / "w.p4"
    p.write_text(SRC)
    return str(p)


def test_compile_prints_warnings_with_codes_and_succeeds(monkeypatch, capsys, program):
    code, err = _run(monkeypatch, capsys, "compile", "--check", program)
    assert code in (0, None) and f"{program}:10:5: warning [unused]: action 'spare' is unused" in err


def test_wno_leaves_the_code_out_and_werror_fails(monkeypatch, capsys, program):
    code, err = _run(monkeypatch, capsys, "compile", "--check", "--Wno", "unused", "--Werror", program)
    assert code in (0, None) and "warning" not in err
    code, err = _run(monkeypatch, capsys, "compile", "--check", "--Werror", program)
    assert code == 1 and f"{program}:10:5: error [unused]: action 'spare' is unused" in err


def test_werror_on_test_and_run_packet(monkeypatch, capsys, program, tmp_path):
    stf = tmp_path / "w.stf"
    stf.write_text("packet 0 01\nexpect 1 01\n")
    code, err = _run(monkeypatch, capsys, "test", "--Werror", program, str(stf))
    assert code == 1 and "error [unused]" in err
    code, err = _run(monkeypatch, capsys, "run-packet", "--Werror", program, "--packet", "01")
    assert code == 1 and "error [unused]" in err


def test_an_unknown_warning_code_is_a_usage_error(monkeypatch, capsys, program):
    code, err = _run(monkeypatch, capsys, "compile", "--Wno", "type-mismatch", program)
    assert code == 2 and "'type-mismatch' is not one of" in err
