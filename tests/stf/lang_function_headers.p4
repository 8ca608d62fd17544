// Headers as parameters: `in` (read only) and `inout` (changes copied back); nested function calls;
// an action with an inout header parameter.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> a;
    bit<8> b;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
}

struct headers { d_t d; }
struct metadata { }

bit<8> sum_in(in d_t h) {
    return h.a + h.b;
}

void bump_hdr(inout d_t h) {
    h.a = h.a + 1;
}

bit<8> twice(in bit<8> x) {
    return x + x;
}

bit<8> quad(in bit<8> x) {
    return twice(twice(x));
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action mark(inout d_t h, bit<8> v) {
        h.r3 = v;
    }
    apply {
        hdr.d.r1 = sum_in(hdr.d);
        bump_hdr(hdr.d);
        hdr.d.r2 = quad(hdr.d.b);
        mark(hdr.d, 0x33);
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
