"""Tests for the type checker (dataplane.lang.check.checker and its mixins): the typed, folded, lowered IR it returns.

Each test compiles one small v1model program built by :func:`v1model` and asserts
properties of ``ir.program.Program``: expression types, implicit casts made explicit,
constant folding, table / parser / header lowering and extern generic inference.
"""
from __future__ import annotations

import pytest

from dataplane.errors import CompileError
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

BIT8, BIT16, BIT32 = T.Bits(8), T.Bits(16), T.Bits(32)
INT8 = T.Bits(8, signed=True)


v1model = v1model_program


def compile_ok(**pieces) -> P.Program:
    return compile_source(v1model(**pieces), "test.p4").program


def ingress(**pieces) -> P.Control:
    return compile_ok(**pieces).controls["IG"]


def stmts(**pieces) -> tuple[S.Stmt, ...]:
    """The checked statements of the ingress apply block."""
    return ingress(**pieces).body.stmts


def value(code: str, **pieces) -> E.Expr:
    """The checked right-hand side of the single assignment (or initializer) ``code`` in ingress."""
    s = stmts(ingress=code, **pieces)[-1]
    return s.init if isinstance(s, S.VarDecl) else s.rhs


def constant(code: str, **pieces) -> tuple[int | bool, T.Type]:
    v = value(code, **pieces)
    assert isinstance(v, (E.Constant, E.BoolLiteral)), f"{code!r} was not folded: {v!r}"
    return v.value, v.type


# ---- implicit conversions and constant folding --------------------------------------------------

def test_untyped_literal_takes_the_type_of_the_other_operand():
    """In `x + 1` the literal becomes a bit<8> constant and the sum is bit<8>."""
    v = value("meta.x = meta.x + 1;")
    assert isinstance(v, E.Binary) and v.op == "+" and v.type == BIT8
    assert v.right == E.Constant(1, type=BIT8, span=v.right.span)


def test_negative_literal_compared_with_bit_value_wraps_and_folds_to_true():
    """`8w255 == -1`: -1 becomes 8w255, so the comparison folds to true."""
    assert constant("meta.f = 8w255 == -1;") == (True, T.BOOL)


def test_assigned_literal_is_truncated_to_the_target_width():
    """`-1` assigned to bit<8> is 255; `200 + 100` folds as int (300) and then wraps to 44."""
    assert constant("meta.x = -1;") == (255, BIT8)
    assert constant("meta.x = 200 + 100;") == (44, BIT8)


def test_const_declaration_is_folded_and_typed():
    """`const bit<8> C = 3 + 4;` is the constant 7 of type bit<8>, and uses of C are replaced by it."""
    p = compile_ok(decls="const bit<8> C = 3 + 4; const bit<8> D = C * 40;", ingress="meta.x = D;")
    c = p.constants["C"]
    assert c.type == BIT8 and isinstance(c.value, E.Constant) and c.value.value == 7
    assert p.constants["D"].value.value == 280 % 256
    rhs = p.controls["IG"].body.stmts[0].rhs
    assert isinstance(rhs, E.Constant) and rhs.value == 24 and rhs.type == BIT8


@pytest.mark.parametrize("code, expected", [
    ("meta.z = 32w0x11 << 0x1C;", 0x10000000),
    ("meta.z = 32w0x11 << 0xFF;", 0),
    ("meta.z = 32w1 << 32;", 0),
    ("meta.x = 8w0x80 >> 7;", 1),
])
def test_unsigned_shift_folds_and_shifting_out_all_bits_gives_zero(code, expected):
    """Shifts keep the left operand's type; a shift by >= W gives 0 (arith3-bmv2.stf)."""
    folded, t = constant(code)
    assert folded == expected and t.signed is False


def test_shift_of_a_field_by_untyped_constant_keeps_the_field_type():
    """`meta.z << 0x1C`: the amount stays an int constant and the result is bit<32>."""
    v = value("meta.z = meta.z << 0x1C;")
    assert isinstance(v, E.Binary) and v.type == BIT32
    assert isinstance(v.right, E.Constant) and v.right.type == T.INT and v.right.value == 0x1C


@pytest.mark.parametrize("code, expected", [
    ("meta.s = 8s-16 >> 2;", -4),
    ("meta.s = 8s-16 >> 8w2;", -4),
    ("meta.s = 8s-1 >> 9;", -1),
])
def test_signed_right_shift_is_arithmetic(code, expected):
    """`>>` on int<W> fills with the sign bit, also when shifting out every bit."""
    assert constant(code) == (expected, INT8)


