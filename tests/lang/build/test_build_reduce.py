"""Tests for dataplane.lang.build.reduce: the IR built during parsing is the IR lark's parse tree
gives through ``BuildIR``, spans included, and a builder's failure is reported as before."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.errors import CompileError, InternalError
from dataplane.lang import parser as p4parser
from dataplane.lang.build.tree import BuildIR
from dataplane.lang.parser import parse_text
from dataplane.lang.preprocess.directives import preprocess
from dataplane.resources import data_dir

STF = Path(__file__).resolve().parents[2] / "stf"

# Shapes where positions come from containers or from nothing: parenthesized and chained
# expressions, empty parameter lists and bodies, annotations, keysets, nested blocks.
TRICKY = """
#include <core.p4>
header h_t { bit<8> a; bit<8> b; }
struct s_t { h_t h; }
@name("x") extern void f(in bit<8> x);
control c(inout s_t s) {
    action nop() { }
    action a(bit<8> v) { s.h.a = ((v)) + (s.h.b & 8w3) << 1; { { } } }
    table t { key = { s.h.a : exact @name("k"); } actions = { nop; a; } const entries = { (1) : a(2); } }
    apply { if ((s.h.isValid())) { t.apply(); } else { s.h.b = s.h.a == 1 ? 8w2 : (8w3); } }
}
"""


def _both(text: str, monkeypatch, filename: str = "t.p4") -> tuple:
    pre = preprocess(text=text, filename=filename)
    reduced = parse_text(pre.text, pre.locate, pre.source_line)
    monkeypatch.setattr(p4parser, "_reducer", lambda parser, builder: None)   # the parse-tree path
    tree = parse_text(pre.text, pre.locate, pre.source_line)
    monkeypatch.undo()
    return reduced, tree


@pytest.mark.parametrize("path", sorted(data_dir("programs").glob("*.p4")) + sorted(STF.glob("arch_*.p4"))[:6],
                         ids=lambda p: p.name)
def test_ir_built_during_the_parse_equals_the_ir_from_the_tree(path, monkeypatch):
    reduced, tree = _both(path.read_text(), monkeypatch, str(path))
    assert repr(reduced) == repr(tree)       # repr shows every span, end positions included


def test_spans_of_containers_and_empty_rules_match_the_tree(monkeypatch):
    reduced, tree = _both(TRICKY, monkeypatch)
    assert repr(reduced) == repr(tree)
    assert reduced.decls[-1].span.line == 6


def test_a_failing_builder_is_an_internal_error_naming_its_rule(monkeypatch):
    def broken(self, *args):
        raise ValueError("boom")
    monkeypatch.setattr(BuildIR, "if_stmt", broken)
    pre = preprocess(text=TRICKY, filename="t.p4")
    with pytest.raises(InternalError, match="building IR failed in rule 'if_stmt': ValueError"):
        parse_text(pre.text, pre.locate, pre.source_line)


def test_syntax_errors_come_before_a_failing_builder(monkeypatch):
    """As with lark's Transformer, the IR is only looked at once the parse had no syntax error."""
    def broken(self, *args):
        raise ValueError("boom")
    monkeypatch.setattr(BuildIR, "if_stmt", broken)
    pre = preprocess(text=TRICKY + "control d() { apply { x = ; } }\n", filename="t.p4")
    with pytest.raises(CompileError) as info:
        parse_text(pre.text, pre.locate, pre.source_line)
    assert "syntax error" in str(info.value)
