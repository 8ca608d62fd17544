// Out-of-range register indexes (BMv2 targets/simple_switch/primitives.cpp): register_read leaves the
// destination unchanged, register_write does nothing; counting out of range does nothing.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8>  idx;
    bit<8>  inc;
    bit<32> val;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    register<bit<32>>(4) r;
    counter(4, CounterType.packets) c;
    apply {
        bit<32> v = 0xDEADBEEF;
        r.read(v, (bit<32>)hdr.d.idx);
        v = v + (bit<32>)hdr.d.inc;
        r.write((bit<32>)hdr.d.idx, v);
        hdr.d.val = v;
        c.count((bit<32>)hdr.d.idx);
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