@pytest.mark.parametrize("code, expected", [
    ("meta.x = 8w200 |+| 8w100;", 255),
    ("meta.x = 8w3 |-| 8w5;", 0),
    ("meta.s = 8s100 |+| 8s100;", 127),
    ("meta.s = -8s100 |-| 8s100;", -128),
])
def test_saturating_operators_fold_to_the_clamped_value(code, expected):
    """`|+|` and `|-|` clamp to the range of the operand type."""
    assert constant(code)[0] == expected


@pytest.mark.parametrize("code, expected", [
    ("meta.x = 8w255 + 1;", 0),
    ("meta.x = 8w5 - 8w7;", 254),
    ("meta.x = 8w3 * 8w100;", 44),
    ("meta.x = ~8w0x0F;", 0xF0),
    ("meta.s = (int<8>)8w200;", -56),
    ("meta.x = (bit<8>)16w0x1234;", 0x34),
])
def test_fixed_width_arithmetic_and_casts_wrap_modulo_two_to_the_width(code, expected):
    """bit<W>/int<W> operations and narrowing casts fold with two's complement wrap-around."""
    assert constant(code)[0] == expected


def test_concatenation_adds_widths_and_keeps_the_left_signedness():
    """`++` has width = sum of widths and the signedness of its left operand; constants fold."""
    assert value("meta.z = 8w0 ++ meta.x ++ meta.w;").type == BIT32
    v = value("int<16> v = meta.s ++ meta.x;")
    assert v.type == T.Bits(16, signed=True)
    assert constant("meta.w = 8w0xAB ++ 8w0xCD;") == (0xABCD, BIT16)


def test_slice_has_type_bit_hi_minus_lo_plus_one_and_is_unsigned():
    """`e[h:l]` is bit<h-l+1>, even from an int<W>; slices of constants fold."""
    v = value("meta.x = meta.z[15:8];")
    assert isinstance(v, E.Slice) and v.type == BIT8
    assert (v.hi.value, v.lo.value) == (15, 8)
    assert value("bit<4> v = meta.s[7:4];").type == T.Bits(4)
    assert constant("meta.x = 16w0xABCD[11:4];") == (0xBC, BIT8)


def test_slice_can_be_assigned():
    """A slice is an l-value of its slice type; an int literal converts to it."""
    s = stmts(ingress="meta.x[3:0] = 5;")[0]
    assert isinstance(s.lhs, E.Slice) and s.lhs.type == T.Bits(4)
    assert s.rhs == E.Constant(5, type=T.Bits(4), span=s.rhs.span)


def test_sign_and_width_change_in_two_casts_is_accepted():
    """`(int<8>)(bit<8>)x` changes the width, then the sign, of a bit<16>."""
    v = value("meta.s = (int<8>)(bit<8>)meta.w;")
    assert isinstance(v, E.Cast) and v.type == INT8
    assert isinstance(v.expr, E.Cast) and v.expr.type == BIT8 and v.expr.expr.type == BIT16


def test_bool_and_bit1_convert_with_explicit_casts():
    """`(bool)1w1` and `(bool)1` fold to true; `(bit<1>)b` casts a bool value."""
    assert constant("meta.f = (bool)1w1;") == (True, T.BOOL)
    assert constant("meta.f = (bool)1;") == (True, T.BOOL)
    assert value("bit<1> v = (bit<1>)meta.f;").type == T.Bits(1)


def test_conditional_expression_gives_an_int_branch_the_other_branch_type():
    """`c ? 1 : x` is bit<8>; a constant condition selects its branch at compile time."""
    v = value("meta.x = meta.f ? 1 : meta.x;")
    assert isinstance(v, E.Mux) and v.type == BIT8 and v.then.type == BIT8
    assert constant("meta.x = true ? 8w1 : 8w2;") == (1, BIT8)


def test_compound_assignment_is_expanded():
    """`x += 1` becomes `x = x + (bit<8>)1`."""
    s = stmts(ingress="meta.x += 1;")[0]
    assert isinstance(s, S.Assign) and s.op == ""
    assert isinstance(s.rhs, E.Binary) and s.rhs.op == "+" and s.rhs.right.type == BIT8


# ---- enums, typedefs and new types -------------------------------------------------------------

