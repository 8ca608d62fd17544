// hash(): result = base + (H(data) mod max), truncated to the result width, for crc16 (CRC-16/ARC),
// crc32, identity, csum16 and xor16 over field lists packed MSB-first and zero-padded to whole bytes.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<32> x;
    bit<8>  y;
    bit<16> r1;
    bit<16> r2;
    bit<32> r3;
    bit<16> r4;
    bit<16> r5;
    bit<8>  r6;
    bit<16> r7;
    bit<16> r8;
}

struct headers { d_t d; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.d); transition accept; }
}
control VC(inout headers hdr, inout metadata meta) { apply { } }
control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hash(hdr.d.r1, HashAlgorithm.crc16, 16w0, { 16w1 }, 32w4);
        hash(hdr.d.r2, HashAlgorithm.crc16, 16w0, { hdr.d.x }, 32w65536);
        hash(hdr.d.r3, HashAlgorithm.crc32, 32w0, { hdr.d.x }, 32w0xFFFFFFFF);
        hash(hdr.d.r4, HashAlgorithm.identity, 16w0x100, { hdr.d.x, hdr.d.y }, 32w0x10000);
        hash(hdr.d.r5, HashAlgorithm.csum16, 16w0, { hdr.d.x }, 32w0x10000);
        hash(hdr.d.r6, HashAlgorithm.xor16, 8w5, { hdr.d.x, hdr.d.y }, 8w16);
        hash(hdr.d.r7, HashAlgorithm.crc32, 16w7, { hdr.d.x, hdr.d.y }, 16w1000);
        hash(hdr.d.r8, HashAlgorithm.crc16, 16w0, { 4w0xA, hdr.d.y }, 32w65536);  // 12 bits, zero-padded
    }
}
control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout metadata meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.d); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
