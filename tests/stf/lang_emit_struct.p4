// emit(hdr) of a whole struct emits its members in declaration order, whatever the order in which the
// parser extracted them: headers, each valid stack element, the valid member of a union.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> a;
}
header item_t {
    bit<8> v;
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
header x_t {
    bit<8> z;
}

struct headers {
    d_t       d;
    item_t[2] s;
    u_t       u;
    x_t       x;
}
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.x);
        pkt.extract(hdr.d);
        transition select(hdr.d.a) {
            2: two;
            default: one;
        }
    }
    state two {
        pkt.extract(hdr.s.next);
        transition one;
    }
    state one {
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.u.b);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