def test_serializable_enum_members_are_implicitly_their_underlying_type():
    """`Color.GREEN` assigns to and compares with bit<8> through an implicit cast."""
    decls = "enum bit<8> Color { RED = 1, GREEN = 0x12 }"
    p = compile_ok(decls=decls, ingress="meta.x = Color.GREEN; meta.f = meta.x == Color.RED; Color c = (Color)meta.x;")
    color = p.types["Color"]
    assert isinstance(color, T.Enum) and color.underlying == BIT8 and color.values == (1, 0x12)
    assign, compare, decl = p.controls["IG"].body.stmts
    assert isinstance(assign.rhs, E.Cast) and assign.rhs.type == BIT8
    assert assign.rhs.expr == E.TypeMember("Color", "GREEN", type=color, span=assign.rhs.expr.span)
    assert compare.rhs.type == T.BOOL and compare.rhs.right.type == BIT8
    assert decl.init.type == color


def test_a_serializable_enum_value_slices_as_its_underlying_type():
    """`c[7:4]` of an `enum bit<8>` value is bit<4> (p4c accepts it; psa-variable-index.p4)."""
    v = value("Color c = (Color)meta.x; bit<4> hi = c[7:4];", decls="enum bit<8> Color { RED = 1 }")
    assert isinstance(v, E.Slice) and v.type == T.Bits(4)


def test_typedef_is_transparent_and_type_is_nominal():
    """A typedef is its base type; a `type` needs explicit casts both ways."""
    decls = "typedef bit<8> B8; type bit<8> N8;"
    s = stmts(decls=decls, ingress="B8 v = meta.x; N8 n = (N8)v; meta.y = (bit<8>)n + v;")
    assert s[1].init.type == T.NewType("N8", BIT8)
    assert s[2].rhs.type == BIT8


def test_error_and_match_kind_members_accumulate():
    """`error {...}` adds to core.p4's errors; v1model adds range/optional/selector match kinds."""
    p = compile_ok(decls="error { BadVersion }")
    assert p.errors[:3] == ("NoError", "PacketTooShort", "NoMatch") and p.errors[-1] == "BadVersion"
    assert p.match_kinds == ("exact", "ternary", "lpm", "range", "optional", "selector")


# ---- externs ----------------------------------------------------------------------------------

def test_register_instance_binds_its_type_argument_and_folds_constructor_args():
    """`register<bit<32>>(8)` records T and the size; read/write indices are bit<32>."""
    ig = ingress(ingress_locals="register<bit<32>>(8) r;", ingress="bit<32> v; r.read(v, 2); r.write(1, v + 1);")
    (inst,) = ig.instances
    assert (inst.name, inst.extern, inst.type_args) == ("r", "register", (BIT32,))
    assert inst.args == (E.Constant(8, type=BIT32, span=inst.args[0].span),)
    read, write = ig.body.stmts[1].call, ig.body.stmts[2].call
    assert isinstance(read.target, E.Member) and read.target.member == "read"
    assert [a.value.type for a in read.args] == [BIT32, BIT32]
    assert write.args[1].value.type == BIT32 and read.type == T.VOID


def test_v1model_20200408_indexes_externs_by_their_index_type():
    """With V1MODEL_VERSION 20200408, register<T, I> and counter<I> take I-typed indices; ports are PortId_t."""
    p = compile_ok(version=20200408,
                   ingress_locals="register<bit<32>, bit<8>>(16) r; counter<PortId_t>(512, CounterType.packets) c;",
                   ingress="bit<32> v; r.read(v, meta.x); c.count(sm.ingress_port);")
    ig = p.controls["IG"]
    assert [i.type_args for i in ig.instances] == [(BIT32, BIT8), (T.Bits(9),)]
    assert ig.body.stmts[1].call.args[1].value.type == BIT8
    assert p.types["PortId_t"] == T.Bits(9)
    assert p.constants["__v1model_version"].value.value == 20200408


def test_default_v1model_version_is_20180101():
    """Without a definition V1MODEL_VERSION is 20180101 and PortId_t does not exist."""
    p = compile_ok()
    assert p.constants["__v1model_version"].value.value == 20180101
    assert "PortId_t" not in p.types


def test_hash_infers_its_four_type_arguments_from_the_arguments():
    """`hash(out O, algo, in T base, in D data, in M max)` binds O, T, D (a tuple for a list) and M."""
    call = stmts(ingress="hash(meta.w, HashAlgorithm.crc16, 16w0, { meta.x, meta.z }, 32w1024);")[0].call
    assert call.type_args == (BIT16, BIT16, T.Tuple((BIT8, BIT32)), BIT32)
    data = call.args[3].value
    assert isinstance(data, E.ListExpr) and data.type == T.Tuple((BIT8, BIT32))


