// for loops (spec 1.2.5): three-clause loops with break and continue (continue still runs the update),
// an empty 'for (;;)' ended by break, and for-in over a range (both ends included), a header stack
// (the variable is a copy: writing it leaves the stack alone) and a list.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> count; bit<32> sum; bit<8> last; }
header e_t { bit<8> v; }
struct headers { h_t h; e_t[3] es; }
struct metadata { }
parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.es[0]); pkt.extract(hdr.es[1]); pkt.extract(hdr.es[2]); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action sum_to_count() {
        hdr.h.sum = 0;
        for (bit<8> i = 1; i <= hdr.h.count; i = i + 1) {
            if (i == 7) { continue; }
            if (i == 10) { break; }
            hdr.h.sum = hdr.h.sum + (bit<32>)i;
        }
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.count < 100) {
            sum_to_count();
        } else {
            bit<32> s = 0;
            for (bit<8> j in 1 .. 3) { s = s + (bit<32>)j; }
            for (e_t e in hdr.es) { s = s + (bit<32>)e.v; e.v = 0; }
            for (bit<8> k in {8w5, 8w6}) { s = s + (bit<32>)k; }
            hdr.h.sum = s;
            bit<8> n = 0;
            for (; ; ) { n = n + 1; if (n == 4) { break; } }
            hdr.h.last = n;
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.es); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
