"""Front-end warnings (``dataplane.lang.lint``): unused declarations, shadowing, straight-line reads
of uninitialised locals; silenced by ``@noWarn`` or a ``WarningPolicy``, made errors by ``as_errors``."""
from __future__ import annotations

import pytest

from dataplane.diagnostics import WarningPolicy
from dataplane.errors import CompileError
from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import FILE, where
from dataplane.testing.skeleton import v1model_program as v1model


def warnings(src: str, code: str | None = None) -> list[tuple[str, tuple[int, int]]]:
    """(message, (line, col)) of the warnings of ``src`` (with ``code`` only, if given)."""
    ws = compile_source(src, FILE).warnings
    return [(w.message, (w.span.line, w.span.col)) for w in ws if code is None or w.code == code]


def test_a_clean_program_has_no_warnings():
    src = v1model(ingress_locals="action set() { meta.x = 1; } table t { key = { meta.x: exact; } "
                                 "actions = { set; } }", ingress="bit<8> v = 2; meta.y = v; t.apply();")
    assert warnings(src) == []


def test_unused_action_table_and_variables():
    src = v1model(ingress_locals="bit<8> spare_v; action a1() {} table t0 { key = { meta.x: exact; } "
                                 "actions = { NoAction; } }",
                  ingress="bit<8> tmp = 1;")
    assert sorted(warnings(src, "unused")) == sorted([
        ("variable 'spare_v' is unused", where(src, "bit<8> spare_v")),
        ("action 'a1' is unused", where(src, "action a1")),
        ("table 't0' is unused", where(src, "table t0")),
        ("variable 'tmp' is unused", where(src, "bit<8> tmp")),
    ])


def test_an_action_a_table_lists_and_a_variable_only_written_are_used():
    """As in p4c, any reference counts: listing an action, writing a variable."""
    src = v1model(ingress_locals="bit<8> w; action a1() { w = 1; } table t0 { key = { meta.x: exact; } "
                                 "actions = { a1; } }", ingress="t0.apply();")
    assert warnings(src, "unused") == []


def test_shadowing_a_top_level_constant_and_an_outer_local():
    src = v1model(decls="const bit<8> LIMIT = 3;",
                  ingress="bit<8> LIMIT = 4; meta.x = LIMIT; if (meta.x == 1) { bit<8> LIMIT2 = 1; "
                          "meta.y = LIMIT2; }")
    assert warnings(src, "shadow") == [("variable 'LIMIT' shadows a declaration of an enclosing scope",
                                        where(src, "bit<8> LIMIT = 4"))]


def test_a_declaration_after_a_top_level_one_of_the_same_name_is_no_shadow_before_it():
    """Names are visible after their declaration: a function declared later is not shadowed."""
    src = v1model(decls="bit<8> f() { bit<8> g = 1; return g; }\nbit<8> g() { return 2; }",
                  ingress="meta.x = f() + g();")
    assert warnings(src, "shadow") == []


def test_read_of_an_uninitialised_local_points_at_the_read():
    src = v1model(ingress="bit<8> t; meta.x = t + 1;")
    (msg, at), = warnings(src, "uninitialized-use")
    assert "'t' is read before anything is written to it" in msg and at == where(src, "t + 1")


@pytest.mark.parametrize("body", [
    "bit<8> t; t = 3; meta.x = t;",                            # written first
    "bit<8> t; if (meta.y == 1) { t = 1; } meta.x = t;",       # a branch names it: no guess
    "bit<8> t; t[3:0] = 1; meta.x = t;",                       # a partial write ends the check
    "bit<8> t; hash(t, HashAlgorithm.crc16, 8w0, { meta.y }, 8w255); meta.x = t;",   # an out argument
])
def test_no_uninitialised_warning_where_a_write_may_have_happened(body):
    assert warnings(v1model(ingress=body), "uninitialized-use") == []


def test_no_uninitialised_warning_in_an_action_nothing_runs():
    """p4c drops unused actions before its def-use pass; so do we."""
    src = v1model(ingress_locals="action dead() { bit<8> t; meta.x = t; }")
    assert warnings(src, "uninitialized-use") == []


def test_nowarn_annotation_silences_one_code():
    src = v1model(ingress_locals='@noWarn("unused") action spare() {} action spare2() {}')
    assert [m for m, _ in warnings(src, "unused")] == ["action 'spare2' is unused"]


def test_policy_disables_codes_and_makes_the_rest_errors():
    src = v1model(ingress_locals="action spare() {}", ingress="bit<8> t; meta.x = t;")
    assert compile_source(src, FILE, warnings=WarningPolicy(frozenset({"unused", "uninitialized-use"}))).warnings == []
    with pytest.raises(CompileError) as info:
        compile_source(src, FILE, warnings=WarningPolicy(frozenset({"unused"}), as_errors=True))
    (d,) = info.value.diagnostics
    assert d.severity == "error" and d.code == "uninitialized-use"
    assert str(info.value).startswith(f"{FILE}:{d.span.line}:{d.span.col}: error [uninitialized-use]: ")


def test_no_warnings_from_the_bundled_include_files():
    """v1model.p4 and core.p4 declare actions (NoAction) a program may never use."""
    src = v1model()
    assert all(w.span.file == FILE for w in compile_source(src, FILE).warnings)
