// verify_checksum sets standard_metadata.checksum_error on a mismatch (packet not dropped, skipped when
// the condition is false); update_checksum / update_checksum_with_payload (csum16) recompute after egress,
// skipped when the condition is false; the payload is the unparsed rest of the packet.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<16> a;
    bit<16> b;
    bit<16> ck;
    bit<8>  cerr;
    bit<8>  flag;
    bit<16> pck;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(hdr.d.flag == 0, { hdr.d.a, hdr.d.b }, hdr.d.ck, HashAlgorithm.csum16);
    }
}
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.cerr = (bit<8>)sm.checksum_error;
        hdr.d.b = hdr.d.b + 1;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.d.flag != 2, { hdr.d.a, hdr.d.b }, hdr.d.ck, HashAlgorithm.csum16);
        update_checksum_with_payload(true, { hdr.d.a }, hdr.d.pck, HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
