// Parser errors do not drop the packet: parsing stops, headers extracted so far stay valid, the unparsed
// bytes become payload, ingress runs with standard_metadata.parser_error set (BMv2 Parser::parse).
// Covers PacketTooShort, StackOutOfBounds and failing verify() with program-declared errors; the error
// is reset to NoError for every packet.
#include <core.p4>
#include <v1model.p4>

error { BadVersion, BadLen }

header d_t {
    bit<8> ver;
    bit<8> n;
    bit<8> err;
}
header item_t {
    bit<8> v;
}
header big_t {
    bit<32> x;
}

struct headers {
    d_t       d;
    item_t[2] s;
    big_t     big;
}
struct metadata {
    bit<8> cnt;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        verify(hdr.d.ver != 0, error.BadVersion);
        verify(hdr.d.ver < 9, error.BadLen);
        meta.cnt = hdr.d.n;
        transition select(hdr.d.n) {
            0: parse_big;
            default: parse_items;
        }
    }
    state parse_items {
        pkt.extract(hdr.s.next);
        meta.cnt = meta.cnt - 1;
        transition select(meta.cnt) {
            0: accept;
            default: parse_items;
        }
    }
    state parse_big {
        pkt.extract(hdr.big);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.NoError) {
            hdr.d.err = 0;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.d.err = 1;
        } else if (sm.parser_error == error.NoMatch) {
            hdr.d.err = 2;
        } else if (sm.parser_error == error.StackOutOfBounds) {
            hdr.d.err = 3;
        } else if (sm.parser_error == error.BadVersion) {
            hdr.d.err = 0x10;
        } else if (sm.parser_error == error.BadLen) {
            hdr.d.err = 0x11;
        } else {
            hdr.d.err = 0xFF;
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.d);
        pkt.emit(hdr.s);
        pkt.emit(hdr.big);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
