// A select with no matching case and no default ends the parse like accept, with no parser error, and
// an explicit `transition reject` does the same (BMv2: no next state; p4c's BMv2 backend maps reject to
// the end of parsing). The packet is forwarded; what was not parsed stays as payload.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> a;
    bit<8> err;
}
header x_t {
    bit<8> v;
}

struct headers {
    d_t d;
    x_t x;
}
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        transition select(hdr.d.a) {
            1: parse_x;
            2: refuse;
        }
    }
    state parse_x {
        pkt.extract(hdr.x);
        transition accept;
    }
    state refuse {
        transition reject;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.err = sm.parser_error == error.NoError ? 8w0 : 8w0xEE;
        if (hdr.x.isValid()) {
            hdr.x.v = hdr.x.v + 1;
        }
        sm.egress_spec = 3;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.d);
        pkt.emit(hdr.x);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
