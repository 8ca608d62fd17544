// && and || evaluate their right operand only when needed; ?: evaluates only the chosen branch.
// The right operands have visible side effects: a function with an inout argument, a table apply.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8> c;
    bit<8> t;
    bit<8> and_cnt;
    bit<8> or_cnt;
    bit<8> r1;
    bit<8> r2;
    bit<8> mux;
    bit<8> m1;
    bit<8> m2;
    bit<8> pick;
    bit<8> tbl;
    bit<8> r3;
}

struct headers { data_t d; }
struct metadata { }

bool bump(inout bit<8> x) {
    x = x + 1;
    return true;
}

bit<8> inc(inout bit<8> x) {
    x = x + 1;
    return x;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action count_it() { hdr.d.tbl = hdr.d.tbl + 1; }
    table t {
        key = { hdr.d.c: exact; }
        actions = { count_it; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (hdr.d.c == 1 && bump(hdr.d.and_cnt)) {
            hdr.d.r1 = 1;
        }
        if (hdr.d.c == 1 || bump(hdr.d.or_cnt)) {
            hdr.d.r2 = 1;
        }
        hdr.d.mux = hdr.d.c == 1 ? hdr.d.t : hdr.d.t + 0x10;
        hdr.d.pick = hdr.d.c == 1 ? inc(hdr.d.m1) : inc(hdr.d.m2);
        if (hdr.d.c == 2 && t.apply().hit) {
            hdr.d.r3 = 1;
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
