"""The PSA architecture (bmv2/psa.p4 + PsaSwitch): what the STF tests in tests/stf/psa_*.stf
cannot see from the packets -- counters, configured meters, digests, selectors, truncation,
the metadata storage psa_switch shares between parameters, limits and load-time errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from dataplane.arch.device import ArchitectureError
from dataplane.arch.psa import CLONE_I2E, NORMAL_MULTICAST, NORMAL_UNICAST, PsaSwitch
from dataplane.control.config_errors import ControlPlaneError
from dataplane.control.switch import Switch
from dataplane.engine.hashes import crc16
from dataplane.lang.frontend import compile_file, compile_source

STF = Path(__file__).parents[1] / "stf"

MAIN = """
IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
"""


def psa(ingress: str, egress: str = "", *, decls: str = "", ingress_decls: str = "", main: str = MAIN,
        seed: int = 0) -> Switch:
    """A switch running psa_common.p4h's parsers and deparsers around the given apply bodies."""
    text = f"""#include "psa_common.p4h"
{decls}
control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {{
    {ingress_decls}
    apply {{ {ingress} }}
}}
control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {{
    apply {{ {egress} }}
}}
{main}"""
    return Switch(compile_source(text, str(STF / "psa_test.p4")).program, seed=seed)


def obs(path=0, cos=0, inst=0, port=0, a=0, b=0, payload=b"") -> bytes:
    return (bytes.fromhex("000000000002" "000000000001" "88b5") + bytes([path, cos]) + inst.to_bytes(2, "big")
            + port.to_bytes(4, "big") + a.to_bytes(4, "big") + b.to_bytes(4, "big") + payload)


def fields(data: bytes) -> dict:
    o = data[14:30]
    return {"path": o[0], "cos": o[1], "inst": int.from_bytes(o[2:4], "big"), "port": int.from_bytes(o[4:8], "big"),
            "a": int.from_bytes(o[8:12], "big"), "b": int.from_bytes(o[12:16], "big")}


def test_a_psa_program_loads_a_psa_switch_with_psa_switch_widths():
    sw = psa("send_to_port(ostd, (PortId_t) 1);")
    assert sw.program.architecture == "psa" and isinstance(sw.dp, PsaSwitch)
    assert sw.dp.port_limit == 1 << 32
    assert [o.port for o in sw.send(0xFFFF_FFF0, obs())] == [1]
    with pytest.raises(ControlPlaneError, match="out of range"):
        sw.send(1 << 32, obs())


def test_outputs_carry_their_packet_path():
    sw = psa("multicast(ostd, (MulticastGroup_t) 1); ostd.clone = true; "
             "ostd.clone_session_id = (CloneSessionId_t) 3;")
    sw.mc_group_create(1, [(2, 7)])
    sw.clone_session_add(3, 4)
    out = sorted((o.port, o.instance_type) for o in sw.send(0, obs()))
    assert out == [(2, NORMAL_MULTICAST), (4, CLONE_I2E)]
    sw2 = psa("send_to_port(ostd, (PortId_t) 5);")
    assert [o.instance_type for o in sw2.send(0, obs())] == [NORMAL_UNICAST]


def test_clone_session_truncates_its_copies_when_they_leave():
    """A session's packet_length (clone_session_add, runtime JSON packet_length_bytes) cuts the
    clone, not the original; psa_switch has no truncation, the spec's sessions do."""
    sw = psa("send_to_port(ostd, (PortId_t) 1); ostd.clone = true; ostd.clone_session_id = (CloneSessionId_t) 4;")
    sw.clone_session_add(4, 6, packet_length=20)
    data = obs(payload=b"x" * 30)
    out = {o.port: o.data for o in sw.send(0, data)}
    assert out == {1: data, 6: data[:20]}


def test_counter_counts_packets_and_bytes_and_the_direct_counter_counts_hits():
    sw = psa("c.count(hdr.obs.cos); t.apply(); send_to_port(ostd, (PortId_t) 1);",
             ingress_decls="""
             Counter<bit<32>, bit<8>>(4, PSA_CounterType_t.PACKETS_AND_BYTES) c;
             DirectCounter<bit<32>>(PSA_CounterType_t.PACKETS) dc;
             action hit() { dc.count(); }
             table t { key = { hdr.obs.path: exact; } actions = { hit; NoAction; }
                       default_action = NoAction(); psa_direct_counter = dc; }""")
    handle = sw.table_add("t", "hit", [1])
    for path, cos, extra in ((1, 2, 0), (1, 2, 10), (0, 3, 0), (1, 9, 0)):
        sw.send(0, obs(path=path, cos=cos, payload=b"p" * extra))
    assert sw.counter_read("c", 2) == (2, 2 * 30 + 10)
    assert sw.counter_read("c", 3) == (1, 30)
    assert sw.counter_read("c", 0) == (0, 0)             # index 9 is out of range: nothing counted
    assert sw.counter_read("dc", handle) == (3, 3 * 30 + 10)   # the miss (path 0) is not counted
    assert sw.direct_counter_read("t", handle) == (3, 100)


