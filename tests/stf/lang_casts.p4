// Casts: truncation, zero/sign extension, bit<W> <-> int<W> reinterpretation, bool <-> bit<1>, int -> bit<W>.
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<16> x;
    bit<8>  tr;
    bit<32> ze;
    int<8>  s;
    int<16> se;
    bit<16> sz;
    int<8>  ti;
    int<16> se2;
    bit<1>  flag;
    bit<1>  b1;
    bit<1>  fb;
    bit<5>  pad;
    bit<8>  fromb;
    bit<8>  negc;
}

struct headers { data_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.d.tr  = (bit<8>)hdr.d.x;                     // truncate
        hdr.d.ze  = (bit<32>)hdr.d.x;                    // zero-extend
        hdr.d.se  = (int<16>)hdr.d.s;                    // sign-extend
        hdr.d.sz  = (bit<16>)(bit<8>)hdr.d.s;            // reinterpret, then zero-extend
        hdr.d.ti  = (int<8>)(int<16>)hdr.d.x;            // reinterpret, then truncate
        hdr.d.se2 = (int<16>)(int<8>)hdr.d.x[7:0];       // reinterpret, then sign-extend
        hdr.d.b1  = (bit<1>)(hdr.d.x == 0x1234);         // bool -> bit<1>
        if ((bool)hdr.d.flag) {                          // bit<1> -> bool
            hdr.d.fb = 1;
        } else {
            hdr.d.fb = 0;
        }
        hdr.d.fromb = (bit<8>)(bit<1>)(hdr.d.x > 0x8000);
        hdr.d.negc = (bit<8>)(-1);                       // int -> bit<8>: two's complement
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
