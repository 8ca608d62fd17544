"""P4Info of small programs (dataplane.control.p4info.build): each object kind as p4c writes it."""
from __future__ import annotations

import pytest

p4info_pb2 = pytest.importorskip("p4.config.v1.p4info_pb2")

from dataplane.control.p4info import (  # noqa: E402
    P4InfoError,
    build_p4info,
    ids,  # noqa: E402
)
from dataplane.control.p4info.ids import hashed_id  # noqa: E402
from dataplane.lang.frontend import compile_source  # noqa: E402
from dataplane.testing.skeleton import v1model_program  # noqa: E402

MF = p4info_pb2.MatchField


def info_of(**pieces) -> p4info_pb2.P4Info:
    return build_p4info(compile_source(v1model_program(**pieces), "p.p4").program)


def by_name(items, name):
    (found,) = [x for x in items if x.preamble.name == name]
    return found


TABLES = dict(
    ingress_locals="""
    action set(bit<8> v, bit<16> w) { meta.x = v; meta.w = w; }
    @id(0x01000042) action other() { }
    @brief("forward") @description("the main table")
    table t {
        key = { meta.x : exact; meta.z : lpm; meta.w : ternary; meta.y : range;
                meta.s : optional; hdr.h.isValid() : exact @name("valid"); }
        actions = { set; @tableonly other; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 64;
        support_timeout = true;
    }
    @name("renamed") table u {
        key = { meta.x : exact; }
        actions = { set; }
        default_action = set(7, 0x102);
        const entries = { 1 : set(1, 2); }
    }
    """,
    ingress="t.apply(); u.apply();",
)


def test_tables_have_p4cs_ids_names_and_aliases():
    info = info_of(**TABLES)
    assert info.pkg_info.arch == "v1model"
    t = by_name(info.tables, "IG.t")
    assert t.preamble.id == hashed_id(ids.TABLE, "IG.t")
    assert t.preamble.alias == "t"
    assert t.preamble.doc.brief == "forward" and t.preamble.doc.description == "the main table"
    assert not t.preamble.annotations   # @brief/@description go to doc only
    u = by_name(info.tables, "IG.renamed")
    assert u.preamble.alias == "renamed"


def test_match_fields_carry_ids_widths_and_match_types():
    t = by_name(info_of(**TABLES).tables, "IG.t")
    got = [(m.id, m.name, m.bitwidth, m.match_type) for m in t.match_fields]
    assert got == [(1, "meta.x", 8, MF.EXACT), (2, "meta.z", 32, MF.LPM), (3, "meta.w", 16, MF.TERNARY),
                   (4, "meta.y", 8, MF.RANGE), (5, "meta.s", 8, MF.OPTIONAL), (6, "valid", 1, MF.EXACT)]


def test_action_refs_scopes_default_action_size_and_timeout():
    info = info_of(**TABLES)
    t = by_name(info.tables, "IG.t")
    set_id = by_name(info.actions, "IG.set").preamble.id
    other = by_name(info.actions, "IG.other")
    assert other.preamble.id == 0x01000042   # @id honoured
    scopes = {r.id: (r.scope, list(r.annotations)) for r in t.action_refs}
    assert scopes[set_id] == (p4info_pb2.ActionRef.TABLE_AND_DEFAULT, [])
    assert scopes[other.preamble.id] == (p4info_pb2.ActionRef.TABLE_ONLY, ["@tableonly"])
    noaction = hashed_id(ids.ACTION, "NoAction")
    assert scopes[noaction] == (p4info_pb2.ActionRef.DEFAULT_ONLY, ["@defaultonly"])
    assert t.const_default_action_id == noaction
    assert t.size == 64
    assert t.idle_timeout_behavior == p4info_pb2.Table.NOTIFY_CONTROL
    u = by_name(info.tables, "IG.renamed")
    assert u.size == 1024 and u.is_const_table and u.has_initial_entries
    assert u.const_default_action_id == 0
    assert u.initial_default_action.action_id == set_id
    assert [(a.param_id, a.value) for a in u.initial_default_action.arguments] == [(1, b"\x07"), (2, b"\x01\x02")]
    # NoAction comes in when a table names no default action, marked @defaultonly
    assert any(r.id == noaction and r.scope == p4info_pb2.ActionRef.DEFAULT_ONLY
               for r in by_name(info_of(ingress_locals="table v { key = { meta.x : exact; } actions = { } }",
                                        ingress="v.apply();").tables, "IG.v").action_refs)


