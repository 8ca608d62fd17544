// exit ends the whole control at once (also from inside an action), return ends only the apply block;
// after exit in ingress the packet still goes through egress and the deparser (egress_spec kept),
// and after exit in egress it is still deparsed and sent.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> mode;
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> eg;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action stop() {
        hdr.d.b = 2;
        exit;
    }
    apply {
        sm.egress_spec = 2;
        hdr.d.a = 1;
        if (hdr.d.mode == 1) {
            exit;
        }
        if (hdr.d.mode == 2) {
            stop();
        }
        hdr.d.b = 2;
        if (hdr.d.mode == 3) {
            return;
        }
        hdr.d.c = 3;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.d.mode == 4) {
            exit;
        }
        hdr.d.eg = 0xE0;
    }
}
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