def test_generic_function_converts_int_arguments_to_the_inferred_type():
    """In `random(meta.x, 0, 7)` T is bit<8> from the out argument, so 0 and 7 become bit<8>."""
    call = stmts(ingress="random(meta.x, 0, 7);")[0].call
    assert call.type_args == (BIT8,)
    assert [(a.value.value, a.value.type) for a in call.args[1:]] == [(0, BIT8), (7, BIT8)]


def test_extern_function_overloads_are_chosen_by_argument_count():
    """`mark_to_drop()` and `mark_to_drop(sm)` both resolve."""
    a, b = stmts(ingress="mark_to_drop(); mark_to_drop(sm);")
    assert a.call.args == () and len(b.call.args) == 1
    assert b.call.args[0].value.type.name == "standard_metadata_t"


def test_lookahead_returns_its_explicit_type_argument():
    """`pkt.lookahead<bit<8>>()` has type bit<8>."""
    p = compile_ok(parser="state start { bit<8> v = pkt.lookahead<bit<8>>(); transition accept; }")
    decl = p.parsers["P"].states["start"].stmts[0]
    assert decl.init.type == BIT8 and decl.init.type_args == (BIT8,)


def test_untyped_struct_initializer_cannot_bind_a_type_variable():
    """`digest(1, { a = meta.x })` would bind T to a struct with no declared type: p4c rejects
    it ("Cannot infer type for unknown struct type initializer"); a cast names the struct."""
    with pytest.raises(CompileError, match="could not infer the struct type of this initializer"):
        stmts(ingress="digest(1, { a = meta.x });")
    call = stmts(decls="struct d_t { bit<8> a; }", ingress="digest(1, (d_t){ a = meta.x });")[0].call
    (t,) = call.type_args
    assert isinstance(t, T.Struct) and t.name == "d_t" and [(f.name, f.type) for f in t.fields] == [("a", BIT8)]


# ---- tables ----------------------------------------------------------------------------------

TABLE = """
action set(bit<8> v) { meta.y = v; }
action fwd(inout bit<8> o, bit<16> w) { o = 1; meta.w = w; }
action drop() { mark_to_drop(sm); }
table t {
    key = {
        meta.x: exact @name("mx");
        hdr.h.b: ternary;
        meta.z[15:0]: range;
        meta.w: lpm;
    }
    actions = { set; fwd(meta.x); @defaultonly drop; NoAction; }
    const default_action = set(7);
    size = 1024;
    const entries = {
        (1, 0x10 &&& 0xF0, 5 .. 10, _) : set(3);
        priority = 7: (2, _, _, 0x0A00 &&& 0xFF00) : fwd(meta.x, 9);
        @priority(3) (3, 1, 1 .. 2, 0) : NoAction();
    }
}
"""


def table_t() -> P.Table:
    return ingress(ingress_locals=TABLE, ingress="t.apply();").tables["t"]


def test_table_keys_have_names_match_kinds_and_types():
    """Key names come from @name, else the expression as written; each key keeps its type."""
    keys = table_t().keys
    assert [(k.name, k.match_kind, k.expr.type) for k in keys] == [
        ("mx", "exact", BIT8), ("hdr.h.b", "ternary", BIT16), ("meta.z[15:0]", "range", BIT16), ("meta.w", "lpm", BIT16)]


def test_table_action_list_binds_directional_arguments_and_keeps_annotations():
    """`fwd(meta.x)` binds fwd's inout parameter; `@defaultonly` stays on the action reference."""
    actions = {a.action: a for a in table_t().actions}
    assert list(actions) == ["set", "fwd", "drop", "NoAction"]
    assert [a.type for a in actions["fwd"].args] == [BIT8]
    assert [a.name for a in actions["drop"].annotations] == ["defaultonly"]


def test_default_action_arguments_are_typed_constants():
    """`const default_action = set(7)` gives set's bit<8> data parameter the value 7."""
    t = table_t()
    assert t.default_action.action == "set" and t.default_action_const
    assert t.default_action.args == (E.Constant(7, type=BIT8, span=t.default_action.args[0].span),)
    assert t.size == 1024


