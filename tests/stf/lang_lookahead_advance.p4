// lookahead<bit<N>>() in a select and lookahead<header>() leave the bytes in place; advance() consumes
// bytes (they are not re-emitted); both raise PacketTooShort past the end of the packet.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> kind;
    bit<8> peek;
}
header a_t {
    bit<8> tag;
    bit<8> v;
}
header b_t {
    bit<16> w;
}

struct headers {
    d_t d;
    a_t a;
    b_t b;
}
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        transition select(pkt.lookahead<bit<8>>()) {
            0xAA: parse_a;
            0xBB: skip;
            default: accept;
        }
    }
    state parse_a {
        hdr.d.peek = pkt.lookahead<a_t>().v;
        pkt.extract(hdr.a);
        transition accept;
    }
    state skip {
        pkt.advance(16);
        pkt.extract(hdr.b);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.PacketTooShort) {
            hdr.d.peek = 0xE1;
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.d);
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
