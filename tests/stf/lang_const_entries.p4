// Tables with const entries (exact and ternary; for ternary the first listed entry wins) and a
// const default_action.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> k;
    bit<8> r1;
    bit<8> r2;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action set1(bit<8> v) { hdr.d.r1 = v; }
    action set2(bit<8> v) { hdr.d.r2 = v; }
    table te {
        key = { hdr.d.k: exact; }
        actions = { set1; }
        const entries = {
            1: set1(0x11);
            2: set1(0x22);
        }
        const default_action = set1(0xDD);
    }
    table tt {
        key = { hdr.d.k: ternary; }
        actions = { set2; NoAction; }
        const entries = {
            0x01 &&& 0x0F: set2(0xA1);
            0x00 &&& 0xF0: set2(0xB0);
            _: set2(0xCC);
        }
    }
    apply {
        te.apply();
        tt.apply();
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
