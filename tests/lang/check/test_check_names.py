"""Control-plane names of tables and keys (dataplane/lang/check/names.py)."""
from __future__ import annotations

import pytest

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model


def test_absolute_table_name_in_a_control_instantiated_twice():
    """Each instance of Sub would add a table named t0."""
    sub = """control Sub(inout bit<8> v) {
    @name(".t0") table t0 { key = { v : exact; } actions = { NoAction; } }
    apply { t0.apply(); }
}"""
    src = v1model(decls=sub, ingress_locals="Sub() s1;\nSub() s2;", ingress="s1.apply(meta.x); s2.apply(meta.y);")
    assert_error(src, "table 't0' keeps the control-plane name 't0' in every instance of its control, and control "
                      "'Sub' is instantiated 2 times", at='@name(".t0")', code="control-plane-name")
    compile_source(v1model(decls=sub.replace('@name(".t0") ', ""), ingress_locals="Sub() s1;\nSub() s2;",
                           ingress="s1.apply(meta.x); s2.apply(meta.y);"), "ok.p4")


def test_complex_key_needs_a_name():
    """`meta.x + meta.y` has no name the control plane could use."""
    src = v1model(ingress_locals="table t { key = { meta.x + meta.y : exact; } actions = { NoAction; } }",
                  ingress="t.apply();")
    assert_error(src, "this key needs a @name annotation", at="meta.x + meta.y :", code="annotation")


def test_named_complex_key_and_simple_keys_pass():
    """Fields, slices, masks and isValid() name themselves; @name names the rest. The names
    are p4c's, as its P4Info has them (testdata: "hdr.ethernet.dstAddr & 0x10101010101",
    "hdr.ipv4.$valid$")."""
    program = compile_source(v1model(ingress_locals="""table t {
        key = { meta.z[7:0] : exact; meta.w & 0xff : ternary; hdr.h.isValid() : exact;
                meta.x + meta.y : exact @name("sum"); }
        actions = { NoAction; }
    }""", ingress="t.apply();"), "ok.p4").program
    assert program.controls["IG"].tables["t"].keys[3].name == "sum"
    p4info = pytest.importorskip("dataplane.control.p4info")
    [t] = p4info.build_p4info(program).tables
    assert [m.name for m in t.match_fields] == ["meta.z[7:0]", "meta.w & 0xff", "hdr.h.$valid$", "sum"]


def test_p4runtime_translation_needs_a_controller_type():
    """The controller's type is string, bit<W> or a width; bool is none of them."""
    src = v1model(decls='@p4runtime_translation("x.org/Port_t", bool)\ntype bit<9> Port_t;')
    assert_error(src, "@p4runtime_translation(\"x.org/Port_t\", bool): expected a URI string and the controller's type",
                 at='@p4runtime_translation("x.org/Port_t", bool)', code="annotation")
    compile_source(v1model(decls='@p4runtime_translation("x.org/Port_t", bit<32>)\ntype bit<9> Port_t;\n'
                                 '@p4runtime_translation("x.org/Q_t", 32)\ntype bit<9> Q_t;'), "ok.p4")