def test_table_without_default_action_defaults_to_no_action():
    """A table with no default_action uses NoAction() and no size."""
    t = ingress(ingress_locals="table u { key = { meta.x: exact; } actions = { NoAction; } }").tables["u"]
    assert t.default_action == P.ActionCall("NoAction") and t.size is None and t.entries == ()


def test_const_entries_have_typed_keysets_and_priorities():
    """Entry keysets are converted to the key types; `priority =` and `@priority` are kept apart
    (p4c's BMv2 back end reads only the annotation)."""
    t = table_t()
    assert t.entries_const and [e.priority for e in t.entries] == [None, 7, None]
    assert [e.annotated_priority for e in t.entries] == [None, None, 3]
    first, second, _ = t.entries
    exact, mask, rng, wild = first.keys
    assert isinstance(exact, E.Constant) and (exact.value, exact.type) == (1, BIT8)
    assert isinstance(mask, E.Mask) and (mask.value.value, mask.mask.value, mask.type) == (0x10, 0xF0, BIT16)
    assert isinstance(rng, E.Range) and (rng.lo.value, rng.hi.value, rng.lo.type) == (5, 10, BIT16)
    assert isinstance(wild, E.DefaultKeyset) and wild.type == BIT16
    assert first.action == P.ActionCall("set", (E.Constant(3, type=BIT8, span=first.action.args[0].span),))
    # The entry action names all of fwd's arguments; only the action data is kept.
    assert second.action.action == "fwd" and [a.value for a in second.action.args] == [9]


def test_table_implementation_and_direct_counter_name_instances():
    """`implementation = action_profile(...)` creates an instance; `counters = dc` names one."""
    locals_ = """direct_counter(CounterType.packets) dc;
    table u { key = { meta.x: exact; } actions = { NoAction; }
              implementation = action_profile(32w128); counters = dc; }"""
    ig = ingress(ingress_locals=locals_)
    u = ig.tables["u"]
    assert u.counters == "dc" and u.implementation == "u_action_profile"
    assert [i.extern for i in ig.instances] == ["direct_counter", "action_profile"]


def test_apply_result_members_and_switch_on_action_run():
    """`.hit`/`.miss` are bool; `switch (t.apply().action_run)` labels are the table's actions."""
    locals_ = "action a() {} action b() {} table t { key = { meta.x: exact; } actions = { a; b; NoAction; } }"
    code = "meta.f = t.apply().hit; switch (t.apply().action_run) { a: b: { meta.x = 1; } default: { } }"
    hit, sw = stmts(ingress_locals=locals_, ingress=code)
    assert hit.rhs.type == T.BOOL
    assert isinstance(sw, S.Switch) and sw.expr.type == T.ActionEnum("t")
    labels = [c.label for c in sw.cases]
    assert [getattr(lb, "name", "default") for lb in labels] == ["a", "b", "default"]
    assert sw.cases[0].body is None and sw.cases[1].body is not None  # `a:` falls through to `b:`


def test_switch_on_a_bit_value_converts_labels():
    """Labels of a switch on bit<8> become bit<8> constants."""
    sw = stmts(ingress="switch (meta.x) { 1: { } 0x20: { } default: { } }")[0]
    assert [(c.label.value, c.label.type) for c in sw.cases[:2]] == [(1, BIT8), (0x20, BIT8)]


# ---- parsers ----------------------------------------------------------------------------------

PARSER = """
state start {
    pkt.extract(hdr.h);
    transition select(hdr.h.a, hdr.h.b) {
        (1, 0x800): two;
        (2 &&& 3, _): two;
        (5 .. 9, 7): accept;
        default: reject;
    }
}
state two { pkt.extract(hdr.hs.next); transition select(hdr.hs.last.a) { 0: accept; default: two; } }
state three { transition accept; }
"""


def test_parser_states_form_a_graph_with_typed_select_keysets():
    """Each state lists its successors; select keysets are typed like their keys."""
    par = compile_ok(headers="h_t h; h_t[3] hs;", parser=PARSER).parsers["P"]
    assert set(par.states) == {"start", "two", "three"}
    start, two, three = par.states["start"], par.states["two"], par.states["three"]
    assert start.successors == ("two", "accept", "reject")
    assert two.successors == ("accept", "two") and three.successors == ("accept",)
    assert [k.type for k in start.select] == [BIT8, BIT16]
    kinds = [[type(k).__name__ for k in c.keysets] for c in start.cases]
    assert kinds == [["Constant", "Constant"], ["Mask", "DefaultKeyset"], ["Range", "Constant"],
                     ["DefaultKeyset", "DefaultKeyset"]]
    assert [k.type for c in start.cases for k in c.keysets] == [BIT8, BIT16] * 4
    assert start.cases[0].keysets[1].value == 0x800


