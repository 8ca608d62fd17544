"""Type checker rules that follow what p4c accepts (and folds) beyond the plain reading of the spec.

Each test compiles a small v1model program (``dataplane.testing.skeleton``) and looks at the
typed IR, or at the error for the matching bad program.
"""
from __future__ import annotations

import pytest

from dataplane.errors import CompileError
from dataplane.ir import expr as E
from dataplane.ir import types as T
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program as v1model


def compile_ok(src: str):
    return compile_source(src, "test.p4").program


def first_error(src: str) -> str:
    with pytest.raises(CompileError) as info:
        compile_source(src, "bad.p4")
    return info.value.diagnostics[0].message


def test_stack_index_may_be_signed_or_a_serializable_enum():
    """p4c takes bit<W>, int<W> and serializable enum values as run-time stack indices."""
    decls = "enum bit<8> Slot { A = 0, B = 1 }"
    code = "Slot s = Slot.B; hdr.hs[meta.s].a = 1; hdr.hs[s].a = 2;"
    prog = compile_ok(v1model(decls=decls, headers="h_t h; h_t[2] hs;", ingress=code))
    indices = [st.lhs.expr.index for st in prog.controls["IG"].body.stmts[1:]]
    assert indices[0].type == T.Bits(8, signed=True) and isinstance(indices[1].type, T.Enum)


def test_stack_index_of_another_type_is_an_error():
    src = v1model(headers="h_t h; h_t[2] hs;", ingress="hdr.hs[meta.f].a = 1;")
    assert "a stack index must be an integer, got bool" in first_error(src)


def test_optional_extern_parameter_may_be_left_out():
    """An extern method parameter marked @optional need not be given."""
    decls = "extern Summer { Summer(); bit<16> sum<T>(in T data, @optional in bool fold); }"
    src = v1model(decls=decls, ingress_locals="Summer() s;", ingress="meta.w = s.sum({ meta.x });")
    assert compile_ok(src).controls["IG"].body.stmts


def test_call_with_an_arity_only_a_shadowed_declaration_takes_resolves_to_it():
    """An action named `hash` does not hide v1model's `hash` from a five-argument call (p4c)."""
    locals_ = "action hash() { hash(meta.x, HashAlgorithm.crc16, 8w0, { meta.y }, 8w7); }"
    prog = compile_ok(v1model(ingress_locals=locals_, ingress="hash();"))
    inner = prog.controls["IG"].actions["hash"].body.stmts[0].call.target
    assert inner.ref == "extern_function" and len(inner.type.params) == 5


def test_serializable_enum_member_in_a_select_case_is_its_number():
    decls = "enum bit<8> Kind { ONE = 1, TWO = 2 }"
    parser = "state start { transition select(meta.x) { Kind.TWO: accept; default: reject; } }"
    prog = compile_ok(v1model(decls=decls, parser=parser))
    case = prog.parsers["P"].states["start"].cases[0].keysets[0]
    assert isinstance(case, E.Constant) and case.value == 2 and case.type == T.Bits(8)


def test_serializable_enum_key_takes_an_integer_mask():
    decls = "enum bit<16> Kind { ONE = 0x1100 }"
    locals_ = """Kind k = Kind.ONE;
    table t { key = { k: ternary; } actions = { NoAction; }
              const entries = { Kind.ONE &&& 0xff00 : NoAction(); } }"""
    table = compile_ok(v1model(decls=decls, ingress_locals=locals_, ingress="t.apply();")).controls["IG"].tables["t"]
    mask = table.entries[0].keys[0]
    assert isinstance(mask, E.Mask) and mask.mask.value == 0xFF00 and isinstance(mask.value, E.TypeMember)


def test_list_of_key_values_as_an_entry_keyset():
    """`{(v)} : a();` in a one-key table is the key's value (p4c's action-two-params)."""
    locals_ = """table t { key = { meta.z: exact; } actions = { NoAction; }
              const entries = { {(8w1 ++ 8w2 ++ 16w3)} : NoAction(); } }"""
    table = compile_ok(v1model(ingress_locals=locals_, ingress="t.apply();")).controls["IG"].tables["t"]
    assert table.entries[0].keys[0].value == 0x01020003


def test_static_assert_is_evaluated_at_compile_time():
    decls = 'const bool ok = static_assert(V1MODEL_VERSION >= 20160101, "old v1model");'
    prog = compile_ok(v1model(decls=decls, ingress="meta.f = ok;"))
    assert prog.controls["IG"].body.stmts[0].rhs == E.BoolLiteral(True, type=T.BOOL,
                                                                   span=prog.controls["IG"].body.stmts[0].rhs.span)


def test_failing_static_assert_is_an_error_with_its_message():
    src = v1model(ingress='static_assert(1 == 2, "arithmetic is broken");')
    assert first_error(src) == "static_assert failed: arithmetic is broken"


def test_optional_parameter_of_a_function_is_an_error():
    """p4c allows @optional only on extern functions, extern methods and packages."""
    src = v1model(decls="bit<8> f(@optional bit<8> a) { return a; }")
    assert "'a': an @optional parameter is only allowed in an extern function" in first_error(src)