COLORS = "bit<8> color_code(in PSA_MeterColor_t c) { if (c == PSA_MeterColor_t.RED) { return 0; } " \
         "if (c == PSA_MeterColor_t.GREEN) { return 1; } return 2; }"


def test_configured_meter_turns_red_past_its_burst():
    """One packet of burst at (almost) no rate: GREEN, then RED; the direct meter likewise per entry."""
    sw = psa("hdr.obs.cos = color_code(m.execute(0)); t.apply(); send_to_port(ostd, (PortId_t) 1);",
             decls=COLORS, ingress_decls="""
             Meter<bit<8>>(2, PSA_MeterType_t.PACKETS) m;
             DirectMeter(PSA_MeterType_t.PACKETS) dm;
             action hit() { hdr.obs.path = color_code(dm.execute()); }
             table t { key = { hdr.obs.a: exact; } actions = { hit; NoAction; }
                       default_action = NoAction(); psa_direct_meter = dm; }""")
    handle = sw.table_add("t", "hit", [1])
    sw.meter_set_rates("m", 0, [(1e-9, 1), (1e-9, 1)])
    sw.meter_set_rates("dm", handle, [(1e-9, 1), (1e-9, 1)])
    seen = [fields(sw.send(0, obs(a=1))[0].data) for _ in range(2)]
    assert [(f["cos"], f["path"]) for f in seen] == [(1, 1), (0, 0)]   # GREEN, then RED


def test_random_draws_within_its_range_from_the_seeded_rng():
    body = "hdr.obs.a = (bit<32>) r.read(); hdr.obs.b = (bit<32>) one.read(); send_to_port(ostd, (PortId_t) 1);"
    decls = "Random<bit<8>>(8w2, 8w5) r; Random<bit<16>>(16w9, 16w9) one;"

    def draws(seed):
        sw = psa(body, ingress_decls=decls, seed=seed)
        return [(f["a"], f["b"]) for f in (fields(sw.send(0, obs())[0].data) for _ in range(40))]

    first = draws(1)
    assert {a for a, _ in first} == {2, 3, 4, 5} and {b for _, b in first} == {9}
    assert draws(1) == first and draws(2) != first


def test_digest_pack_sends_the_field_values_to_the_control_plane():
    sw = psa("d.pack({hdr.obs.a, hdr.obs.cos}); send_to_port(ostd, (PortId_t) 1);",
             decls="struct learn_t { bit<32> a; bit<8> cos; }", ingress_decls="Digest<learn_t>() d;")
    sw.send(0, obs(a=0xabc, cos=7))
    assert sw.digests() == [("MyIngress.d", (0xABC, 7))]
    assert sw.digests() == []


def test_action_selector_picks_a_member_by_the_crc16_of_the_selector_keys():
    sw = psa("t.apply();", ingress_decls="""
             ActionSelector(PSA_HashAlgorithm_t.CRC16, 16, 16) sel;
             action fwd(PortId_t p) { send_to_port(ostd, p); }
             table t { key = { hdr.obs.a: exact; hdr.obs.b: selector; } actions = { fwd; }
                       psa_implementation = sel; }""")
    sw.table_add_group("t", [1], [("fwd", [10]), ("fwd", [11]), ("fwd", [12])])
    for b in range(20):
        want = 10 + crc16(b.to_bytes(4, "big")) % 3
        assert [o.port for o in sw.send(0, obs(a=1, b=b))] == [want]


def test_action_profile_table_takes_entries_with_their_action():
    sw = psa("t.apply();", ingress_decls="""
             ActionProfile(16) prof;
             action fwd(PortId_t p) { send_to_port(ostd, p); }
             table t { key = { hdr.obs.a: exact; } actions = { fwd; NoAction; }
                       default_action = NoAction(); psa_implementation = prof; }""")
    sw.table_add("t", "fwd", [3], [7])
    assert [o.port for o in sw.send(0, obs(a=3))] == [7]
    assert sw.send(0, obs(a=4)) == []


