// Concatenation ++: width is the sum, left operand in the high bits, signedness of the left operand.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<4>  a;
    bit<4>  b;
    bit<8>  ab;
    bit<8>  ba;
    bit<8>  c;
    bit<16> w;
    bit<24> cw;
    int<4>  sn;
    bit<4>  pad;
    int<8>  cs;
    int<8>  cshr;
    bit<8>  bsn;
}

struct headers { data_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.ab = hdr.d.a ++ hdr.d.b;
        hdr.d.ba = hdr.d.b ++ hdr.d.a;
        hdr.d.cw = hdr.d.c ++ hdr.d.w;
        hdr.d.cs = hdr.d.sn ++ 4w0;                 // int<4> ++ bit<4> is int<8>
        hdr.d.cshr = (hdr.d.sn ++ 4w0) >> 4;        // so >> is arithmetic
        hdr.d.bsn = hdr.d.a ++ hdr.d.sn;            // bit<4> ++ int<4> is bit<8>
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
