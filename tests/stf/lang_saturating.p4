// Saturating |+| and |-| on bit<W> (clamp to [0, 2^W-1]) and int<W> (clamp to [-2^(W-1), 2^(W-1)-1]).
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8>  ua;
    bit<8>  ub;
    bit<8>  uadd;
    bit<8>  usub;
    int<8>  sa;
    int<8>  sb;
    int<8>  sadd;
    int<8>  ssub;
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
        hdr.d.uadd = hdr.d.ua |+| hdr.d.ub;
        hdr.d.usub = hdr.d.ua |-| hdr.d.ub;
        hdr.d.sadd = hdr.d.sa |+| hdr.d.sb;
        hdr.d.ssub = hdr.d.sa |-| hdr.d.sb;
        hdr.d.w = hdr.d.w |+| 16w0x9000;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
