"""Table properties as p4c takes them (``lang/check/table.py``)."""
from __future__ import annotations

from dataplane.control.p4info import build_p4info
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
    info = build_p4info(prog)
    assert [t.size for t in info.tables] == [1024]
    one = compile_source(v1model(ingress_locals=TABLE.format(size=1), ingress="t.apply();"), "ok.p4").program
    assert [t.size for t in build_p4info(one).tables] == [1]


def test_negative_table_size_is_an_error():
    src = v1model(ingress_locals=TABLE.format(size=-1), ingress="t.apply();")
    assert_error(src, "table 't' size must not be negative", at="size = -1", code="out-of-range")
