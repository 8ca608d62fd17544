"""Table properties as p4c takes them (``lang/check/table.py``)."""
from __future__ import annotations

import pytest

from dataplane.lang.frontend import compile_source
from dataplane.testing.diagnostics import assert_error
from dataplane.testing.skeleton import v1model_program as v1model

TABLE = """
    action set(bit<8> v) {{ meta.y = v; }}
    table t {{ key = {{ meta.x: exact; }} actions = {{ set; NoAction; }} size = {size}; }}
"""


def test_table_size_zero_is_the_default_size():
    """p4c (getTableSize, BMv2's max_size) reads `size = 0` as no size: P4Info says 1024."""
    prog = compile_source(v1model(ingress_locals=TABLE.format(size=0), ingress="t.apply();"), "ok.p4").program
    assert prog.controls["IG"].tables["t"].size is None
    pytest.importorskip("p4.config.v1.p4info_pb2")     # P4Info's protobuf (not on PyPy)
    from dataplane.control.p4info import build_p4info

    info = build_p4info(prog)
    assert [t.size for t in info.tables] == [1024]
    one = compile_source(v1model(ingress_locals=TABLE.format(size=1), ingress="t.apply();"), "ok.p4").program
    assert [t.size for t in build_p4info(one).tables] == [1]


def test_negative_table_size_is_an_error():
    src = v1model(ingress_locals=TABLE.format(size=-1), ingress="t.apply();")
    assert_error(src, "table 't' size must not be negative", at="size = -1", code="out-of-range")


ENUM_DEFAULT = """
    action set_x(bit<2> v) {{ meta.y = (bit<8>)v; }}
    table t {{ key = {{ meta.x: exact; }} actions = {{ set_x; }} default_action = set_x({arg}); }}
"""


def test_serializable_enum_member_is_a_constant_default_action_argument():
    """p4c folds `set_x(foo_t.C)` for a bit<2> parameter to the member's number (serEnumImplCast.p4)."""
    decls = "enum bit<2> foo_t { A = 0, B = 1, C = 2, D = 3 }"
    src = v1model(decls=decls, ingress_locals=ENUM_DEFAULT.format(arg="foo_t.C"), ingress="t.apply();")
    default = compile_source(src, "ok.p4").program.controls["IG"].tables["t"].default_action
    assert [(a.value, a.type.width) for a in default.args] == [(2, 2)]
    bad = v1model(decls=decls, ingress_locals=ENUM_DEFAULT.format(arg="meta.x[1:0]"), ingress="t.apply();")
    assert_error(bad, "default action arguments must be compile-time constants", at="meta.x[1:0]", code="not-constant")
