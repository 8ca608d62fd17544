// Serializable enums: header fields of enum type carry the underlying values on the wire; select, ==,
// switch, casts both ways; a value with no member name still round-trips.
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind { A = 1, B = 0x22, C = 0xF0 }

header data_t {
    Kind   k;
    bit<8> sel;
    bit<8> r;
    bit<8> sw;
    Kind   out_k;
    bit<8> raw;
    Kind   k2;
}

struct headers { data_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        transition select(hdr.d.k) {
            Kind.A: parse_a;
            default: accept;
        }
    }
    state parse_a {
        hdr.d.sel = 0xAA;
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.d.k == Kind.A) {
            hdr.d.r = 0x0A;
        } else if (hdr.d.k == Kind.B) {
            hdr.d.r = 0x0B;
        } else {
            hdr.d.r = 0xEE;
        }
        switch (hdr.d.k) {
            Kind.A: { hdr.d.sw = 1; }
            Kind.B: { hdr.d.sw = 2; }
            default: { hdr.d.sw = 3; }
        }
        hdr.d.out_k = Kind.C;
        hdr.d.raw = (bit<8>)hdr.d.k + 1;
        hdr.d.k2 = (Kind)(hdr.d.raw + 0x20);
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
