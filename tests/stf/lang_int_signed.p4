// int<W>: two's complement wrap-around, signed comparisons, arithmetic >> (also by >= W).
#include <core.p4>
#include <v1model.p4>

header data_t {
    int<8> a;
    int<8> b;
    int<8> add;
    int<8> sub;
    int<8> mul;
    int<8> neg;
    int<8> shr1;
    int<8> shr7;
    int<8> shr9;
    int<8> shl1;
    bit<8> lt;
    bit<8> gt0;
}

struct headers { data_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.add  = hdr.d.a + hdr.d.b;
        hdr.d.sub  = hdr.d.a - hdr.d.b;
        hdr.d.mul  = hdr.d.a * hdr.d.b;
        hdr.d.neg  = -hdr.d.a;
        hdr.d.shr1 = hdr.d.a >> 1;
        hdr.d.shr7 = hdr.d.a >> 7;
        hdr.d.shr9 = hdr.d.a >> 9;
        hdr.d.shl1 = hdr.d.a << 1;
        hdr.d.lt   = hdr.d.a < hdr.d.b ? 8w1 : 8w0;
        hdr.d.gt0  = hdr.d.a > 0 ? 8w1 : 8w0;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
