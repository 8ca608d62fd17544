// `exit` inside an action still copies its out and inout arguments back (p4c puts the copy-out
// before every exit), also through an action that calls the exiting one, and for a header
// argument that the action copies because it also writes the control's header directly.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> mode;
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action leave(inout bit<8> x, out bit<8> y) {
        x = x + 1;
        y = 0x22;
        exit;
    }
    action outer(inout bit<8> z) {
        z = 0x30;
        leave(z, hdr.d.c);   // z = 0x31, then exit: outer's z is copied out too
        z = 0xFF;
    }
    action whole(inout d_t h) {
        hdr.d.c = 0xEE;      // lost: the copy of h goes back over it
        h.b = 0x44;
        exit;
    }
    apply {
        if (hdr.d.mode == 1) {
            leave(hdr.d.a, hdr.d.b);
        } else if (hdr.d.mode == 2) {
            outer(hdr.d.a);
        } else if (hdr.d.mode == 3) {
            whole(hdr.d);
        }
        hdr.d.c = 0x99;   // not reached after exit
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
