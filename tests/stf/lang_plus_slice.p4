// Indexed slices x[lo +: w] (spec 1.2.5): with a constant lo they are x[lo+w-1:lo], also as an
// l-value; with a run-time lo they read (bit<w>)(x >> lo), as p4c lowers them.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<32> x; bit<8> lo; bit<8> a; bit<8> b; bit<16> c; }
struct headers { h_t h; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.a = hdr.h.x[8 +: 8];
        hdr.h.b = hdr.h.x[hdr.h.lo +: 8];
        hdr.h.c = hdr.h.x[(bit<8>)16 +: 16];
        hdr.h.x[0 +: 4] = 0xF;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