NM_IS_META = """
parser IngressParserMeta(packet_in pkt, out headers_t hdr, inout meta_t meta,
                         in psa_ingress_parser_input_metadata_t istd, in empty_t r, in empty_t c) {
    CommonParser() common;
    state start { common.apply(pkt, hdr); transition accept; }
}
control IngressDeparserMeta(packet_out pkt, out empty_t clone_i2e_meta, out empty_t resubmit_meta,
                            out meta_t normal_meta, inout headers_t hdr, in meta_t meta,
                            in psa_ingress_output_metadata_t istd) {
    apply { normal_meta.b = meta.a + 1; pkt.emit(hdr.eth); pkt.emit(hdr.obs); }
}
parser EgressParserMeta(packet_in pkt, out headers_t hdr, inout meta_t meta,
                        in psa_egress_parser_input_metadata_t istd, in meta_t normal_meta,
                        in empty_t c1, in empty_t c2) {
    CommonParser() common;
    state start { common.apply(pkt, hdr); transition accept; }
}
IngressPipeline(IngressParserMeta(), MyIngress(), IngressDeparserMeta()) ip;
EgressPipeline(EgressParserMeta(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
"""


def test_parameters_of_one_type_share_storage_as_in_psa_switch():
    """normal_meta has the user metadata's type: what the ingress deparser writes into it is the
    metadata egress reads (p4c's BMv2 back end gives a struct type one place in the PHV)."""
    sw = psa("meta.a = 41; send_to_port(ostd, (PortId_t) 1);", "hdr.obs.a = meta.a; hdr.obs.b = meta.b;",
             main=NM_IS_META)
    f = fields(sw.send(0, obs())[0].data)
    assert (f["a"], f["b"]) == (41, 42)


def test_recirculating_forever_stops_at_the_pass_limit():
    sw = psa("send_to_port(ostd, PSA_PORT_RECIRCULATE);")
    result = sw.process(0, obs())
    assert result.outputs == [] and result.drops == ["resubmit/recirculation limit reached"]


def test_psa_deparser_helper_functions_follow_the_output_metadata():
    """psa_normal / psa_clone_i2e / psa_resubmit in the ingress deparser (spec definitions)."""
    deparser = """
    control IngressDeparserFn(packet_out pkt, out empty_t clone_i2e_meta, out empty_t resubmit_meta,
                              out empty_t normal_meta, inout headers_t hdr, in meta_t meta,
                              in psa_ingress_output_metadata_t istd) {
        apply {
            hdr.obs.path = (psa_normal(istd) ? 8w1 : 8w0) | (psa_clone_i2e(istd) ? 8w2 : 8w0)
                           | (psa_resubmit(istd) ? 8w4 : 8w0);
            pkt.emit(hdr.eth); pkt.emit(hdr.obs);
        }
    }
    IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserFn()) ip;
    EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
    PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
    """
    sw = psa("send_to_port(ostd, (PortId_t) 1); ostd.clone = hdr.obs.cos == 1;", main=deparser)
    assert fields(sw.send(0, obs())[0].data)["path"] == 1
    assert fields(sw.send(0, obs(cos=1))[0].data)["path"] == 3


def test_psa_table_property_naming_the_wrong_extern_is_a_load_error():
    with pytest.raises(ArchitectureError, match="psa_direct_counter 'c' is not direct_counter"):
        psa("t.apply();", ingress_decls="""
            Counter<bit<32>, bit<8>>(4, PSA_CounterType_t.PACKETS) c;
            table t { key = { hdr.obs.a: exact; } actions = { NoAction; } psa_direct_counter = c; }""")


def test_net_ports_are_refused_for_a_psa_program():
    with pytest.raises(ControlPlaneError, match="net_ports applies to PNA"):
        Switch(compile_file(STF / "psa_unicast.p4").program, net_ports=[0])


def test_stf_programs_include_psa_the_way_p4c_programs_do(tmp_path):
    """`#include <bmv2/psa.p4>`, `"bmv2/psa.p4"` and `<psa.p4>` all reach the bundled file."""
    body = (STF / "psa_common.p4h").read_text()
    for form in ('#include <bmv2/psa.p4>', '#include "bmv2/psa.p4"', '#include <psa.p4>'):
        text = body.replace("#include <bmv2/psa.p4>", form) + (STF / "psa_unicast.p4").read_text().replace(
            '#include "psa_common.p4h"', "")
        assert compile_source(text, str(tmp_path / "p.p4")).program.architecture == "psa", form


def test_checksum_state_lasts_from_packet_to_packet_as_in_psa_switch():
    """psa_switch's extern instances keep their state between packets: a program that never
    calls clear() sees the previous packet's sum (the spec would start each packet afresh)."""
    sw = psa("ck.add({16w1}); hdr.obs.a = (bit<32>) ck.get_state(); send_to_port(ostd, (PortId_t) 1);",
             ingress_decls="InternetChecksum() ck;")
    assert [fields(sw.send(0, obs())[0].data)["a"] for _ in range(3)] == [1, 2, 3]


def test_trace_names_the_psa_drop():
    from dataplane.engine.trace import Trace

    sw = psa("ingress_drop(ostd);")
    trace = Trace()
    sw.process(0, obs(), trace)
    assert "  dropped in ingress (ostd.drop)" in trace.lines
