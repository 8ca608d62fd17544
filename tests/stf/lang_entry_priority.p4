// Priorities of const entries as p4c's BMv2 back end writes them and simple_switch compares them:
// an entry's @priority(N), else its position in the list (1, 2, ...); the smallest number wins.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<16> k;
    bit<8>  r;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.d.r = v; }
    table t {
        key = { hdr.d.k: ternary; }
        actions = { set; NoAction; }
        const entries = {
            0x1111 &&& 0x000F : set(1) @priority(3);   // priority 3
            0x1181            : set(2);                // priority 2 (second in the list)
            0x1181 &&& 0xF00F : set(3) @priority(1);   // priority 1: wins wherever it matches
            0x0000 &&& 0x0000 : set(4);                // priority 4
        }
    }
    apply { t.apply(); }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