def test_action_params_with_ids_names_and_widths():
    info = info_of(ingress_locals="""
        action a(@id(3) bit<8> first, bool second, @name("third") bit<48> t) { }
        table tt { key = { meta.x : exact; } actions = { a; } }""", ingress="tt.apply();")
    a = by_name(info.actions, "IG.a")
    assert [(p.id, p.name, p.bitwidth) for p in a.params] == [(3, "first", 8), (2, "second", 1), (4, "third", 48)]


def test_externs_counters_meters_registers_profiles_and_direct_resources():
    info = info_of(ingress_locals="""
        counter(32w16, CounterType.packets_and_bytes) cnt;
        meter(32w8, MeterType.bytes) mtr;
        register<bit<24>>(32w100) reg;
        direct_counter(CounterType.packets) dc;
        action a() { cnt.count(0); }
        table t {
            key = { meta.x : exact; meta.z : selector; }
            actions = { a; }
            counters = dc;
            @name("prof") implementation = action_selector(HashAlgorithm.crc16, 32w64, 32w14);
        }""", ingress="t.apply(); reg.write(0, 1); bit<8> c; mtr.execute_meter(0, c);")
    c = by_name(info.counters, "IG.cnt")
    assert (c.size, c.spec.unit) == (16, p4info_pb2.CounterSpec.BOTH)
    assert c.preamble.id >> 24 == ids.COUNTER
    m = by_name(info.meters, "IG.mtr")
    assert (m.size, m.spec.unit, m.preamble.id >> 24) == (8, p4info_pb2.MeterSpec.BYTES, ids.METER)
    r = by_name(info.registers, "IG.reg")
    assert (r.size, r.type_spec.bitstring.bit.bitwidth, r.preamble.id >> 24) == (100, 24, ids.REGISTER)
    t = by_name(info.tables, "IG.t")
    assert [f.name for f in t.match_fields] == ["meta.x"]     # a selector key is not a match field
    dc = by_name(info.direct_counters, "IG.dc")
    assert dc.direct_table_id == t.preamble.id and list(t.direct_resource_ids) == [dc.preamble.id]
    assert dc.preamble.id >> 24 == ids.DIRECT_COUNTER
    prof = by_name(info.action_profiles, "prof")
    assert prof.with_selector and prof.size == 64 and list(prof.table_ids) == [t.preamble.id]
    assert t.implementation_id == prof.preamble.id and prof.preamble.id >> 24 == ids.ACTION_PROFILE


def test_controller_headers_digests_and_value_sets():
    info = info_of(decls="""
        @controller_header("packet_in") header packet_in_t { bit<9> ingress_port; bit<7> pad; }
        struct learn_t { bit<48> mac; bit<9> port; }""",
                   headers="h_t h; packet_in_t pin;",
                   parser_locals="value_set<bit<16>>(4) vs;",
                   parser="state start { pkt.extract(hdr.h); transition select(hdr.h.b) { vs: accept; default: accept; } }",
                   ingress="digest<learn_t>(1, {48w1, sm.ingress_port});")
    (cpm,) = info.controller_packet_metadata
    assert cpm.preamble.name == "packet_in" and cpm.preamble.alias == "packet_in"
    assert cpm.preamble.id == hashed_id(ids.CONTROLLER_HEADER, "packet_in_t")
    assert list(cpm.preamble.annotations) == ['@controller_header("packet_in")']
    assert [(m.id, m.name, m.bitwidth) for m in cpm.metadata] == [(1, "ingress_port", 9), (2, "pad", 7)]
    (d,) = info.digests
    assert d.preamble.name == "learn_t" and d.type_spec.struct.name == "learn_t"
    assert [m.name for m in info.type_info.structs["learn_t"].members] == ["mac", "port"]
    (vs,) = info.value_sets
    assert vs.preamble.name == "P.vs" and vs.size == 4
    assert [(m.id, m.bitwidth, m.match_type) for m in vs.match] == [(1, 16, MF.EXACT)]


