/* -*- P4_16 -*- */
/*
 * source_routing.p4 -- source routing beside plain IPv4 forwarding (v1model).
 *
 * A frame of EtherType 0x1234 carries a stack of 16-bit hops after its
 * Ethernet header: a bottom-of-stack bit and a 15-bit output port each. A
 * switch sends the frame out of the port the first hop names and removes
 * that hop; the hop marked bottom-of-stack also turns the frame back into
 * IPv4 (EtherType 0x0800), so the last switch delivers an ordinary packet.
 * Frames without hops are routed by ipv4_lpm as in ipv4_router.p4, so ping
 * and TCP cross the same switches.
 *
 * Control plane: topologies/source-routing/s*-runtime.json.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x0800;
const bit<16> TYPE_SRCROUTING = 0x1234;
#define MAX_HOPS 8

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header hop_t {
    bit<1>  bos;
    bit<15> port;
}

header ipv4_t {
    bit<4>    version;
    bit<4>    ihl;
    bit<8>    diffserv;
    bit<16>   totalLen;
    bit<16>   identification;
    bit<3>    flags;
    bit<13>   fragOffset;
    bit<8>    ttl;
    bit<8>    protocol;
    bit<16>   hdrChecksum;
    ip4Addr_t srcAddr;
    ip4Addr_t dstAddr;
}

struct metadata { }

struct headers {
    ethernet_t     ethernet;
    hop_t[MAX_HOPS] hops;
    ipv4_t         ipv4;
}

parser RouteParser(packet_in packet, out headers hdr, inout metadata meta,
                   inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_SRCROUTING: parse_hop;
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_hop {
        packet.extract(hdr.hops.next);
        transition select(hdr.hops.last.bos) {
            1: parse_ipv4;
            default: parse_hop;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control RouteVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control RouteIngress(inout headers hdr, inout metadata meta,
                     inout standard_metadata_t standard_metadata) {
    action drop() {
        mark_to_drop(standard_metadata);
    }

    action ipv4_forward(macAddr_t dstAddr, egressSpec_t port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { ipv4_forward; drop; NoAction; }
        size = 1024;
        default_action = drop();
    }

    apply {
        if (hdr.hops[0].isValid()) {
            // The sender wrote the ports; a 15-bit port that does not fit in 9 bits drops.
            if (hdr.hops[0].port > 511) {
                drop();
            } else {
                standard_metadata.egress_spec = (egressSpec_t) hdr.hops[0].port;
                if (hdr.hops[0].bos == 1) {
                    hdr.ethernet.etherType = TYPE_IPV4;
                }
                hdr.hops.pop_front(1);
            }
        } else if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
    }
}

control RouteEgress(inout headers hdr, inout metadata meta,
                    inout standard_metadata_t standard_metadata) {
    apply { }
}

control RouteComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control RouteDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.hops);
        packet.emit(hdr.ipv4);
    }
}

V1Switch(RouteParser(), RouteVerifyChecksum(), RouteIngress(), RouteEgress(),
         RouteComputeChecksum(), RouteDeparser()) main;
