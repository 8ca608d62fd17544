// Shifts: by a constant >= width (0), by a run-time amount (incl. >= width), signed >> is arithmetic.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8>  x;
    bit<8>  s;
    bit<8>  c8l;
    bit<8>  c8r;
    bit<8>  rl;
    bit<8>  rr;
    int<8>  z;
    int<8>  zr;
    int<8>  zl;
    bit<32> y;
    bit<32> yc;
    bit<32> yr;
}

struct headers { data_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.c8l = hdr.d.x << 8;
        hdr.d.c8r = hdr.d.x >> 9;
        hdr.d.rl  = hdr.d.x << hdr.d.s;
        hdr.d.rr  = hdr.d.x >> hdr.d.s;
        hdr.d.zr  = hdr.d.z >> hdr.d.s;
        hdr.d.zl  = hdr.d.z << hdr.d.s;
        hdr.d.yc  = hdr.d.y << 0x1C;
        hdr.d.yr  = hdr.d.y << hdr.d.s;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
