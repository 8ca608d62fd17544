// Structs and headers as values: list and named-field initializers, struct assignment (copy), == on
// structs (field-wise) and headers (both invalid, or both valid with equal fields), header assigned from a
// list expression becomes valid, user metadata carrying a nested struct.
#include <core.p4>
#include <v1model.p4>

struct pair_t {
    bit<8> x;
    bit<8> y;
}
header d_t {
    bit<8> a;
    bit<8> b;
    bit<8> eq1;
    bit<8> eq2;
    bit<8> eq3;
    bit<8> eq4;
    bit<8> eq5;
    bit<8> my;
}
header h_t {
    bit<8> x;
    bit<8> y;
}

struct headers {
    d_t d;
    h_t h1;
    h_t h2;
    h_t h3;
}
struct metadata {
    pair_t p;
    pair_t q;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        pkt.extract(hdr.h1);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        pair_t p = { hdr.d.a, hdr.d.b };
        pair_t q = { y = hdr.d.a, x = hdr.d.b };
        meta.p = p;
        meta.q = q;
        p.x = 0xFF;                                   // meta.p is a copy: unchanged
        hdr.d.eq1 = (meta.p == { hdr.d.a, hdr.d.b }) ? 8w1 : 8w0;
        hdr.d.eq2 = (meta.p == meta.q) ? 8w1 : 8w0;
        hdr.d.my = meta.q.y;
        hdr.h2 = { hdr.d.a, 0x77 };
        hdr.d.eq3 = (hdr.h1 == hdr.h2) ? 8w1 : 8w0;
        h_t tmp;
        hdr.d.eq4 = (hdr.h3 == tmp) ? 8w1 : 8w0;      // both invalid
        hdr.d.eq5 = (hdr.h1 == hdr.h3) ? 8w1 : 8w0;   // one invalid
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.d);
        pkt.emit(hdr.h1);
        pkt.emit(hdr.h2);
        pkt.emit(hdr.h3);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
