// Compound assignments: += -= *= &= |= ^= <<= >>= |+|= |-|= /= %= on fields, a slice and a local.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8>  x1;
    bit<8>  x2;
    bit<8>  x3;
    bit<8>  x4;
    bit<8>  x5;
    bit<8>  x6;
    bit<8>  x7;
    bit<8>  x8;
    bit<8>  x9;
    bit<8>  x10;
    int<8>  s11;
    bit<8>  x12;
    bit<8>  x13;
    bit<8>  x14;
    bit<16> w;
}

struct headers { data_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.x1 += 0x10;
        hdr.d.x2 -= 0x10;
        hdr.d.x3 *= 3;
        hdr.d.x4 &= 0x0F;
        hdr.d.x5 |= 0xF0;
        hdr.d.x6 ^= 0xFF;
        hdr.d.x7 <<= 2;
        hdr.d.x8 >>= 2;
        hdr.d.x9 |+|= 0x80;
        hdr.d.x10 |-|= 0x80;
        hdr.d.s11 >>= 1;
        hdr.d.x12[3:0] += 0xC;
        hdr.d.x13 /= 4;
        hdr.d.x14 %= 8;
        bit<16> acc = 0xFFF0;
        acc += 0x20;
        hdr.d.w = acc;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
