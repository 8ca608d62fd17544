// Slices of fields as out/inout arguments of functions, actions and externs: only the sliced bits are
// written back (copy-out into an l-value slice).
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8>  x;
    bit<8>  y;
    bit<16> z;
    bit<8>  w;
    int<8>  s;
}

struct headers { d_t d; }
struct metadata { }

void split(in bit<8> v, out bit<4> hi, out bit<4> lo) {
    hi = v[7:4];
    lo = v[3:0];
}

void inc4(inout bit<4> v) {
    v = v + 1;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    register<bit<8>>(2) r;
    action set_nibble(out bit<4> n, bit<4> v) {
        n = v;
    }
    apply {
        split(hdr.d.x, hdr.d.y[3:0], hdr.d.y[7:4]);     // swap the nibbles of x into y
        inc4(hdr.d.x[7:4]);                              // carry out of the nibble is lost
        r.write(1, 0x5A);
        r.read(hdr.d.z[11:4], 1);
        set_nibble(hdr.d.w[5:2], 0xF);
        set_nibble(hdr.d.s[7:4], 0x8);                   // sets the sign bit of an int<8>
        hdr.d.s = hdr.d.s >> 1;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
