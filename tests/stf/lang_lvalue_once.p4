// An l-value is evaluated once, before the right-hand side and before the call it is an out
// argument of (spec 6.8): `a[f()] op= x` calls f once; `a[i].x = g(i)` with g changing i writes
// the element i named before the call; `act(a[i].x)` with the action changing i copies out to it.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> i;
    bit<8> j;
}
header e_t {
    bit<8> x;
}

struct headers { d_t d; e_t[4] e; }
struct metadata { }

bit<8> next_i(inout bit<8> i) {
    bit<8> old = i;
    i = i + 1;
    return old;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        pkt.extract(hdr.e.next);
        pkt.extract(hdr.e.next);
        pkt.extract(hdr.e.next);
        pkt.extract(hdr.e.next);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action set_and_move(inout bit<8> x) {
        x = 0xA0;
        hdr.d.j = hdr.d.j + 1;
    }
    apply {
        hdr.e[next_i(hdr.d.i) & 3].x |= 0x10;        // e[i] only; i += 1
        hdr.e[hdr.d.i & 3].x = next_i(hdr.d.i) + 8w0x20;  // writes e[i] (old i); i += 1
        set_and_move(hdr.e[hdr.d.j & 3].x);          // copies out to e[j] (old j)
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
