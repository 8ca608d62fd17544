// Variables declared in a control or parser with an initializer get it each time the block runs,
// in declaration order, before the apply block / start state (p4c moves the initializers there).
// An initializer may call a function that writes its inout argument.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<8> e;
}

struct headers { d_t d; }
struct metadata { bit<8> seen; }

bit<8> bump(inout bit<8> x) {
    x = x + 1;
    return 0x40;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    bit<8> start_value = 7;
    state start {
        pkt.extract(hdr.d);
        meta.seen = start_value;
        start_value = 9;    // changed for this packet only
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    bit<8> twelve = 8w12;
    bit<8> from_header = hdr.d.a;
    d_t copy = { hdr.d.a, bump(hdr.d.a), 3, 4, 5 };
    action grow() { twelve = twelve + 1; }
    apply {
        hdr.d.b = twelve;       // 12 on every packet, although the last packet grew it
        grow();
        hdr.d.c = from_header;  // the value hdr.d.a had before bump
        hdr.d.d = copy.b;       // bump's value
        hdr.d.e = meta.seen;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