def test_parser_header_stack_next_and_last_have_the_element_type():
    """`hs.next` and `hs.last` are headers of the stack's element type inside a parser."""
    par = compile_ok(headers="h_t h; h_t[3] hs;", parser=PARSER).parsers["P"]
    extract = par.states["two"].stmts[0].call
    assert extract.args[0].value.type.name == "h_t" and extract.type_args[0].name == "h_t"


# ---- headers, structs, stacks -----------------------------------------------------------------

def test_header_layout_gives_bit_offsets_in_network_order():
    """h_t {bit<8> a; bit<16> b; bit<32> c;} has offsets 0, 8, 24 and width 56."""
    layout = compile_ok().headers["h_t"]
    assert [(f.name, f.width, f.offset) for f in layout.fields] == [("a", 8, 0), ("b", 16, 8), ("c", 32, 24)]
    assert layout.width == 56 and layout.byte_width == 7


def test_header_layout_of_signed_enum_bool_and_varbit_fields():
    """int<W> is signed, a serializable enum uses its width, bool is one bit, varbit is flagged."""
    decls = "enum bit<4> K { A = 1 } header w_t { int<7> s; K k; bool q; varbit<64> opts; }"
    layout = compile_ok(decls=decls, headers="h_t h; w_t w;").headers["w_t"]
    assert [(f.name, f.width, f.offset, f.signed, f.varbit) for f in layout.fields] == [
        ("s", 7, 0, True, False), ("k", 4, 7, False, False), ("q", 1, 11, False, False), ("opts", 64, 12, False, True)]
    assert layout.width == 12


def test_struct_initializers_convert_fields_to_the_declared_types():
    """`{ a = 1, b = 2 }` and `{3, 4}` take pair_t's field types; `{#}` is an invalid h_t."""
    decls = "struct pair_t { bit<8> a; bit<16> b; }"
    named, listed, cast, invalid = stmts(
        decls=decls, ingress="pair_t p = { b = 2, a = 1 }; pair_t q = {3, 4}; pair_t r = (pair_t){ a = 5, b = 6 }; hdr.h = {#};")
    assert isinstance(named.init, E.StructInit) and named.init.type.name == "pair_t"
    assert [(f.name, f.value.type) for f in named.init.fields] == [("b", BIT16), ("a", BIT8)]
    assert isinstance(listed.init, E.ListExpr) and [x.type for x in listed.init.elements] == [BIT8, BIT16]
    assert cast.init.type.name == "pair_t"
    assert isinstance(invalid.rhs, E.InvalidHeader) and invalid.rhs.type.name == "h_t"


def test_header_stack_operations():
    """Constant indices become bit<32>, `.size` is bit<32>, push_front/pop_front take a count."""
    s = stmts(headers="h_t h; h_t[4] hs;",
              ingress="hdr.hs.push_front(2); hdr.hs.pop_front(1); hdr.hs[3].setValid(); meta.z = hdr.hs.size;")
    push, pop, valid, size = s
    assert push.call.args[0].value.value == 2 and pop.call.args[0].value.value == 1
    index = valid.call.target.expr
    assert isinstance(index, E.Index) and index.type.name == "h_t" and index.index.type == BIT32
    assert size.rhs.type == BIT32


def test_header_methods_and_validity():
    """isValid() is bool; setValid()/setInvalid() are void."""
    a, b, c = stmts(ingress="meta.f = hdr.h.isValid(); hdr.h.setValid(); hdr.h.setInvalid();")
    assert a.rhs.type == T.BOOL and b.call.type == T.VOID and c.call.type == T.VOID


# ---- blocks, functions, package ---------------------------------------------------------------

def test_package_names_the_block_in_each_v1switch_slot():
    """`V1Switch(P(), VC(), IG(), EG(), CC(), DP()) main;` lowers to the six slots in order."""
    p = compile_ok()
    assert p.architecture == "v1model"
    assert p.package == P.Package("main", "V1Switch", (("p", "P"), ("vr", "VC"), ("ig", "IG"), ("eg", "EG"),
                                                        ("ck", "CC"), ("dep", "DP")), ((),) * 6)
    assert p.block("ig") is p.controls["IG"] and p.block("p") is p.parsers["P"]


