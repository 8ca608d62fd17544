// bit<W> arithmetic wraps modulo 2^W: + - * unary - and ~ (P4 spec "Operations on fixed-width bit types").
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8>  a;
    bit<8>  b;
    bit<8>  add;
    bit<8>  sub;
    bit<8>  rsub;
    bit<8>  mul;
    bit<8>  neg;
    bit<8>  inv;
    bit<8>  addk;
    bit<16> w;
    bit<16> wadd;
    bit<16> wneg;
    bit<32> big;
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
        hdr.d.rsub = hdr.d.b - hdr.d.a;
        hdr.d.mul  = hdr.d.a * hdr.d.b;
        hdr.d.neg  = -hdr.d.a;
        hdr.d.inv  = ~hdr.d.a;
        hdr.d.addk = hdr.d.a + 255;          // the int literal becomes bit<8>: same as a - 1
        hdr.d.wadd = hdr.d.w + 1;
        hdr.d.wneg = -hdr.d.w;
        hdr.d.big  = hdr.d.big * hdr.d.big;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
