// Header stack operations in a control: push_front / pop_front (P4_16 semantics: pushed-in elements are
// invalid, elements shifted off the end are lost), setValid on a stack element, emit skipping invalid elements.
#include <core.p4>
#include <v1model.p4>

header op_t {
    bit<8> op;
    bit<8> nvalid;
}
header item_t {
    bit<8> v;
}

struct headers {
    op_t      o;
    item_t[3] s;
}
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.o);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.o.op == 1) {
            hdr.s.push_front(1);
        } else if (hdr.o.op == 2) {
            hdr.s.push_front(1);
            hdr.s[0].setValid();
            hdr.s[0].v = 0xAA;
        } else if (hdr.o.op == 3) {
            hdr.s.pop_front(1);
        } else if (hdr.o.op == 4) {
            hdr.s.push_front(2);
        } else if (hdr.o.op == 5) {
            hdr.s[2].setValid();
            hdr.s[2].v = 0xCC;
            hdr.s.pop_front(2);
        } else if (hdr.o.op == 6) {
            hdr.s[0].setInvalid();
        }
        bit<8> n = 0;
        if (hdr.s[0].isValid()) { n = n + 1; }
        if (hdr.s[1].isValid()) { n = n + 1; }
        if (hdr.s[2].isValid()) { n = n + 1; }
        hdr.o.nvalid = n;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.o);
        pkt.emit(hdr.s);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
