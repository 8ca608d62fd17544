// header_union: the parser extracts one member, isValid on the union and its members, making one member
// valid (setValid or assignment) invalidates the other (BMv2 HeaderUnion::make_header_valid),
// emit of the union emits its valid member.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> kind;
    bit<8> cmd;
    bit<8> va;
    bit<8> vb;
    bit<8> vu;
}
header a_t {
    bit<8> x;
}
header b_t {
    bit<16> y;
}
header_union u_t {
    a_t a;
    b_t b;
}

struct headers {
    d_t d;
    u_t u;
}
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        transition select(hdr.d.kind) {
            1: parse_a;
            2: parse_b;
            default: accept;
        }
    }
    state parse_a {
        pkt.extract(hdr.u.a);
        transition accept;
    }
    state parse_b {
        pkt.extract(hdr.u.b);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.d.cmd == 1) {
            hdr.u.b.setValid();
            hdr.u.b.y = 0xBEEF;
        } else if (hdr.d.cmd == 2) {
            hdr.u.a.setInvalid();
        } else if (hdr.d.cmd == 3) {
            a_t t;
            t.setValid();
            t.x = 0x5A;
            hdr.u.a = t;
        }
        hdr.d.va = hdr.u.a.isValid() ? 8w1 : 8w0;
        hdr.d.vb = hdr.u.b.isValid() ? 8w1 : 8w0;
        hdr.d.vu = hdr.u.isValid() ? 8w1 : 8w0;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.d);
        pkt.emit(hdr.u);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
