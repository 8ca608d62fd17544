"""The inlining pass (dataplane/lang/inline/: program, parser, rewrite, support).

Each test compiles a small program whose ingress (or parser) holds sub-block instances
and checks the flattened block the engine gets: names of inlined objects and their
control-plane names, how arguments bind to parameters, and packets run through it.
"""
from __future__ import annotations

from dataplane.control.switch import Switch
from dataplane.ir import expr as E
from dataplane.ir import program as P
from dataplane.ir import stmt as S
from dataplane.ir import types as T
from dataplane.ir.node import annotation, walk
from dataplane.lang.frontend import compile_source
from dataplane.testing.skeleton import v1model_program

STAGE = """
control Stage(inout bit<8> v) {
    register<bit<8>>(2) r;
    bit<8> last;
    action set(bit<8> x) { v = x; last = x; }
    table t { key = { v : exact; } actions = { set; NoAction; } default_action = NoAction(); }
    apply { t.apply(); }
}
"""


def compile_ok(**pieces) -> P.Program:
    return compile_source(v1model_program(**pieces), "test.p4").program


def cp_name(obj) -> str:
    a = annotation(obj.annotations, "name")
    return a.string_value if a is not None else ""


def packet(x: int, y: int = 0) -> bytes:
    """A packet whose parser (see ``PARSER``) puts ``x`` and ``y`` in meta and h.a."""
    return bytes([x, y]) + bytes(10)


PARSER = "state start { pkt.extract(hdr.h); meta.x = hdr.h.a; meta.y = (bit<8>)hdr.h.b; transition accept; }"


def run(program: P.Program, data: bytes) -> bytes:
    out = Switch(program).send(0, data)
    assert len(out) == 1
    return out[0].data


# ---- names -------------------------------------------------------------------------------------------

def test_instance_locals_are_renamed_into_the_holder_and_sub_blocks_dropped():
    """`Stage() c1;` brings c1.t, c1.set, c1.last and c1.r into IG; Stage itself leaves the program."""
    p = compile_ok(decls=STAGE, ingress_locals="Stage() c1;", ingress="c1.apply(meta.x);")
    ig = p.controls["IG"]
    assert "Stage" not in p.controls
    assert list(ig.tables) == ["c1.t"] and "c1.set" in ig.actions
    assert [v.name for v in ig.variables] == ["c1.last"] and [i.name for i in ig.instances] == ["c1.r"]
    t = ig.tables["c1.t"]
    assert [a.action for a in t.actions] == ["c1.set", "NoAction"]
    assert cp_name(t) == "c1.t" and cp_name(ig.actions["c1.set"]) == "c1.set"
    assert not any(isinstance(n, E.Member) and isinstance(n.expr.type, T.Block) for n in walk(ig.body))


def test_name_annotations_of_instances_and_their_objects():
    """An instance's @name replaces its name in control-plane names; an object's own @name is kept
    under that prefix, and one starting with '.' stays absolute."""
    decls = """
    control S2(inout bit<8> v) {
        @name("tt") table t { actions = { NoAction; } }
        @name(".glob") table g { actions = { NoAction; } }
        apply { t.apply(); g.apply(); }
    }"""
    ig = compile_ok(decls=decls, ingress_locals='@name("outer") S2() s;', ingress="s.apply(meta.x);").controls["IG"]
    assert cp_name(ig.tables["s.t"]) == "outer.tt" and cp_name(ig.tables["s.g"]) == ".glob"
    assert P.control_plane_name("IG", "s.t", ig.tables["s.t"].annotations) == "IG.outer.tt"
    assert P.control_plane_name("IG", "s.g", ig.tables["s.g"].annotations) == "glob"


def test_direct_invocation_is_an_instance_named_after_the_type():
    """`Stage.apply(...)`: an anonymous instance whose objects p4c names after the type (IG.Stage.t)."""
    ig = compile_ok(decls=STAGE, ingress="Stage.apply(meta.x);").controls["IG"]
    assert list(ig.tables) == ["Stage.t"] and cp_name(ig.tables["Stage.t"]) == "Stage.t"


