/* -*- P4_16 -*- */
/*
 * multicast.p4 -- L2 switch with multicast/broadcast replication.
 *
 * mac_lookup (exact on dstAddr) either unicasts to a port or assigns a
 * multicast group through standard_metadata.mcast_grp; the broadcast MAC
 * ff:ff:ff:ff:ff:ff is expected to map to a group. The traffic manager
 * makes one copy per replica; in egress each copy sees its egress_rid.
 * The copy that would go back out of its own ingress port is dropped, the
 * others get a per-replica source MAC rewrite and are counted by rid.
 */
#include <core.p4>
#include <v1model.p4>

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;

const bit<32> PKT_INSTANCE_TYPE_REPLICATION = 5;
const bit<32> MAX_REPLICA_IDS = 1024;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

struct metadata {
    /* empty */
}

struct headers {
    ethernet_t ethernet;
}

parser MyParser(packet_in packet,
                out headers hdr,
                inout metadata meta,
                inout standard_metadata_t standard_metadata) {

    state start {
        packet.extract(hdr.ethernet);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {  }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action multicast(bit<16> mcast_grp) {
        standard_metadata.mcast_grp = mcast_grp;
    }

    action mac_forward(egressSpec_t port) {
        standard_metadata.egress_spec = port;
    }

    table mac_lookup {
        key = {
            hdr.ethernet.dstAddr: exact;
        }
        actions = {
            multicast;
            mac_forward;
            drop;
        }
        size = 1024;
        default_action = multicast(1);
    }

    apply {
        if (hdr.ethernet.isValid()) {
            mac_lookup.apply();
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {

    counter(MAX_REPLICA_IDS, CounterType.packets) replica_pkts;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action rewrite_src(macAddr_t smac) {
        hdr.ethernet.srcAddr = smac;
    }

    table replica_fixup {
        key = {
            standard_metadata.egress_rid: exact;
            standard_metadata.egress_port: exact;
        }
        actions = {
            rewrite_src;
            NoAction;
        }
        size = 256;
        default_action = NoAction();
    }

    apply {
        if (standard_metadata.egress_port == standard_metadata.ingress_port) {
            // Never reflect a flooded frame back to where it came from.
            drop();
        } else if (standard_metadata.instance_type == PKT_INSTANCE_TYPE_REPLICATION) {
            replica_fixup.apply();
            if ((bit<32>)standard_metadata.egress_rid < MAX_REPLICA_IDS) {
                replica_pkts.count((bit<32>)standard_metadata.egress_rid);
            }
        }
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {  }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
    }
}

V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
