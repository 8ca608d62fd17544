// Parser value sets: the control plane fills them (pvs_add / pvs_remove / pvs_clear, also in STF
// and simple_switch_CLI files); a select case naming one matches any member. A set of structs
// matches a select on several keys, its fields lined up with the keys in order.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> kind; bit<8> a; bit<8> b; }
header tag_t { bit<8> v; }
struct pair_t { bit<8> a; bit<8> b; }
struct headers { h_t h; tag_t tag; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) kinds;
    value_set<pair_t>(2) pairs;
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind) {
            kinds: check_pair;
            default: accept;
        }
    }
    state check_pair {
        transition select(hdr.h.a, hdr.h.b) {
            pairs: tagged;
            default: accept;
        }
    }
    state tagged { pkt.extract(hdr.tag); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.tag.isValid()) { hdr.tag.v = 0xEE; }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.tag); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
