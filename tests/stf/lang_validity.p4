// Header validity: isValid, setInvalid removes a header from the output, setValid on an invalid header
// zeroes its fields (BMv2 add_header) and is a no-op on a valid one, writes to an invalid header do not
// make it valid, header assignment copies validity, the deparser emits only valid headers (in emit
// order, not packet order) followed by the unparsed payload.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<8> cmd;
    bit<8> flag;
    bit<8> v_opt;
    bit<8> v_x;
}
header opt_t {
    bit<8> o1;
    bit<8> o2;
}
header x_t {
    bit<8> a;
    bit<8> b;
}
header y_t {
    bit<8> f;
}

struct headers {
    data_t d;
    opt_t  opt;
    x_t    x;
    y_t    y;
    opt_t  z;
}
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        transition select(hdr.d.flag) {
            1: parse_opt;
            default: accept;
        }
    }
    state parse_opt {
        pkt.extract(hdr.opt);
        transition accept;
    }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.v_opt = hdr.opt.isValid() ? 8w1 : 8w0;
        if (hdr.d.cmd[0:0] == 1) {
            hdr.opt.setInvalid();
        }
        if (hdr.d.cmd[1:1] == 1) {
            hdr.x.setValid();
            hdr.x.b = 0x77;
        }
        if (hdr.d.cmd[2:2] == 1) {
            hdr.opt.setInvalid();
            hdr.opt.setValid();
        }
        if (hdr.d.cmd[3:3] == 1) {
            hdr.opt.setValid();
        }
        hdr.y.f = 0x55;
        hdr.d.v_x = (hdr.x.isValid() ? 8w0x10 : 8w0) | (hdr.y.isValid() ? 8w0x01 : 8w0);
        hdr.z = hdr.opt;
        hdr.z.o1 = hdr.z.o1 + 1;
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.d);
        pkt.emit(hdr.x);
        pkt.emit(hdr.opt);
        pkt.emit(hdr.y);
        pkt.emit(hdr.z);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
