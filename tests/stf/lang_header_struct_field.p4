// A header field may be a struct (of bit<W>, bool, or structs): on the wire its fields follow
// one another in order, MSB first, as if written out in the header.
#include <core.p4>
#include <v1model.p4>

struct inner_t {
    bit<4> hi;
    bool   flag;
    bit<3> lo;
}
struct row_t {
    bit<8>  e;
    inner_t in1;
    bit<16> t;
}
header h_t {
    row_t  row;
    bit<8> tail;
}

struct headers { h_t h; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        transition select(pkt.lookahead<h_t>().row.in1.flag) {
            true: parse;
            false: accept;
        }
    }
    state parse {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.h.isValid()) {
            hdr.h.row.in1.lo = hdr.h.row.in1.hi[2:0];
            hdr.h.row.in1.flag = false;
            hdr.h.tail = hdr.h.row.e + hdr.h.row.t[7:0];
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
