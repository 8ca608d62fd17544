// 48- and 64-bit arithmetic: wrap-around of + and * at 2^64, shifts of bit<48>, arithmetic >> of int<64>.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<64> a;
    bit<64> b;
    bit<64> add;
    bit<64> mul;
    bit<48> m;
    bit<48> shl;
    bit<48> shr;
    int<64> sshr;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.add = hdr.d.a + hdr.d.b;
        hdr.d.mul = hdr.d.a * hdr.d.b;
        hdr.d.shl = hdr.d.m << 1;
        hdr.d.shr = hdr.d.m >> 47;
        hdr.d.sshr = ((int<64>)hdr.d.a) >> 60;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