def test_type_info_for_serializable_enums_and_translated_types():
    info = info_of(decls="""
        enum bit<8> Color { RED = 1, BLUE = 0x10 }
        @p4runtime_translation("example.org/port", 32) type bit<9> port_t;""",
                   ingress_locals="""
        action paint(Color c, port_t p) { }
        table t { key = { meta.x : exact; } actions = { paint; } }""", ingress="t.apply();")
    a = by_name(info.actions, "IG.paint")
    # a translated type has the controller's width, as p4c gives it
    assert [(p.name, p.bitwidth, p.type_name.name) for p in a.params] == [("c", 8, ""), ("p", 32, "port_t")]
    color = info.type_info.serializable_enums["Color"]
    assert color.underlying_type.bitwidth == 8
    assert [(m.name, m.value) for m in color.members] == [("RED", b"\x01"), ("BLUE", b"\x10")]
    port = info.type_info.new_types["port_t"]
    assert port.translated_type.uri == "example.org/port" and port.translated_type.sdn_bitwidth == 32


def test_programs_p4c_makes_no_p4info_for_are_a_clear_error():
    src = """#include <core.p4>
#include <ebpf_model.p4>
header h_t { bit<8> a; }
struct hs { h_t h; }
parser prs(packet_in p, out hs h) { state start { transition accept; } }
control pipe(inout hs h, out bool pass) { apply { pass = true; } }
ebpfFilter(prs(), pipe()) main;
"""
    with pytest.raises(P4InfoError, match="ebpf"):
        build_p4info(compile_source(src, "e.p4").program)


def test_only_what_p4c_keeps_tables_applied_and_actions_reachable():
    info = info_of(ingress_locals="""
        action direct(bit<8> v) { meta.x = v; }
        action dead() { }
        action used(bit<8> v) { meta.y = v; }
        table applied { key = { meta.x : exact; } actions = { used; } }
        table never { key = { meta.x : exact; } actions = { used; } }
        table in_dead_code { key = { meta.x : exact; } actions = { used; } }""",
                   ingress="applied.apply(); direct(3); if (false) { in_dead_code.apply(); dead(); }")
    assert sorted(t.preamble.name for t in info.tables) == ["IG.applied"]
    assert sorted(a.preamble.name for a in info.actions) == ["IG.direct", "IG.used", "NoAction"]
    # an action only called directly loses its parameters in p4c's front end
    assert not by_name(info.actions, "IG.direct").params
    assert [p.name for p in by_name(info.actions, "IG.used").params] == ["v"]


def test_match_field_names_follow_p4cs_key_names():
    t = by_name(info_of(ingress_locals="""
        table t { key = { meta.z & 0xff00 : ternary; meta.z[7:0] : exact; } actions = { } }""",
                        ingress="t.apply();").tables, "IG.t")
    assert [m.name for m in t.match_fields] == ["meta.z & 0xff00", "meta.z[7:0]"]


def test_a_program_without_a_main_package_has_an_empty_p4info():
    info = info_of(main=False, ingress_locals="table t { key = { meta.x : exact; } actions = { } }",
                   ingress="t.apply();")
    assert not info.HasField("pkg_info") and not info.tables


def test_other_match_types_key_ids_and_hidden_tables():
    info = info_of(decls="match_kind { fancy }", ingress_locals="""
        table t { key = { meta.x : fancy; meta.y : exact @id(7); meta.w : exact; } actions = { } }
        @hidden table h { key = { meta.x : exact; } actions = { } }""", ingress="t.apply(); h.apply();")
    assert [t.preamble.name for t in info.tables] == ["IG.t"]      # @hidden tables stay out
    fields = by_name(info.tables, "IG.t").match_fields
    # p4c's allocator: @id values first, then 1, 2, ... by position, skipping taken ones
    assert [(m.id, m.name, m.other_match_type) for m in fields] == [(1, "meta.x", "fancy"), (7, "meta.y", ""),
                                                                   (2, "meta.w", "")]
    assert fields[0].match_type == MF.UNSPECIFIED


def test_digests_reached_through_called_actions_and_unnamed_digest_types():
    info = info_of(decls="struct learn_t { bit<8> x; }", ingress_locals="""
        action inner() { digest<learn_t>(1, {meta.x}); }
        action outer() { inner(); }
        table t { key = { meta.x : exact; } actions = { outer; } }""",
                   ingress="t.apply(); digest(1, {meta.y, meta.w});")
    names = sorted(d.preamble.name for d in info.digests)
    assert names == ["digest_0", "learn_t"]
    tup = next(d for d in info.digests if d.preamble.name == "digest_0").type_spec.tuple
    assert [m.bitstring.bit.bitwidth for m in tup.members] == [8, 16]


