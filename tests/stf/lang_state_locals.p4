// A variable declared in a parser state is in scope in that state's transition select.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> k;
    bit<8> r;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        bit<8> twice = hdr.d.k + hdr.d.k;
        transition select(twice) {
            4: two;
            default: accept;
        }
    }
    state two {
        hdr.d.r = 0x22;
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
