"""Control-plane names of tables, actions and externs (``Switch.table``, ``action_names``, ``register_read``)
for objects of sub-control instances, which p4c names by instance path (``MyIngress.c1.t``),
and for ``@name`` annotations. Full names and unambiguous suffixes both work.
"""
from __future__ import annotations

import pytest

from dataplane.control.switch import ControlPlaneError, Switch
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

DECLS = """
control Stage(inout bit<8> v) {
    register<bit<8>>(2) hits;
    action set(bit<8> x) { v = x; hits.write(0, x); }
    @name("renamed") table t { key = { v : exact; } actions = { set; NoAction; } default_action = NoAction(); }
    table u { key = { v : exact; } actions = { set; } }
    apply { t.apply(); u.apply(); }
}
"""
PARSER = "state start { pkt.extract(hdr.h); meta.x = hdr.h.a; transition accept; }"


@pytest.fixture
def sw() -> Switch:
    src = v1model_program(decls=DECLS, parser=PARSER, ingress_locals="Stage() c1; Stage() c2;",
                          ingress="c1.apply(meta.x); c2.apply(meta.y); hdr.h.a = meta.x;")
    return Switch(compile_source(src, "names.p4").program)


def test_tables_answer_to_p4c_names_and_suffixes(sw):
    """c1's table `t` is IG.c1.renamed for p4c (its @name under the instance's prefix)."""
    assert sw.table("IG.c1.renamed") is sw.table("c1.renamed") is sw.table("IG.c1.t")
    assert sw.table("IG.c1.u") is sw.table("c1.u") and sw.table("c1.u") is not sw.table("c2.u")
    with pytest.raises(ControlPlaneError, match="ambiguous"):
        sw.table("u")
    assert set(sw.table_names()) >= {"IG.c1.t", "IG.c1.renamed", "IG.c2.t", "IG.c2.renamed", "IG.c1.u"}


def test_actions_by_full_name_instance_path_or_short_name(sw):
    for action in ("IG.c1.set", "c1.set", "set"):
        sw.table_add("c1.u", action, [len(action)], {"x": 7})
    names = sw.action_names(sw.table("c1.u"))
    assert names["IG.c1.set"] == names["c1.set"] == "c1.set"
    with pytest.raises(ControlPlaneError, match="not one of its actions"):
        sw.table_add("c1.u", "c2.set", [1], {"x": 7})


def test_entries_of_one_instance_do_not_reach_the_other(sw):
    """c1 and c2 have a table each; an entry in c1's runs only for c1's argument (meta.x)."""
    sw.table_add("IG.c1.renamed", "IG.c1.set", [5], {"x": 0x42})
    assert sw.send(0, bytes([5]) + bytes(6))[0].data[0] == 0x42
    sw.table_add("c2.renamed", "set", [5], {"x": 0x43})
    assert sw.register_read("IG.c1.hits", 0) == 0x42 and sw.register_read("c2.hits", 0) == 0


def test_register_of_an_instance_by_suffix(sw):
    sw.register_write("c2.hits", 1, 9)
    assert sw.register_read("IG.c2.hits", 1) == 9
    with pytest.raises(ControlPlaneError, match="ambiguous"):
        sw.register_read("hits", 1)


def test_top_level_instances_answer_to_their_name_annotation():
    """A top-level ``@name("foo") counter(...) bar;`` is ``foo`` in P4Info (and ``.x.reg`` is
    ``x.reg``): the Switch, which the P4Runtime server reaches instances through by their
    P4Info name, answers to those names as well as to the declared ones."""
    pytest.importorskip("p4.config.v1.p4info_pb2")     # P4Info's protobuf (not on PyPy)
    from dataplane.control.p4info import build_p4info

    src = v1model_program(decls='@name("foo") counter(32w8, CounterType.packets) bar;\n'
                                '@name(".x.reg") register<bit<8>>(4) r2;',
                          ingress="bar.count(1); r2.write(0, 3);")
    program = compile_source(src, "top.p4").program
    info = build_p4info(program)
    counter, register = info.counters[0].preamble.name, info.registers[0].preamble.name
    assert (counter, register) == ("foo", "x.reg")
    sw = Switch(program)
    sw.send(0, b"\x00" * 20)
    assert sw.counter_read(counter, 1) == sw.counter_read("bar", 1) == (1, 20)
    assert sw.register_read(register, 0) == sw.register_read("r2", 0) == 3
    with pytest.raises(ControlPlaneError, match="unknown counter 'fo'"):
        sw.counter_read("fo", 1)
