// Functions with return values (early return), in/out/inout parameters (copy-in/copy-out),
// actions with out/inout and directionless arguments called directly, local variables in nested blocks.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8> a;
    bit<8> b;
    bit<8> mx;
    bit<8> q;
    bit<8> r;
    bit<8> io;
    bit<8> sum;
    bit<8> act_o;
    bit<8> act_io;
    bit<8> loc;
    bit<8> o1;
}

struct headers { data_t d; }
struct metadata { }

bit<8> max8(in bit<8> x, in bit<8> y) {
    if (x > y) {
        return x;
    }
    return y;
}

void split(in bit<8> x, out bit<8> hi, out bit<8> lo) {
    hi = x >> 4;
    lo = x & 0x0F;
}

bit<8> addto(inout bit<8> acc, in bit<8> v) {
    acc = acc + v;
    return acc + 1;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action act(out bit<8> o, inout bit<8> io, bit<8> k) {
        o = k;
        io = io + k;
    }
    apply {
        hdr.d.mx = max8(hdr.d.a, hdr.d.b);
        split(hdr.d.a, hdr.d.q, hdr.d.r);
        hdr.d.sum = addto(hdr.d.io, hdr.d.b);
        act(hdr.d.act_o, hdr.d.act_io, 7);
        bit<8> tmp = hdr.d.a;
        {
            bit<8> tmp2 = tmp + 1;
            tmp = tmp2 * 2;
        }
        hdr.d.loc = tmp;
        addto(hdr.d.o1, 5);              // result discarded, inout still copied out
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
