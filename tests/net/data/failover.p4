// Data-plane failover for the network tests: each route has a primary and a backup port,
// chosen per packet from the port_status register that the emulator keeps up to date.
// Egress writes the queue depth seen at enqueue into the IPv4 identification field.
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
struct headers { ethernet_t ethernet; ipv4_t ipv4; }
struct meta_t { bit<1> up; }

parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x800: ipv4; default: accept; }
    }
    state ipv4 { pk.extract(hdr.ipv4); transition accept; }
}

control V(inout headers hdr, inout meta_t m) { apply { } }

control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<1>>(16) port_status;
    action fwd(bit<9> primary, bit<9> backup, bit<48> dmac) {
        port_status.read(m.up, (bit<32>) primary);
        sm.egress_spec = m.up == 1 ? primary : backup;
        hdr.ethernet.dst = dmac;
    }
    action drop() { mark_to_drop(sm); }
    table route {
        key = { hdr.ipv4.dstAddr: exact; }
        actions = { fwd; drop; }
        default_action = drop();
    }
    apply { if (hdr.ipv4.isValid()) { route.apply(); } else { drop(); } }
}

control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (hdr.ipv4.isValid()) { hdr.ipv4.identification = (bit<16>) sm.enq_qdepth; }
    }
}

control C(inout headers hdr, inout meta_t m) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.ethernet); pk.emit(hdr.ipv4); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;
