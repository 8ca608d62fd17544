// List expressions `{a, b}` and struct expressions `{f = a}` are values of the header or struct
// type the context expects: returned from functions, passed as arguments, nested, stored. A
// header made this way is valid; `{#}` is an invalid one.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8> mode;
    bit<8> a;
    bit<8> b;
}
header p_t {
    bit<8> x;
    bit<8> y;
}

struct pair_t { p_t p; bit<8> tag; }
struct headers { d_t d; p_t p; }
struct metadata { }

p_t make(in bit<8> v) {
    if (v == 1) {
        return { 0x11, v };
    }
    return { x = 0x22, y = v };
}

bit<8> sum(in pair_t s) {
    return s.p.x + s.p.y + s.tag;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action take(in p_t v) {
        hdr.d.b = v.y;
    }
    apply {
        if (hdr.d.mode == 1 || hdr.d.mode == 2) {
            hdr.p = make(hdr.d.mode);          // p becomes valid
        } else if (hdr.d.mode == 3) {
            hdr.d.a = sum({ { 1, 2 }, hdr.d.a });
            take({ 5, hdr.d.a });
        } else if (hdr.d.mode == 4) {
            pair_t s = { p = { hdr.d.b, hdr.d.a }, tag = 0 };
            hdr.p = s.p;                       // the copy: later writes to s are not seen
            s.p.x = 0xEE;
            hdr.d.a = s.p.x;
        } else if (hdr.d.mode == 5) {
            hdr.p = make(0);
            hdr.p = {#};                       // invalid again: not emitted
        }
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