def test_pkg_info_from_the_main_declarations_annotations():
    src = v1model_program(main=False) + (
        '@pkginfo(name="demo", version="1.2", organization="example")\n'
        '@platform_property(multicast_group_table_size=64)\n'
        '@brief("a demo") @custom("x")\n'
        "V1Switch(P(), VC(), IG(), EG(), CC(), DP()) main;\n")
    pkg = build_p4info(compile_source(src, "p.p4").program).pkg_info
    assert (pkg.arch, pkg.name, pkg.version, pkg.organization) == ("v1model", "demo", "1.2", "example")
    assert pkg.platform_properties.multicast_group_table_size == 64
    assert pkg.doc.brief == "a demo" and list(pkg.annotations) == ['@custom("x")']


def test_a_repeated_field_id_is_a_located_error():
    with pytest.raises(P4InfoError, match="@id 2 is used multiple times") as err:
        info_of(ingress_locals="""
            action a(@id(2) bit<8> x, @id(2) bit<8> y) { }
            table t { key = { meta.x : exact; } actions = { a; } }""", ingress="t.apply();")
    assert str(err.value).startswith("p.p4:")


DUP_ACTIONS = """
control S(inout bit<8> v) {{ @name("{name}") action a() {{ v = 1; }} apply {{ a(); }} }}
"""


def test_actions_sharing_a_control_plane_name_compile_but_have_no_p4info():
    """p4c runs DuplicateActionControlPlaneNameCheck only when it writes P4Info: two controls'
    identical `@name("._drop")` actions compile, and P4Info for them is an error located at the
    second one; a sub-control's `@name("b")` inlined as IG.s.b conflicts the same way."""
    drop = '@name("._drop") action _drop() { mark_to_drop(sm); }'
    src = v1model_program(ingress_locals=drop + " table t { key = { meta.x: exact; } actions = { _drop; } }",
                          ingress="t.apply();")
    src = src.replace("control EG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }",
                      "control EG(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {\n"
                      f"  {drop}\n  table e {{ key = {{ meta.x: exact; }} actions = {{ _drop; }} }}\n"
                      "  apply { e.apply(); }\n}")
    program = compile_source(src, "p.p4").program
    with pytest.raises(P4InfoError, match=r"action '_drop' has the control-plane name '_drop'") as info:
        build_p4info(program)
    assert info.value.span.line == src.split("\n").index(f"  {drop}") + 1
    nested = v1model_program(decls=DUP_ACTIONS.format(name="b"),
                             ingress_locals='@name("s.b") action mine() { } S() s;', ingress="s.apply(meta.x); mine();")
    with pytest.raises(P4InfoError, match="action 'a' has the control-plane name 'IG.s.b'"):
        build_p4info(compile_source(nested, "p.p4").program)
    apart = v1model_program(decls=DUP_ACTIONS.format(name="c"),
                            ingress_locals='@name("s.b") action mine() { } S() s;', ingress="s.apply(meta.x); mine();")
    build_p4info(compile_source(apart, "p.p4").program)


def test_struct_typed_action_parameter_compiles_but_has_no_p4info():
    """p4c checks action data types in its P4Runtime serializer, not its front end: an action a
    table lists may take a struct (compile --check passes), P4Info for it is an error, and the
    switch's table API refuses to set it."""
    from dataplane.control.config_errors import ControlPlaneError
    from dataplane.control.switch import Switch

    locals_ = ("action set(pair_t p) { meta.x = p.a + p.b; }\n"
               "table t { key = { meta.x: exact; } actions = { set; } }")
    src = v1model_program(decls="struct pair_t { bit<8> a; bit<8> b; }", ingress_locals=locals_, ingress="t.apply();")
    program = compile_source(src, "p.p4").program
    with pytest.raises(P4InfoError, match="parameter 'p' has type pair_t"):
        build_p4info(program)
    sw = Switch(program, name="s1")
    with pytest.raises(ControlPlaneError, match="parameter 'p' has type pair_t, which the control plane cannot supply"):
        sw.table_add("IG.t", "set", [1], [5])
