/* Rewrites for the batch engine's in-place deparser: packets that keep their headers where
 * they were parsed get only their assigned fields written (a 48-bit field, fields sharing a
 * byte, a field across bytes, a checksum over both assigned and untouched fields); packets
 * that lose a header, gain one, or are dropped take the packing path; both in one batch. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header tag_t { bit<16> value; }
struct headers { ethernet_t ethernet; tag_t tag; ipv4_t ipv4; }
struct metadata { }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}

control VC(inout headers hdr, inout metadata meta) { apply { } }

control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.ipv4.isValid()) {
            hdr.ethernet.src = hdr.ethernet.dst ^ 48w0x010000000001;
            hdr.ipv4.ihl = hdr.ipv4.ihl + 1;                  /* shares its byte with version */
            hdr.ipv4.fragOffset = hdr.ipv4.fragOffset + 3;    /* 13 bits across two bytes */
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            if (hdr.ipv4.ttl == 0) { mark_to_drop(sm); }
            if (hdr.ipv4.protocol == 50) { hdr.ipv4.setInvalid(); hdr.ethernet.etherType = 0x88b5; }
            if (hdr.ipv4.protocol == 51) { hdr.tag.setValid(); hdr.tag.value = 0xabcd; }
        }
    }
}

control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }

control CC(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr }, hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.tag); pkt.emit(hdr.ipv4); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
