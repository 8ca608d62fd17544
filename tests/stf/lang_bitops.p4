// Bitwise & | ^ ~ on bit<W> and int<W>, unsigned vs signed comparisons, and the implicit int-literal
// conversion in comparisons (8w255 == -1 is true: -1 becomes bit<8> 255).
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> a;
    bit<8> b;
    bit<8> and_;
    bit<8> or_;
    bit<8> xor_;
    bit<8> nota;
    int<8> s;
    int<8> nots;
    bit<8> cmp_u;
    bit<8> cmp_lit;
    bit<8> cmp_s;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.and_ = hdr.d.a & hdr.d.b;
        hdr.d.or_ = hdr.d.a | hdr.d.b;
        hdr.d.xor_ = hdr.d.a ^ hdr.d.b;
        hdr.d.nota = ~hdr.d.a;
        hdr.d.nots = ~hdr.d.s;
        hdr.d.cmp_u = hdr.d.a > hdr.d.b ? 8w1 : 8w0;
        hdr.d.cmp_lit = (hdr.d.a | hdr.d.b | 0x03) == -1 ? 8w1 : 8w0;
        hdr.d.cmp_s = hdr.d.s > -5 ? 8w1 : 8w0;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
