"""The lowered program IR: header layouts, JSON export, the node walk and visitors."""
from __future__ import annotations

import json

from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.ir.node import Visitor, walk
from dataplane.ir.program import header_layout
from dataplane.ir.serialize import program_to_json, to_data
from dataplane.lang.frontend import compile_source

PROGRAM = """#include <core.p4>
#include <v1model.p4>
enum bit<8> Kind { A = 1, B = 2 }
header h_t { bit<4> a; int<12> b; bool c; Kind k; varbit<64> opts; }
struct headers { h_t h; }
struct meta_t { bit<8> x; }
parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h, 32w16); transition accept; }
}
control V(inout headers hdr, inout meta_t m) { apply {} }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<16>>(64) r;
    action set(bit<8> v) { m.x = v + 1; }
    table t { key = { hdr.h.a: exact; } actions = { set; NoAction; } default_action = set(7); }
    apply { t.apply(); }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply {} }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), V(), D()) main;
"""


def test_header_layout_packs_fields_most_significant_first():
    """Offsets accumulate field widths; bool is 1 bit, a serializable enum its underlying width."""
    program = compile_source(PROGRAM, "layout.p4").program
    layout = program.headers["h_t"]
    assert [(f.name, f.width, f.offset) for f in layout.fields] == [
        ("a", 4, 0), ("b", 12, 4), ("c", 1, 16), ("k", 8, 17), ("opts", 64, 25)]
    assert layout.field("b").signed and layout.field("opts").varbit
    assert layout.width == 25  # the varbit's variable part is not in the fixed width


def test_header_layout_of_a_plain_header_type():
    """header_layout works on a bare Header type too."""
    h = T.Header("x_t", (T.StructField("p", T.Bits(3)), T.StructField("q", T.Bits(5))))
    assert header_layout(h).byte_width == 1


def test_program_json_is_valid_and_names_types_as_p4_does():
    """The JSON export is parseable, tags nodes and spells types like P4."""
    program = compile_source(PROGRAM, "layout.p4").program
    data = json.loads(program_to_json(program))
    assert data["node"] == "Program"
    assert data["types"]["Kind"] == {"kind": "enum", "members": ["A", "B"], "underlying": "bit<8>", "values": [1, 2]}
    table = data["controls"]["I"]["tables"]["t"]
    assert table["default_action"]["action"] == "set"
    assert table["default_action"]["args"][0]["value"] == 7
    assert table["default_action"]["args"][0]["type"] == "bit<8>"
    reg = data["controls"]["I"]["instances"][0]
    assert reg["extern"] == "register" and reg["type_args"] == ["bit<16>"]


def test_to_data_renders_spans_as_file_line_col():
    """Spans print as file:line:col, so JSON readers can point back at the source."""
    program = compile_source(PROGRAM, "layout.p4").program
    action = to_data(program.controls["I"].actions["set"])
    assert action["span"] == "layout.p4:13:5"


def test_walk_visits_every_typed_expression_in_an_action():
    """walk() reaches nested nodes; after checking every expression has a type."""
    program = compile_source(PROGRAM, "layout.p4").program
    body = program.controls["I"].actions["set"].body
    exprs = [n for n in walk(body) if isinstance(n, E.Expr)]
    assert exprs and all(e.type is not None for e in exprs)
    binary = next(e for e in exprs if isinstance(e, E.Binary))
    assert binary.type == T.Bits(8) and binary.right == E.Constant(1, type=T.Bits(8), span=binary.right.span)


def test_visitor_dispatches_by_class_name():
    """Visitor.visit calls visit_<ClassName> and falls back to walking children."""
    class Paths(Visitor):
        def __init__(self):
            self.names = []

        def visit_PathExpr(self, node):
            self.names.append(node.name)

    program = compile_source(PROGRAM, "layout.p4").program
    v = Paths()
    v.visit(program.controls["I"].actions["set"].body)
    assert v.names == ["m", "v"]


def test_struct_field_lookup_finds_the_first_field_of_a_name():
    """get_field is a dictionary lookup after the first call; duplicates resolve as a scan would."""
    first, second = T.StructField("a", T.Bits(8)), T.StructField("a", T.Bits(16))
    s = T.Struct("s", (first, T.StructField("b", T.Bits(8)), second))
    assert s.get_field("a") is first and s.get_field("a") is first
    assert s.get_field("c") is None
    assert s == T.Struct("s", ()) and "_by_name" not in repr(s)   # compared by name, as before
