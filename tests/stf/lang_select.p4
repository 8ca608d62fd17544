// select: tuple keys, exact values, masks (&&&), ranges (..), don't-care (_), default; first match wins.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> a;
    bit<8> b;
    bit<8> path;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        transition select(hdr.d.a, hdr.d.b) {
            (0x01, 0x02): s1;
            (0x10 &&& 0xF0, _): s2;
            (0x20 .. 0x2F, 0x00 .. 0x0F): s3;
            (0x30, 0x0F &&& 0x0F): s4;
            (_, 0xFF): s5;
            default: s6;
        }
    }
    state s1 { hdr.d.path = 1; transition accept; }
    state s2 { hdr.d.path = 2; transition accept; }
    state s3 { hdr.d.path = 3; transition accept; }
    state s4 { hdr.d.path = 4; transition accept; }
    state s5 { hdr.d.path = 5; transition accept; }
    state s6 { hdr.d.path = 6; transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
