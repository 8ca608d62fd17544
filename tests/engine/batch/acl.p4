/* A ternary/range/optional ACL for the batch engine's equality fuzz: the batch engine must
 * pick the same entry as the per-packet one (priorities, ties to the earlier entry),
 * count the same (a direct counter and an indexed counter), and write the same bytes. */
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
struct metadata { bit<8> cls; bit<16> tag; }

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol, hdr.ipv4.fragOffset) {
            (6, 0): l4;
            (17, 0): l4;
            default: accept;
        }
    }
    state l4 { pkt.extract(hdr.ports); transition accept; }
}

control VC(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr }, hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) acl_hits;
    counter(16, CounterType.packets_and_bytes) by_class;

    action permit(bit<9> port, bit<8> cls) { sm.egress_spec = port; meta.cls = cls; }
    action deny() { mark_to_drop(sm); }
    action mark(bit<6> dscp) { hdr.ipv4.diffserv = dscp ++ hdr.ipv4.diffserv[1:0]; sm.egress_spec = 3; }
    table acl {
        key = {
            hdr.ipv4.srcAddr: ternary;
            hdr.ipv4.dstAddr: lpm;
            hdr.ipv4.protocol: optional;
            hdr.ports.dst: range;
        }
        actions = { permit; deny; mark; NoAction; }
        default_action = deny();
        counters = acl_hits;
    }

    action tag(bit<16> t) { meta.tag = t; }
    table classify {
        key = { meta.cls: exact; hdr.ports.src: range; sm.ingress_port: ternary; }
        actions = { tag; NoAction; }
        default_action = tag(0xffff);
    }

    apply {
        if (!hdr.ipv4.isValid()) {
            sm.egress_spec = 1;
            exit;
        }
        switch (acl.apply().action_run) {
            permit: {
                if (classify.apply().hit) {
                    hdr.ipv4.identification = meta.tag;
                }
            }
            mark: { hdr.ipv4.ttl = hdr.ipv4.ttl |-| 3; }
        }
        by_class.count((bit<32>) meta.cls[3:0]);
        if (hdr.ipv4.ttl == 0) { mark_to_drop(sm); }
    }
}

control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { if (sm.egress_port == 7) { hdr.ipv4.setInvalid(); } }
}

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
