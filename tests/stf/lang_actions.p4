// Actions with control-plane arguments (table entries, default action, setdefault), direct calls of
// actions with constant arguments (also from another action), switch on action_run, apply().hit.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8>  k;
    bit<8>  x;
    bit<16> y;
    bit<8>  which;
    bit<8>  hit;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action set_xy(bit<8> xv, bit<16> yv) {
        hdr.d.x = xv;
        hdr.d.y = yv;
    }
    action add_x(bit<8> d) {
        hdr.d.x = hdr.d.x + d;
    }
    action twice(bit<8> d) {
        add_x(d);
        add_x(d);
    }
    action to_port(bit<9> p) {
        sm.egress_spec = p;
    }
    table t {
        key = { hdr.d.k: exact; }
        actions = { set_xy; add_x; twice; NoAction; }
        default_action = add_x(0x10);
    }
    table t2 {
        key = { hdr.d.k: exact; }
        actions = { NoAction; }
    }
    apply {
        switch (t.apply().action_run) {
            set_xy: { hdr.d.which = 1; }
            add_x: { hdr.d.which = 2; }
            default: { hdr.d.which = 3; }
        }
        if (t2.apply().hit) {
            hdr.d.hit = 1;
        } else {
            hdr.d.hit = 2;
        }
        to_port(3);
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
