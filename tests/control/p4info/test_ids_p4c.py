"""P4Info ids as p4c writes them: each kind's 8-bit prefix (p4runtime's p4info.proto,
``P4Ids.Prefix``: actions 0x01, tables 0x02, value sets 0x03, controller headers 0x04, action
profiles 0x11, counters 0x12, direct counters 0x13, meters 0x14, direct meters 0x15, registers
0x16, digests 0x17) over the low 24 bits of the name's hash.

The expected ids are p4c's own, read from its golden P4Info files
(``testdata/p4_16_samples_outputs/*.p4info.txtpb``), for objects of every kind; the program
below declares objects with the same fully qualified names, so p4c gives them those ids.
"""
from __future__ import annotations

import pytest

p4info_pb2 = pytest.importorskip("p4.config.v1.p4info_pb2")

from dataplane.control.p4info import build_p4info, ids  # noqa: E402
from dataplane.control.p4info.ids import hashed_id  # noqa: E402
from dataplane.lang.frontend import compile_source  # noqa: E402

#: (P4Info field, fully qualified name, the id p4c gives it, the p4c golden file it is from)
P4C_IDS = [
    ("tables", "ingress.ecmp_group", 38446407, "flowlet_switching-bmv2"),
    ("actions", "ingress.set_nhop", 29239084, "flowlet_switching-bmv2"),
    ("actions", "NoAction", 21257015, "flowlet_switching-bmv2"),
    ("registers", "ingress.flowlet_id", 384519412, "flowlet_switching-bmv2"),
    ("action_profiles", "ap_ws", 300324846, "action_profile-bmv2"),
    ("counters", "ingress.port_bytes_in", 306657404, "psa-example-counters-bmv2"),
    ("direct_counters", "ingress.c", 330698586, "issue364-bmv2"),
    ("meters", "ingress.meter0", 344514043, "psa-example-dpdk-meter"),
    ("direct_meters", "ingress.namedmeter", 354402025, "named_meter_bmv2"),
    ("digests", "test_digest_t", 387015589, "issue1352-bmv2"),
    ("value_sets", "MyParser.pvs", 56033750, "pvs-bitstring-bmv2"),
    # a controller header is hashed by its header type's name (packet_out_header_t), named by its annotation
    ("controller_packet_metadata", "packet_out", 76689799, "issue3329-bmv2"),
]

#: P4Info field -> the module's prefix constant for that kind
CONSTANTS = {"tables": ids.TABLE, "actions": ids.ACTION, "action_profiles": ids.ACTION_PROFILE,
             "counters": ids.COUNTER, "direct_counters": ids.DIRECT_COUNTER, "meters": ids.METER,
             "direct_meters": ids.DIRECT_METER, "registers": ids.REGISTER, "digests": ids.DIGEST,
             "value_sets": ids.VALUE_SET, "controller_packet_metadata": ids.CONTROLLER_HEADER}

PROGRAM = """
#include <core.p4>
#include <v1model.p4>

@controller_header("packet_out")
header packet_out_header_t { bit<9> egress_port; bit<7> _pad; }
header ethernet_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers { packet_out_header_t packet_out; ethernet_t ethernet; }
struct test_digest_t { bit<48> src; }
struct metadata { bit<32> nhop; }

parser MyParser(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) pvs;
    state start {
        pk.extract(hdr.ethernet);
        transition select(hdr.ethernet.type) { pvs: accept; default: accept; }
    }
}
control MyVerifyChecksum(inout headers hdr, inout metadata meta) { apply { } }
control ingress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    register<bit<16>>(8192) flowlet_id;
    counter(512, CounterType.bytes) port_bytes_in;
    meter(16, MeterType.bytes) meter0;
    direct_counter(CounterType.packets) c;
    direct_meter<bit<8>>(MeterType.bytes) namedmeter;
    @name(".ap_ws") action_selector(HashAlgorithm.crc16, 32w16, 32w16) selector;
    bit<8> color;
    action set_nhop(bit<32> nhop_ipv4, bit<9> port) {
        meta.nhop = nhop_ipv4;
        sm.egress_spec = port;
        namedmeter.read(color);
    }
    table ecmp_group {
        key = { hdr.ethernet.dst : exact; }
        actions = { set_nhop; NoAction; }
        counters = c;
        meters = namedmeter;
    }
    table spread {
        key = { hdr.ethernet.dst : exact; hdr.ethernet.src : selector; }
        actions = { NoAction; }
        implementation = selector;
    }
    apply {
        ecmp_group.apply();
        spread.apply();
        flowlet_id.write(0, 1);
        port_bytes_in.count(0);
        meter0.execute_meter(0, color);
        digest<test_digest_t>(1, { hdr.ethernet.src });
    }
}
control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control MyComputeChecksum(inout headers hdr, inout metadata meta) { apply { } }
control MyDeparser(packet_out pk, in headers hdr) { apply { pk.emit(hdr.packet_out); pk.emit(hdr.ethernet); } }
V1Switch(MyParser(), MyVerifyChecksum(), ingress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
"""


@pytest.fixture(scope="module")
def built():
    return build_p4info(compile_source(PROGRAM, "p4c_names.p4").program)


@pytest.mark.parametrize("field, name, p4c_id, golden", P4C_IDS, ids=lambda v: v if isinstance(v, str) else None)
def test_every_kind_gets_the_id_p4c_gives_it(built, field, name, p4c_id, golden):
    """Built from our program, the object named ``name`` has p4c's id (prefix and hash)."""
    [obj] = [o for o in getattr(built, field) if o.preamble.name == name]
    assert obj.preamble.id == p4c_id


@pytest.mark.parametrize("field, name, p4c_id, golden", P4C_IDS, ids=lambda v: v if isinstance(v, str) else None)
def test_the_prefix_constants_are_p4cs_and_the_spec_s(field, name, p4c_id, golden):
    """Each kind's prefix constant is the top byte of p4c's id and p4info.proto's P4Ids value."""
    spec = {"tables": "TABLE", "actions": "ACTION", "action_profiles": "ACTION_PROFILE", "counters": "COUNTER",
            "direct_counters": "DIRECT_COUNTER", "meters": "METER", "direct_meters": "DIRECT_METER",
            "registers": "REGISTER", "digests": "DIGEST", "value_sets": "VALUE_SET",
            "controller_packet_metadata": "CONTROLLER_HEADER"}[field]
    assert CONSTANTS[field] == p4c_id >> 24 == p4info_pb2.P4Ids.Prefix.Value(spec)
    if field != "controller_packet_metadata":       # hashed by its type's name, not this one
        assert hashed_id(CONSTANTS[field], name) == p4c_id
