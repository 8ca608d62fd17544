// bool: header fields of type bool (1 bit on the wire), locals, !, == and != on bools, && binding
// tighter than ||, bool in ?: conditions; the other bits of the byte are untouched.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bool   f;
    bit<7> pad;
    bit<8> a;
    bit<8> r_not;
    bit<8> r_eq;
    bit<8> r_ne;
    bool   g;
    bit<7> pad2;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        bool t = hdr.d.a > 5;
        bool u = !hdr.d.f;
        hdr.d.r_not = u ? 8w1 : 8w0;
        hdr.d.r_eq = (t == hdr.d.f) ? 8w1 : 8w0;
        hdr.d.r_ne = (t != hdr.d.f) ? 8w1 : 8w0;
        hdr.d.g = false || t && !u;
        hdr.d.f = !hdr.d.f;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
