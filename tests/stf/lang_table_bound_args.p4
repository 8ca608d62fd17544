// An action listed in a table with arguments for its directional parameters (`set(hdr.d.b)`)
// gets them when an entry or the default runs it, copied in and out, followed by the entry's
// action data; the same action may be listed with other arguments in another table.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> k;
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
    action set(out bit<8> dst, bit<8> v) { dst = v; }
    action add(inout bit<8> dst, bit<8> v) { dst = dst + v; }
    table t1 {
        key = { hdr.d.k: exact; }
        actions = { set(hdr.d.b); add(hdr.d.a); }
        default_action = add(hdr.d.a, 0x40);
    }
    table t2 {
        key = { hdr.d.k: exact; }
        actions = { set(hdr.d.c); }
        default_action = set(hdr.d.c, 0xDD);
    }
    apply {
        t1.apply();
        t2.apply();
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
