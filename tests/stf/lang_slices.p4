// Bit slices as r-values (unsigned, also of int<W> and of a slice) and as l-values (only those bits change).
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<16> x;
    bit<8>  hi;
    bit<4>  lo4;
    bit<4>  mid4;
    int<8>  s;
    bit<8>  su;
    bit<16> y;
    bit<32> z;
    bit<4>  hoh;
    bit<4>  pad;
    int<8>  t;
    int<8>  t2;
}

struct headers { data_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.hi   = hdr.d.x[15:8];
        hdr.d.lo4  = hdr.d.x[3:0];
        hdr.d.mid4 = hdr.d.x[9:6];
        hdr.d.su   = (bit<8>)hdr.d.s[7:4];     // slice of int<8> is bit<4>: zero-extended
        hdr.d.s[3:0] = 4w0xF;
        hdr.d.y[11:4] = hdr.d.x[15:8];
        hdr.d.y[0:0] = 0;
        hdr.d.z[31:24] = 0xAB;
        hdr.d.z[7:0] = hdr.d.z[15:8];
        hdr.d.hoh  = hdr.d.x[15:8][3:0];
        hdr.d.t[7:4] = 4w8;                    // writes the sign bit of an int<8>
        hdr.d.t2   = hdr.d.t >> 1;              // arithmetic: sees the new negative value
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
