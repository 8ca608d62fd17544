// varbit: two-argument extract with a run-time size, emit of the extracted bytes, and the BMv2 errors of
// a bad size: not a multiple of 8 (ParserInvalidArgument), too few bytes (PacketTooShort), larger than
// the varbit's maximum (HeaderTooShort).
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> mode;
    bit<8> len;
    bit<8> err;
}
header opt_t {
    varbit<32> v;
}
header tail_t {
    bit<8> t;
}

struct headers {
    d_t    d;
    opt_t  o;
    tail_t tail;
}
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        transition select(hdr.d.mode) {
            1: nibbles;
            default: bytes;
        }
    }
    state bytes {
        pkt.extract(hdr.o, (bit<32>)hdr.d.len * 8);
        transition parse_tail;
    }
    state nibbles {
        pkt.extract(hdr.o, (bit<32>)hdr.d.len * 4);
        transition parse_tail;
    }
    state parse_tail {
        pkt.extract(hdr.tail);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error == error.PacketTooShort) {
            hdr.d.err = 1;
        } else if (sm.parser_error == error.HeaderTooShort) {
            hdr.d.err = 4;
        } else if (sm.parser_error == error.ParserInvalidArgument) {
            hdr.d.err = 6;
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.d);
        pkt.emit(hdr.o);
        pkt.emit(hdr.tail);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
