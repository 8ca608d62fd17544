// Key fields and action parameters numbered by @id against their order in the program: the
// P4Runtime server must place each value by its position in the P4Info, not by its id.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<16> b; bit<8> out1; bit<16> out2; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control NoCheck(inout headers_t hdr, inout meta_t m) { apply { } }
control Ing(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    action set(@id(2) bit<8> x, @id(1) bit<16> y) { hdr.h.out1 = x; hdr.h.out2 = y; sm.egress_spec = 1; }
    table t {
        key = { hdr.h.a : exact @id(2); hdr.h.b : exact @id(1); }
        actions = { set; NoAction; }
        default_action = NoAction();
    }
    apply { t.apply(); }
}
control Eg(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), NoCheck(), Ing(), Eg(), NoCheck(), Dep()) main;
