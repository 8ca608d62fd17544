"""Parser value sets through the control-plane API (``dataplane.control.value_sets``), with
tests/stf/lang_value_set.p4: ``kinds`` is a set of bit<16> ethertype-like values, ``pairs`` a
set of two-field structs matched against the select on (a, b); a member of both sets tags the
packet (its fourth byte becomes 0xEE)."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.control.loader import load_entries
from dataplane.control.switch import ControlPlaneError, Switch
from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_file, compile_source
from dataplane.testing.skeleton import v1model_program

STF_DIR = Path(__file__).parent.parent / "stf"


@pytest.fixture
def sw() -> Switch:
    return Switch(compile_file(STF_DIR / "lang_value_set.p4").program)


def tagged(sw: Switch, kind: int, a: int, b: int) -> bool:
    (out,) = sw.send(0, kind.to_bytes(2, "big") + bytes((a, b, 0)))
    return out.data[4] == 0xEE


def test_a_masked_member_matches_every_key_under_its_mask(sw):
    """0x8800 &&& 0xFF00 takes every kind 0x88xx; the pair is given per field."""
    sw.pvs_add("kinds", 0x8800, mask=0xFF00)
    sw.pvs_add("pairs", [1, 2])
    assert tagged(sw, 0x8847, 1, 2) and tagged(sw, 0x88CC, 1, 2)
    assert not tagged(sw, 0x8900, 1, 2)
    assert sw.pvs_get("kinds") == [(0x8800, 0xFF00)]
    assert sw.pvs_get("P.pairs") == [(0x0102, 0xFFFF)]


def test_a_full_set_refuses_another_member_but_takes_one_it_has(sw):
    sw.pvs_add("pairs", 0x0102)
    sw.pvs_add("pairs", 0x0304)
    sw.pvs_add("pairs", 0x0304)    # already a member: nothing to add
    with pytest.raises(ControlPlaneError, match="value_set 'P.pairs' is full \\(2 members\\)"):
        sw.pvs_add("pairs", 0x0506)


@pytest.mark.parametrize("call, message", [
    (lambda sw: sw.pvs_remove("kinds", 0x0800), "has no member 0x800"),
    (lambda sw: sw.pvs_add("kinds", 0x10000), "does not fit in 16 bits"),
    (lambda sw: sw.pvs_add("pairs", [1, 2, 3]), "has 2 field\\(s\\), got 3 values"),
    (lambda sw: sw.pvs_add("pairs", [1, 256]), "value 256 does not fit in 8 bits"),
    (lambda sw: sw.pvs_add("nosuch", 1), "nosuch"),
])
def test_bad_value_set_calls_are_refused_by_name(sw, call, message):
    with pytest.raises(ControlPlaneError, match=message):
        call(sw)


def test_a_cli_file_fills_a_value_set(sw, tmp_path):
    """simple_switch_CLI's pvs_add / pvs_remove / pvs_clear lines."""
    cmds = tmp_path / "s1.txt"
    cmds.write_text("pvs_add kinds 0x0800\npvs_add kinds 0x86dd\npvs_add pairs 0x0102\npvs_remove kinds 0x86dd\n")
    load_entries(sw, cmds)
    assert tagged(sw, 0x0800, 1, 2) and not tagged(sw, 0x86DD, 1, 2)


@pytest.mark.parametrize("pieces, message", [
    ({"ingress_locals": "value_set<bit<8>>(4) vs;"}, "syntax error: unexpected 'value_set'"),  # parsers only
    ({"parser_locals": "value_set<bit<8>>(0) vs;"}, "must be a positive compile-time constant"),
    ({"parser_locals": "value_set<h_t>(4) vs;"}, "elements of type h_t cannot be matched"),
    ({"parser_locals": "value_set<bit<8>>(4) vs;",
      "parser": "state start { transition select(hdr.h.b) { vs: accept; default: reject; } }"},
     "do not match the select keys (bit<16>)"),
])
def test_bad_value_sets_are_located_errors(pieces, message):
    with pytest.raises(CompileError) as info:
        compile_source(v1model_program(**pieces), "vs.p4")
    assert message in str(info.value) and "vs.p4:" in str(info.value)
