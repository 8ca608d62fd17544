// Assorted: select on an int<8> key with negative values and a negative range, parser-local variables,
// bit<W> / and % by a power of 2 (p4c refuses run-time divisors), header stack assignment (elements, validity, nextIndex), and a
// plain (non-serializable) enum in locals.
#include <core.p4>
#include <v1model.p4>

enum Color { RED, GREEN, BLUE }

header d_t {
    int<8> s;
    bit<8> path;
    bit<8> cnt;
    bit<8> a;
    bit<8> b;
    bit<8> q;
    bit<8> r;
    bit<8> col;
}
header item_t {
    bit<8> v;
}

struct headers {
    d_t       d;
    item_t[2] s;
    item_t[2] t;
}
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    bit<8> n = 0;
    state start {
        pkt.extract(hdr.d);
        transition select(hdr.d.s) {
            -1: minus_one;
            -10 .. -2: negative;
            default: count_items;
        }
    }
    state minus_one {
        hdr.d.path = 1;
        transition accept;
    }
    state negative {
        hdr.d.path = 2;
        transition accept;
    }
    state count_items {
        hdr.d.path = 3;
        transition select(pkt.lookahead<bit<8>>()) {
            0: accept;
            default: one_item;
        }
    }
    state one_item {
        pkt.extract(hdr.s.next);
        n = n + 1;
        transition select(n) {
            2: done;
            default: count_items;
        }
    }
    state done {
        hdr.d.cnt = n;
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.q = hdr.d.a / 8;
        hdr.d.r = hdr.d.a % 8;
        hdr.t = hdr.s;
        hdr.t[0].v = hdr.t[0].v + 1;     // only the copy changes
        Color c = hdr.d.a > 100 ? Color.BLUE : Color.GREEN;
        if (hdr.d.a == 0) {
            c = Color.RED;
        }
        if (c == Color.RED) {
            hdr.d.col = 0xA0;
        } else if (c == Color.GREEN) {
            hdr.d.col = 0xA1;
        } else {
            hdr.d.col = 0xA2;
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.d);
        pkt.emit(hdr.s);
        pkt.emit(hdr.t);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