def test_functions_with_return_values():
    """A function's return type types its calls; int arguments convert to the parameter type."""
    decls = "bit<8> max(in bit<8> a, in bit<8> b) { if (a > b) { return a; } else { return b; } }"
    p = compile_ok(decls=decls, ingress="meta.x = max(meta.y, 3);")
    f = p.functions["max"]
    assert f.ret == BIT8 and [q.name for q in f.params] == ["a", "b"]
    ret = f.body.stmts[0].then.stmts[0]
    assert isinstance(ret, S.Return) and ret.value.type == BIT8
    call = p.controls["IG"].body.stmts[0].rhs
    assert call.type == BIT8 and call.args[1].value == E.Constant(3, type=BIT8, span=call.args[1].value.span)


def checked_only(**pieces) -> P.Program:
    """The checker's program before the inlining pass (sub-block instances still recorded)."""
    from dataplane.errors import DiagnosticSink
    from dataplane.lang.check.checker import Checker
    from dataplane.lang.parser import parse_text
    from dataplane.lang.preprocess.directives import preprocess

    pre = preprocess(text=v1model(**pieces), filename="test.p4")
    sink = DiagnosticSink()
    program = Checker(sink, "test.p4").check_program(parse_text(pre.text, pre.locate, pre.source_line))
    assert not sink.has_errors(), sink.diagnostics
    return program


def test_sub_control_instance_is_applied_with_its_parameters():
    """A control instantiated in another control is a BlockInstance with its constructor arguments
    in parameter order; its apply call takes every argument in parameter order, defaults filled in."""
    decls = "control Sub(inout bit<8> v, in bit<8> d = 3)(bit<4> k, bool b = true) { apply { v = v + d; } }"
    ig = checked_only(decls=decls, ingress_locals="Sub(b = false, k = 2) s;", ingress="s.apply(meta.x);").controls["IG"]
    (inst,) = ig.subblocks
    assert (inst.name, inst.block) == ("s", "Sub") and ig.instances == ()
    assert [(a.value, a.type) for a in inst.args] == [(2, T.Bits(4)), (False, T.BOOL)]
    call = ig.body.stmts[0].call
    assert call.target.member == "apply" and [a.value.type for a in call.args] == [BIT8, BIT8]
    assert call.args[1].value.value == 3


def test_direct_invocation_records_an_anonymous_instance():
    """`Sub.apply(x)` (p4c: InstantiateDirectCalls) is an instance named after the type, @name("Sub")."""
    decls = "control Sub(inout bit<8> v) { apply { } }"
    ig = checked_only(decls=decls, ingress="Sub.apply(meta.x); Sub.apply(meta.y);").controls["IG"]
    assert [(b.name, b.block) for b in ig.subblocks] == [("Sub", "Sub"), ("Sub_1", "Sub")]
    assert ig.subblocks[0].annotations[0].string_value == "Sub"
    assert [s.call.target.expr.name for s in ig.body.stmts] == ["Sub", "Sub_1"]


def test_control_instance_passes_for_a_control_prototype():
    """A constructor parameter typed by a control prototype takes any control with the same apply signature."""
    decls = """control Proto(inout bit<8> v);
    control Impl(inout bit<8> w) { apply { w = 1; } }
    control User(inout bit<8> v)(Proto c) { apply { c.apply(v); } }"""
    ig = checked_only(decls=decls, ingress_locals="Impl() i; User(i) u;", ingress="u.apply(meta.x);").controls["IG"]
    assert [b.name for b in ig.subblocks] == ["i", "u"] and ig.subblocks[1].args[0].name == "i"


def test_control_locals_and_actions_are_recorded():
    """Control-level variables keep their initializers; actions keep data parameters."""
    ig = ingress(ingress_locals="bit<8> lv = 3; action a(in bit<8> d, bit<8> v) { lv = d + v; }", ingress="a(1, 2);")
    (lv,) = ig.variables
    assert lv.name == "lv" and lv.type == BIT8 and lv.init.value == 3
    assert [p.name for p in ig.actions["a"].data_params] == ["v"]
    assert [a.value.type for a in ig.body.stmts[0].call.args] == [BIT8, BIT8]


def test_an_entry_written_const_is_marked_in_a_mutable_entries_list():
    """`entries = { const k : a; k2 : b; }` (p4c's per-entry const) keeps which entries are constant."""
    locals_ = """action a() {} table t { key = { meta.x: exact; } actions = { a; NoAction; }
                 entries = { const 1 : a(); 2 : a(); } }"""
    t = ingress(ingress_locals=locals_).tables["t"]
    assert not t.entries_const and [e.is_const for e in t.entries] == [True, False]


