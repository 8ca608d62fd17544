// Stacks of header unions: `u.next.member` extracts into the next union (and moves nextIndex on),
// `u[i].member` names a member, setting one member valid invalidates the others, and emit writes
// each union's valid member in order. `extract<H>(_)` reads a header into nothing (skips it).
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<8> kinds; }
header one_t { bit<8> v; }
header two_t { bit<16> v; }
header_union u_t {
    one_t one;
    two_t two;
}

struct headers { tag_t tag; u_t[3] u; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract<tag_t>(_);            // a byte nobody keeps
        pkt.extract(hdr.tag);
        transition select(hdr.tag.kinds[0:0]) {
            0: first_one;
            1: first_two;
        }
    }
    state first_one {
        pkt.extract(hdr.u.next.one);
        transition second;
    }
    state first_two {
        pkt.extract(hdr.u.next.two);
        transition second;
    }
    state second {
        transition select(hdr.tag.kinds[1:1]) {
            0: second_one;
            1: second_two;
        }
    }
    state second_one {
        pkt.extract(hdr.u.next.one);
        transition accept;
    }
    state second_two {
        pkt.extract(hdr.u.next.two);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.u[0].two.isValid()) {
            hdr.u[0].two.v = 0xFFFF;
        }
        if (hdr.u[1].one.isValid()) {
            hdr.u[1].one.v = 0xAA;
        }
        hdr.u[2].one.setValid();          // a third union, one byte
        hdr.u[2].one.v = 0x33;
        if (hdr.tag.kinds == 3) {
            hdr.u[1].one.setValid();      // makes u[1].two invalid
            hdr.u[1].one.v = 0x44;
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