def test_each_direct_invocation_is_its_own_instance():
    """Two direct invocations are two instances (Plus and Plus_1), each inlined with its argument."""
    decls = "control Plus(inout bit<8> v) { bit<8> one; apply { one = 1; v = v + one; } }"
    ig = compile_ok(decls=decls, ingress="Plus.apply(meta.x); Plus.apply(meta.y);").controls["IG"]
    assert [v.name for v in ig.variables] == ["Plus.one", "Plus_1.one"]


def test_nested_instances_nest_their_names():
    decls = STAGE + "control Outer(inout bit<8> v) { Stage() inner; apply { inner.apply(v); } }"
    ig = compile_ok(decls=decls, ingress_locals="Outer() o;", ingress="o.apply(meta.x);").controls["IG"]
    assert list(ig.tables) == ["o.inner.t"] and cp_name(ig.tables["o.inner.t"]) == "o.inner.t"


def test_an_instance_never_applied_brings_nothing():
    """As p4c removes unused declarations, an instance without apply adds no table."""
    ig = compile_ok(decls=STAGE, ingress_locals="Stage() c1;").controls["IG"]
    assert ig.tables == {} and ig.instances == ()


# ---- arguments ---------------------------------------------------------------------------------------

def test_arguments_replace_parameters_when_every_call_passes_the_same():
    """One call site (or identical ones) and no overlap: no temporary, the body writes meta.x."""
    ig = compile_ok(decls=STAGE, ingress_locals="Stage() c1;",
                    ingress="c1.apply(meta.x); c1.apply(meta.x);").controls["IG"]
    assert [v.name for v in ig.variables] == ["c1.last"]
    key = ig.tables["c1.t"].keys[0].expr
    assert isinstance(key, E.Member) and key.member == "x"
    assert ig.tables["c1.t"].keys[0].name == "v"   # the key keeps the name written in Stage


def test_different_arguments_at_two_calls_use_a_copy():
    """Two calls with different arguments: v is a temporary, copied in and back around each body."""
    ig = compile_ok(decls=STAGE, ingress_locals="Stage() c1;",
                    ingress="c1.apply(meta.x); c1.apply(meta.y);").controls["IG"]
    assert "c1.v" in [v.name for v in ig.variables]
    first = ig.body.stmts[0]
    assert isinstance(first, S.BlockStmt)
    copy_in, copy_out = first.stmts[0], first.stmts[-1]
    assert isinstance(copy_in, S.Assign) and copy_in.lhs.name == "c1.v" and copy_in.rhs.member == "x"
    assert isinstance(copy_out, S.Assign) and copy_out.lhs.member == "x" and copy_out.rhs.name == "c1.v"


def test_statement_local_argument_read_by_a_table_goes_through_a_copy():
    """A table key is read outside the apply body, where a caller's local `t` does not exist:
    the parameter becomes a block-level copy. A local only the body reads is passed as it is."""
    decls = STAGE + "control Inc(inout bit<8> v) { apply { v = v + 1; } }"
    p = compile_ok(decls=decls, parser=PARSER, ingress_locals="Stage() c1; Inc() inc;",
                   ingress="bit<8> t = meta.x; c1.apply(t); inc.apply(t); hdr.h.a = t;")
    ig = p.controls["IG"]
    assert [v.name for v in ig.variables] == ["c1.v", "c1.last"]   # no copy for inc
    sw = Switch(p)
    sw.table_add("c1.t", "set", [4], {"x": 9})
    assert sw.send(0, packet(4))[0].data[0] == 10 and sw.send(0, packet(5))[0].data[0] == 6


def test_overlapping_arguments_are_copied_back_in_parameter_order():
    """`two.apply(meta.x, meta.x)`: a and b are copies; b's copy-out comes last and wins."""
    decls = "control Two(inout bit<8> a, inout bit<8> b) { apply { a = a + 1; b = b + 16; } }"
    p = compile_ok(decls=decls, ingress_locals="Two() two;", parser=PARSER,
                   ingress="two.apply(meta.x, meta.x); hdr.h.a = meta.x;")
    assert run(p, packet(5))[0] == 5 + 16


def test_out_header_argument_starts_invalid_and_default_argument_is_used():
    """An out header is invalidated at the call; a missing argument takes its declared default."""
    decls = "control C(out h_t o, in bit<8> k = 7) { apply { if (k == 7) { o.setValid(); o.a = k; } } }"
    p = compile_ok(decls=decls, parser=PARSER, ingress_locals="C() c;", ingress="c.apply(hdr.h);")
    assert run(p, packet(1, 2))[0] == 7


