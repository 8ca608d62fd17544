// Header stack parsing: a loop extracting .next until a bottom-of-stack bit read through .last,
// .lastIndex and .size, indexing in a control, emit of the whole stack (valid elements only).
#include <core.p4>
#include <v1model.p4>

header cnt_t {
    bit<8> n;
    bit<8> last_val;
    bit<8> last_idx;
    bit<8> sz;
}
header item_t {
    bit<7> val;
    bit<1> bos;
}

struct headers {
    cnt_t     c;
    item_t[4] s;
}
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.c);
        transition parse_item;
    }
    state parse_item {
        pkt.extract(hdr.s.next);
        transition select(hdr.s.last.bos) {
            1: done;
            default: parse_item;
        }
    }
    state done {
        hdr.c.last_val = (bit<8>)hdr.s.last.val;
        hdr.c.last_idx = (bit<8>)hdr.s.lastIndex;
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.c.sz = (bit<8>)hdr.s.size;
        bit<8> n = 0;
        if (hdr.s[0].isValid()) { n = n + 1; }
        if (hdr.s[1].isValid()) { n = n + 1; }
        if (hdr.s[2].isValid()) { n = n + 1; }
        if (hdr.s[3].isValid()) { n = n + 1; }
        hdr.c.n = n;
        hdr.s[1].val = hdr.s[1].val + 1;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.c);
        pkt.emit(hdr.s);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
