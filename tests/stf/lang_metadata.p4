// User metadata is zeroed for every packet, can be set in the parser and carries from ingress to egress;
// standard_metadata: ingress_port, packet_length (bytes received), egress_spec -> egress_port.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8>  a;
    bit<8>  pm;
    bit<16> m2;
    bit<8>  inport;
    bit<8>  eport;
    bit<32> plen;
}

struct headers { d_t d; }
struct metadata {
    bit<8>  m1;
    bit<16> m2;
    bool    flag;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        meta.m1 = hdr.d.a + 1;
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.pm = meta.m1;
        meta.m2 = meta.m2 + 0x101;
        meta.flag = !meta.flag;
        hdr.d.inport = (bit<8>)sm.ingress_port;
        hdr.d.plen = sm.packet_length;
        sm.egress_spec = (bit<9>)hdr.d.a;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.m2 = meta.flag ? meta.m2 : 16w0xFFFF;
        hdr.d.eport = (bit<8>)sm.egress_port;
    }
}
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
