"""Tables applied through the generated fast path behave exactly like ``RuntimeTable.lookup``.

The fast path runs in the T_ functions, and inline in the control where a table is
applied as a statement.

Tables without selector, direct counter or meter call their match structure directly;
the others (and runtime table classes that override ``lookup``) keep the general path.
The same packets, entries, default-action changes and traces go through a switch built
normally and one built with the fast path turned off; results and traces must agree.
"""
from __future__ import annotations

import random

import pytest

from dataplane.control.switch import Switch
from dataplane.engine.table_runtime import RuntimeTable
from dataplane.engine.trace import Trace
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

SOURCE = v1model_program(
    decls="header t_t { bit<8> a; bit<16> b; bit<8> res; bit<8> hits; }",
    headers="t_t h;",
    parser="state start { pkt.extract(hdr.h); transition accept; }",
    ingress_locals="""
    direct_counter(CounterType.packets_and_bytes) cnt;
    action set(bit<8> v) { hdr.h.res = v; }
    action add(bit<8> v) { hdr.h.res = hdr.h.res + v; }
    action none() { }
    table exact_t { key = { hdr.h.a: exact; } actions = { set; add; none; } default_action = none(); }
    table lpm_t { key = { hdr.h.b: lpm; } actions = { set; add; none; } default_action = add(100); }
    table stmt_t { key = { hdr.h.b: exact; hdr.h.a: exact; } actions = { set; add; none; } default_action = add(1); }
    table counted { key = { hdr.h.a: exact; } actions = { add; none; } default_action = none(); counters = cnt; }
""",
    ingress="""
        sm.egress_spec = 1;
        stmt_t.apply();
        if (exact_t.apply().hit) { hdr.h.hits = hdr.h.hits + 1; }
        switch (lpm_t.apply().action_run) {
            set: { hdr.h.hits = hdr.h.hits + 10; }
            add: { hdr.h.hits = hdr.h.hits + 20; }
        }
        if (counted.apply().miss) { hdr.h.hits = hdr.h.hits + 100; }
""",
)


@pytest.fixture(scope="module")
def program():
    return compile_source(SOURCE).program


def build(program, fast: bool, monkeypatch) -> Switch:
    if not fast:
        monkeypatch.setattr(RuntimeTable, "plain_lookup", property(lambda self: False))
    sw = Switch(program)
    monkeypatch.undo()
    sw.table_add("exact_t", "set", [1], [5])
    sw.table_add("exact_t", "add", [2], [7])
    sw.table_add("lpm_t", "set", [(0x1200, 8)], [9])
    sw.table_add("lpm_t", "add", [(0x1234, 16)], [3])
    sw.table_add("counted", "add", [2], [1])
    sw.table_add("stmt_t", "add", [0x1234, 1], [50])
    sw.table_add("stmt_t", "set", [0x9999, 2], [60])
    return sw


def test_plain_lookup_flags(program):
    sw = Switch(program)
    flags = {name: t.plain_lookup for name, t in sw.dp.tables.items()}
    assert flags == {"IG.exact_t": True, "IG.lpm_t": True, "IG.stmt_t": True, "IG.counted": False}
    # A statement-level apply runs the fast path inline in the control, the T_ function otherwise.
    control = sw.dp.pipeline.source.split("def C_IG(")[1]
    assert "if pl_T_IG_stmt_t:" in control and "T_IG_stmt_t(v_hdr" in control


def test_fast_and_general_paths_agree(program, monkeypatch):
    fast, slow = build(program, True, monkeypatch), build(program, False, monkeypatch)
    rng = random.Random(5)
    packets = [bytes([a]) + b.to_bytes(2, "big") + bytes([0, 0])
               for a in (0, 1, 2, 3) for b in (0, 0x1200, 0x12FF, 0x1234, 0x9999)]
    packets += [bytes([rng.randrange(4)]) + rng.randbytes(4) for _ in range(50)]
    for step in range(3):
        for data in packets:
            traces = Trace(program.errors), Trace(program.errors)
            outs = [sw.process(0, data, t) for sw, t in zip((fast, slow), traces)]
            assert outs[0] == outs[1]
            assert traces[0].lines == traces[1].lines
        # Control-plane changes must be seen by the fast path: defaults, deletes, clears.
        for sw in (fast, slow):
            if step == 0:
                sw.table_set_default("exact_t", "set", [42])
                sw.table_delete("lpm_t", 1)
            elif step == 1:
                sw.table_clear("exact_t")
                sw.table_add("lpm_t", "set", [(0x9999, 16)], [1])
    assert fast.direct_counter_read("counted", 0) == slow.direct_counter_read("counted", 0) != (0, 0)
