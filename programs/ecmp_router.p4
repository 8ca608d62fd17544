/* -*- P4_16 -*- */
/*
 * ecmp_router.p4 -- IPv4 router with ECMP (v1model), the router of generated fabrics.
 *
 * Ingress: ipv4_lpm (lpm on the IPv4 destination) either
 *   - set_nhop(dmac, port): forward out of one port, rewriting the destination MAC, or
 *   - set_ecmp(group, count): hash the flow (source and destination address, protocol and,
 *     for TCP and UDP, the two ports) with crc32 into meta.ecmp_select in [0, count), then
 *     ecmp_nhop (exact on group and select) picks the next hop with set_nhop, or
 *   - drop (the default).
 * Packets that are not IPv4, whose header checksum is wrong, or whose TTL would reach 0
 * when forwarded (TTL <= 1 on arrival, as RFC 1812 routers do) are dropped. Forwarded
 * packets leave with TTL - 1 and a recomputed header checksum.
 * Why crc32 and not crc16: BMv2's crc16 is CRC-16/ARC, and flipping any bit of the L4 ports
 * flips bit 0 but never bit 1 of its result, so flows that differ only in their ports
 * (one host pair, many connections) reach just 2 members of a 4-way group; crc32 spreads
 * them over all members.
 * Egress: smac (exact on egress_port) rewrites the source MAC to the MAC of the output
 * port; a port without an entry keeps the source MAC.
 *
 * Control plane: no shared entries file; dataplane.net.generators writes one runtime
 * JSON per switch (ipv4_lpm, ecmp_nhop and smac entries).
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x800;
const bit<8>  PROTO_TCP = 6;
const bit<8>  PROTO_UDP = 17;

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
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

/* Only the two port fields of TCP and UDP matter here; both start with them. */
header l4_ports_t {
    bit<16> srcPort;
    bit<16> dstPort;
}

struct metadata {
    bit<1>  use_ecmp;
    bit<16> ecmp_group;
    bit<16> ecmp_select;
    bit<16> l4_src;
    bit<16> l4_dst;
}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    l4_ports_t l4;
}

parser MyParser(packet_in packet,
                out headers hdr,
                inout metadata meta,
                inout standard_metadata_t standard_metadata) {

    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        /* Ports only from unfragmented-offset TCP/UDP without IP options. */
        transition select(hdr.ipv4.ihl, hdr.ipv4.fragOffset, hdr.ipv4.protocol) {
            (4w5, 13w0, PROTO_TCP): parse_l4;
            (4w5, 13w0, PROTO_UDP): parse_l4;
            default: accept;
        }
    }

    state parse_l4 {
        packet.extract(hdr.l4);
        meta.l4_src = hdr.l4.srcPort;
        meta.l4_dst = hdr.l4.dstPort;
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {
        verify_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.diffserv,
              hdr.ipv4.totalLen,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.fragOffset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action set_nhop(macAddr_t dmac, egressSpec_t port) {
        hdr.ethernet.dstAddr = dmac;
        standard_metadata.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    action set_ecmp(bit<16> group, bit<16> count) {
        meta.use_ecmp = 1;
        meta.ecmp_group = group;
        hash(meta.ecmp_select,
             HashAlgorithm.crc32,
             (bit<16>)0,
             { hdr.ipv4.srcAddr,
               hdr.ipv4.dstAddr,
               hdr.ipv4.protocol,
               meta.l4_src,
               meta.l4_dst },
             count);
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm;
        }
        actions = {
            set_nhop;
            set_ecmp;
            drop;
        }
        size = 4096;
        default_action = drop();
    }

    table ecmp_nhop {
        key = {
            meta.ecmp_group: exact;
            meta.ecmp_select: exact;
        }
        actions = {
            set_nhop;
            drop;
        }
        size = 4096;
        default_action = drop();
    }

    apply {
        if (!hdr.ipv4.isValid()) {
            drop();
        } else if (standard_metadata.checksum_error == 1 || hdr.ipv4.ttl <= 1) {
            drop();
        } else {
            ipv4_lpm.apply();
            if (meta.use_ecmp == 1) {
                ecmp_nhop.apply();
            }
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {

    action rewrite_smac(macAddr_t smac) {
        hdr.ethernet.srcAddr = smac;
    }

    table smac {
        key = {
            standard_metadata.egress_port: exact;
        }
        actions = {
            rewrite_smac;
            NoAction;
        }
        size = 512;
        default_action = NoAction();
    }

    apply {
        smac.apply();
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.diffserv,
              hdr.ipv4.totalLen,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.fragOffset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.l4);
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
