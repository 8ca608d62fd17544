// A table key may apply another table: the inner table runs, with its action, when the outer one
// is applied and computes its key (p4c evaluates such a key into a temporary before the lookup).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct metadata { }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action mark() { hdr.h.b = hdr.h.b | 1; }
    action set_b(bit<8> v) { hdr.h.b = hdr.h.b | v; }
    table inner { key = { hdr.h.a : exact; } actions = { mark; NoAction; } default_action = NoAction(); }
    table outer { key = { inner.apply().hit : exact @name("inner_hit"); } actions = { set_b; NoAction; }
                  default_action = NoAction(); }
    apply { sm.egress_spec = 1; outer.apply(); }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
