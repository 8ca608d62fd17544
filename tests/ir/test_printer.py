"""ir.printer: the parse tree printed as P4 compiles back to the same tree and the same program IR.

The round trip runs over every .p4 file of the repository (programs/ and tests/, about 40 s on
one core; ``python tools/roundtrip.py`` does the same by hand); tests/ir/data/constructs.p4
holds every construct the printer writes."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner

from dataplane.cli import main
from dataplane.ir import expr as E
from dataplane.lang.frontend import compile_source, printed_source
from dataplane.testing.roundtrip import diff_ignoring_spans, round_trip

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted({*(ROOT / "programs").glob("*.p4"), *(ROOT / "tests").rglob("*.p4")})


@pytest.mark.no_pypy   # string building; the PyPy run keeps the small tests below
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_printed_program_compiles_to_the_same_tree_and_ir(path):
    """print, re-compile, compare: parse trees and checked programs are equal, spans aside."""
    assert round_trip(path) is None


def test_the_comparison_sees_a_changed_constant():
    """The round trip's comparison is not vacuous: one literal changed is found, with its path."""
    a = E.Binary("+", E.PathExpr("x"), E.Constant(1))
    b = dataclasses.replace(a, right=E.Constant(2), span=a.span)
    assert diff_ignoring_spans(a, b) == "$.right.value: 1 != 2"
    moved = dataclasses.replace(a, right=dataclasses.replace(a.right, span=a.span.__class__("f.p4", 3, 4)))
    assert diff_ignoring_spans(a, moved) is None


SMALL = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct hs { h_t h; }
struct m_t { }
parser P(packet_in p, out hs h, inout m_t m, inout standard_metadata_t sm) {
    state start { p.extract(h.h); transition accept; }
}
control C(inout hs h, inout m_t m, inout standard_metadata_t sm) {
    apply { h.h.a = h.h.a + h.h.b * 2; if (!(h.h.a == 1)) { h.h.b = (bit<8>)(h.h.a - 1); } }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t sm) { apply { } }
control V(inout hs h, inout m_t m) { apply { } }
control D(packet_out p, in hs h) { apply { p.emit(h.h); } }
V1Switch(P(), V(), C(), E(), V(), D()) main;
"""


def test_printer_keeps_includes_and_parenthesises_operators():
    """Bundled headers print as their #include; operators print fully parenthesised, so the
    printed precedence is the parsed one (a + (b * 2)), and statements drop the outermost pair."""
    text = printed_source(compile_source(SMALL, "small.p4"))
    assert text.startswith("#include <core.p4>\n#include <v1model.p4>\nheader h_t {\n")
    assert "h.h.a = h.h.a + (h.h.b * 2);" in text
    assert "if (!(h.h.a == 1)) {" in text
    assert "h.h.b = (bit<8>)(h.h.a - 1);" in text


def test_a_define_before_a_system_include_prints_the_included_declarations():
    """#define V1MODEL_VERSION ahead of v1model.p4 changes what it declares, so those
    declarations print in full rather than as an #include that would lose the define."""
    source = "#define V1MODEL_VERSION 20200408\n" + SMALL
    text = printed_source(compile_source(source, "small.p4"))
    assert "#include <v1model.p4>" not in text and "extern void mark_to_drop(" in text
    again = compile_source(text, "small.p4")
    assert diff_ignoring_spans(compile_source(source, "small.p4").program, again.program) is None


def test_compile_pp_timings_and_dump_after(tmp_path):
    """dataplane compile --pp FILE writes the printed program; --timings lists every pass;
    --dump-after parse stops there and prints the tree as P4 (no IR summary)."""
    src = tmp_path / "small.p4"
    src.write_text(SMALL)
    out = tmp_path / "out.p4"
    result = CliRunner().invoke(main, ["compile", str(src), "--pp", str(out), "--timings"])
    assert result.exit_code == 0, result.output
    assert out.read_text() == printed_source(compile_source(SMALL, str(src)))
    for name in ("preprocess", "parse", "check", "inline", "lint", "total"):
        assert f"\n{name} " in "\n" + result.output  # stderr, mixed in on every click version
    dumped = CliRunner().invoke(main, ["compile", str(src), "--dump-after", "parse"])
    assert dumped.exit_code == 0 and dumped.stdout == out.read_text()
    refused = CliRunner().invoke(main, ["compile", str(src), "--dump-after", "codegen"])
    assert refused.exit_code == 2 and "codegen" in refused.output
