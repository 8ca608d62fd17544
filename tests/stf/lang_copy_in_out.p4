// Arguments are copied in and out (spec 6.8), also headers and structs, whatever other names
// the callee reaches the same storage by:
//  - an action writing the control's header directly, then copying out its own inout copy,
//    loses the direct write (copy-out comes last);
//  - an `in` header parameter keeps the value it had at the call;
//  - the same header passed twice (inout and in) to a function: the `in` one is the value at the call;
//  - an `out` header starts invalid in the callee, and is copied back as the callee leaves it;
//  - out/inout values are copied back in parameter order;
//  - `_` as an out header argument is a header nobody keeps.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> mode;
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

struct headers { d_t d; }
struct metadata { }

void twice(inout d_t x, in d_t y) {
    x.a = 0x11;
    x.b = y.a;              // y is the value at the call: x's write is not seen
}

void fresh(out d_t x, out bit<8> valid_before) {
    valid_before = x.isValid() ? 8w1 : 8w0;
    x.setValid();           // setValid on an invalid header zeroes its fields
    x.c = 0x77;
}

void ordered(out bit<8> first, inout d_t whole) {
    first = 0x55;
    whole.a = 0x66;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action overwrite(inout headers val) {
        hdr.d.a = 0xAA;     // lost: the copy-out of val writes the old value back
        val.d.b = 0xBB;
    }
    action look(in d_t val) {
        hdr.d.a = 0xCC;
        hdr.d.b = val.a;    // the value at the call, not 0xCC
    }
    apply {
        if (hdr.d.mode == 1) {
            overwrite(hdr);
        } else if (hdr.d.mode == 2) {
            look(hdr.d);
        } else if (hdr.d.mode == 3) {
            twice(hdr.d, hdr.d);
        } else if (hdr.d.mode == 4) {
            bit<8> v;
            fresh(hdr.d, v);
            hdr.d.b = v;
        } else if (hdr.d.mode == 5) {
            ordered(hdr.d.a, hdr.d);   // hdr.d.a = 0x55, then hdr.d = whole (a = 0x66)
        } else if (hdr.d.mode == 6) {
            fresh(_, hdr.d.b);         // `_` takes the header nobody keeps
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
