// switch on a bit<8> value: several labels sharing one body, an empty body, default.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> a;
    bit<8> r;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        switch (hdr.d.a) {
            1: { hdr.d.r = 0x10; }
            2:
            3: { hdr.d.r = 0x23; }
            4: { }
            default: { hdr.d.r = 0xDD; }
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
