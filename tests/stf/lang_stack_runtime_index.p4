// Stack indices known only at run time: bit<W>, int<W> or a serializable enum. Out of range
// (a negative int<W> too), BMv2 running p4c's output (HSIndexSimplify) does what no element
// branch does: an assignment to the element is skipped, an assignment reading it stores the
// target's uninitialized value (0) whatever the expression, an `if` reading it takes its else
// branch, a call reading it is skipped.
#include <core.p4>
#include <v1model.p4>

enum bit<8> Slot { FIRST = 0, SECOND = 1 }

header d_t {
    bit<8> i;
    int<8> s;
    bit<8> read;
    bit<8> valid;
    bit<8> cond;
    bit<8> called;
}
header e_t {
    bit<8> x;
}

struct headers { d_t d; e_t[2] e; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        pkt.extract(hdr.e.next);
        pkt.extract(hdr.e.next);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action mark(in bit<8> v) {
        hdr.d.called = v + 1;
    }
    apply {
        hdr.d.read = hdr.e[hdr.d.i].x + 1;                 // 0 when i is out of range
        hdr.d.valid = hdr.e[hdr.d.i].isValid() ? 8w1 : 8w0;
        if (hdr.e[hdr.d.i].x != 0x55) {                    // out of range: the else branch
            hdr.d.cond = 1;
        } else {
            hdr.d.cond = 2;
        }
        mark(hdr.e[hdr.d.i].x);                            // out of range: not called
        hdr.e[hdr.d.i].x = 0x77;                           // out of range: nothing
        hdr.e[hdr.d.s].x = hdr.e[hdr.d.s].x + 1;           // int<8> index
        Slot slot = Slot.SECOND;
        hdr.e[slot].x = hdr.e[slot].x | 0x80;              // serializable enum index
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
