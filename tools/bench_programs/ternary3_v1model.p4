/* Three ternary tables of an ACL pipeline (v1model), for tools/bench_pps.py: a 5-tuple-ish
 * filter, a port classifier and a QoS marker, each looked up for every IPv4 packet. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
header ports_t { bit<16> src; bit<16> dst; }
struct headers { ethernet_t ethernet; ipv4_t ipv4; ports_t ports; }
struct metadata { bit<8> cls; }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) { 6: l4; 17: l4; default: accept; }
    }
    state l4 { pkt.extract(hdr.ports); transition accept; }
}

control VC(inout headers hdr, inout metadata meta) { apply { } }

control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action permit(bit<9> port) { sm.egress_spec = port; }
    table filter {
        key = { hdr.ipv4.srcAddr: ternary; hdr.ipv4.dstAddr: ternary; hdr.ipv4.protocol: ternary; }
        actions = { permit; drop; }
        default_action = drop();
        size = 1024;
    }
    action set_class(bit<8> cls) { meta.cls = cls; }
    table classify {
        key = { hdr.ports.src: ternary; hdr.ports.dst: ternary; }
        actions = { set_class; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    action mark(bit<6> dscp) { hdr.ipv4.diffserv = dscp ++ hdr.ipv4.diffserv[1:0]; }
    table qos {
        key = { meta.cls: ternary; hdr.ipv4.dstAddr: ternary; }
        actions = { mark; NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            filter.apply();
            classify.apply();
            qos.apply();
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        } else {
            drop();
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
    apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); pkt.emit(hdr.ports); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