def test_return_ends_only_the_sub_control():
    decls = "control R(inout bit<8> v) { apply { v = 1; if (v == 1) { return; } v = 2; } }"
    p = compile_ok(decls=decls, parser=PARSER, ingress_locals="R() r;",
                   ingress="r.apply(meta.x); hdr.h.a = meta.x + 10;")
    assert run(p, packet(0))[0] == 11


def test_action_run_switch_on_an_inlined_table():
    """`switch (t.apply().action_run)` in a sub-control names the instance's renamed actions."""
    decls = """
    control Sw(inout bit<8> v) {
        action one() { }
        action two() { }
        table t { key = { v : exact; } actions = { one; two; } default_action = two(); }
        apply { switch (t.apply().action_run) { one: { v = 0x11; } two: { v = 0x22; } } }
    }"""
    p = compile_ok(decls=decls, parser=PARSER, ingress_locals="Sw() s;", ingress="s.apply(meta.x); hdr.h.a = meta.x;")
    sw = Switch(p)
    sw.table_add("s.t", "one", [3])
    assert sw.send(0, packet(3))[0].data[0] == 0x11 and sw.send(0, packet(4))[0].data[0] == 0x22


def test_constructor_argument_reaches_an_extern_constructor_and_folds():
    decls = "control K(inout bit<8> v)(bit<32> n) { register<bit<8>>(n + 1) r; apply { v = (bit<8>) n; } }"
    ig = compile_ok(decls=decls, ingress_locals="K(4) k;", ingress="k.apply(meta.x);").controls["IG"]
    (reg,) = ig.instances
    assert reg.name == "k.r" and isinstance(reg.args[0], E.Constant) and reg.args[0].value == 5


def test_package_block_constructor_arguments_bind():
    """A block the package instantiates with arguments reads them as constants."""
    src = v1model_program(ingress="meta.x = 1;").replace(
        "control IG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {",
        "control IG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm)(bit<8> k) {").replace(
        "meta.x = 1;", "hdr.h.a = k;").replace("IG(), EG()", "IG(42), EG()")
    p = compile_source(src.replace("state start { transition accept; }", PARSER), "test.p4").program
    assert run(p, packet(0))[0] == 42


# ---- sub-parsers -----------------------------------------------------------------------------------------

def test_sub_parser_states_are_inlined_per_call_with_a_continuation():
    decls = """
    parser Sub(packet_in pk, inout bit<8> n) {
        state start { n = n + 1; transition select(n) { 1: one; default: accept; } }
        state one { n = n + 10; transition accept; }
    }"""
    parser = """
    state start { pkt.extract(hdr.h); sub.apply(pkt, meta.x); hdr.h.a = meta.x; transition accept; }"""
    p = compile_ok(decls=decls, parser_locals="Sub() sub;", parser=parser)
    states = p.parsers["P"].states
    assert list(states) == ["start", "sub.start", "sub.one", "start_1"]
    assert states["start"].next_state == "sub.start"
    assert [c.next_state for c in states["sub.start"].cases] == ["sub.one", "start_1"]
    assert states["sub.one"].next_state == "start_1" and states["start_1"].next_state == "accept"
    assert run(p, packet(0))[0] == 11


def test_value_set_of_a_sub_parser_is_the_instance_s():
    """A sub-parser's value_set becomes the caller's, named by instance path; its select names it."""
    decls = """
    parser Sub(packet_in pk, inout h_t h) {
        value_set<bit<8>>(4) pvs;
        state start { transition select(h.a) { pvs: hit; default: accept; } }
        state hit { h.b = 7; transition accept; }
    }"""
    p = compile_ok(decls=decls, parser_locals="Sub() s;",
                   parser="state start { pkt.extract(hdr.h); s.apply(pkt, hdr.h); transition accept; }")
    parser = p.parsers["P"]
    assert [i.name for i in parser.instances] == ["s.pvs"]
    keyset = parser.states["s.start"].cases[0].keysets[0]
    assert isinstance(keyset, E.PathExpr) and keyset.name == "s.pvs"