def test_a_select_without_keys_takes_its_first_case():
    """`transition select () { default: s; }` is a plain transition to s."""
    parser = "state start { transition select() { default: next; } } state next { transition accept; }"
    st = compile_ok(parser=parser).parsers["P"].states["start"]
    assert st.select == () and st.next_state == "next"


def test_a_match_kind_member_is_a_value_of_type_match_kind():
    """`exact` used as a value (a constant list of match kinds for a generic table extern)."""
    p = compile_ok(decls="const tuple<match_kind, match_kind> kinds = {exact, ternary};")
    kinds = p.constants["kinds"].value
    assert [(m.member, m.type) for m in kinds.elements] == [("exact", T.MATCH_KIND), ("ternary", T.MATCH_KIND)]


GENERIC_EXTERNS = """
extern Box<T> { Box(); T get(); }
extern Reader<T> { Reader(Box<T> box); T read(); }
extern Peek { Peek(Box<_> any); }
extern Box<T> wrap<T>(in T x);
"""


def test_type_arguments_are_inferred_through_generic_extern_types():
    """`Reader(b)` with `b: Box<bit<16>>` is a Reader<bit<16>>; a `Box<_>` parameter takes any Box;
    a generic function's result type is its return type with the arguments bound."""
    locals_ = "Box<bit<16>>() b; Reader<bit<16>>(b) r; Peek(b) p;"
    ig = ingress(decls=GENERIC_EXTERNS, ingress_locals=locals_, ingress="meta.w = r.read();")
    assert [i.extern for i in ig.instances] == ["Box", "Reader", "Peek"]
    v = value("meta.w = wrap(meta.w).get();", decls=GENERIC_EXTERNS)
    assert v.type == BIT16


def test_a_list_type_takes_any_number_of_values_of_its_element_type():
    """`list<T>` (spec 1.2.4): a list expression cast or passed to it converts every element."""
    decls = "extern Init<T> { Init(list<T> values); } struct two_t { bit<8> a; bit<8> b; }"
    ig = ingress(decls=decls, ingress_locals="Init<two_t>((list<two_t>){{1, 2}, {3, 4}}) i; Init<bit<8>>({5, 6, 7}) j;")
    i, j = ig.instances
    assert str(i.args[0].type) == "list<two_t>" and [str(e.type) for e in i.args[0].elements] == ["two_t"] * 2
    assert [(e.value, str(e.type)) for e in j.args[0].elements] == [(5, "bit<8>"), (6, "bit<8>"), (7, "bit<8>")]


def test_list_is_a_keyword_that_may_still_name_a_field():
    p = compile_ok(decls="struct with_list_t { bit<8> list; }")
    assert p.types["with_list_t"].fields[0].name == "list"


def test_a_typedef_may_declare_the_struct_or_enum_it_names():
    """`typedef struct S { ... } T;` declares S and T = S (also for headers, unions and enums)."""
    p = compile_ok(decls="typedef struct point_t { bit<8> x; } pt_t; typedef enum bit<8> color_t { RED = 1 } c_t;",
                   ingress="pt_t p = {x = 1}; c_t c = color_t.RED;")
    assert p.types["pt_t"] is p.types["point_t"] and p.types["c_t"] is p.types["color_t"]


def test_a_field_may_be_named_like_an_extern_type():
    """The P4 tutorials' flowcache.p4 names a struct field `packet_in` (core.p4's extern type)."""
    p = compile_ok(decls="header cpu_h { bit<8> reason; } struct cpu_meta_t { cpu_h packet_in; }",
                   headers="h_t h; cpu_h packet_in;", ingress="hdr.packet_in.reason = 1;")
    assert p.types["cpu_meta_t"].fields[0].name == "packet_in"


def test_a_tuple_is_indexed_by_a_constant():
    """`t[1]` of a tuple has the element's type; a header inside a tuple may be written through it."""
    v = value("meta.w = t[1];", ingress_locals="tuple<bit<8>, bit<16>> t = {1, 2};")
    assert isinstance(v, E.Index) and v.type == BIT16
    ig = ingress(ingress_locals="tuple<h_t[2]> hs;", ingress="hs[0][1].a = 3;")
    assert ig.body.stmts[-1].lhs.type == BIT8
