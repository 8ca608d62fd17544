/* -*- P4_16 -*- */
/*
 * clone_mirror.p4 -- port mirroring, reason-tagged mirroring, recirculation.
 *
 * IPv4 packets are routed by ipv4_lpm. mirror_acl then selects packets to
 * copy to a collector:
 *   - mirror_all:         clone(CloneType.I2E, 32w100), plain copy;
 *   - mirror_with_reason: clone_preserving_field_list(CloneType.I2E, 5, 1),
 *                         the copy keeps the @field_list(1) metadata
 *                         (reason code + original ingress port).
 * In egress, ingress clones (instance_type == 1) get a mirror header
 * inserted after Ethernet and are truncated to 64 bytes. Routes may ask for
 * a second pass (loopback service): such packets are recirculated with
 * recirculate_preserving_field_list(2), which keeps the pass counter, at
 * most MAX_RECIRC times; the recirculated packet (instance_type == 4) is
 * routed again in ingress.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4   = 0x800;
const bit<16> TYPE_MIRROR = 0x88B5;
const bit<8>  MAX_RECIRC  = 2;

const bit<32> PKT_INSTANCE_TYPE_NORMAL        = 0;
const bit<32> PKT_INSTANCE_TYPE_INGRESS_CLONE = 1;
const bit<32> PKT_INSTANCE_TYPE_RECIRC        = 4;

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

// Prepended to mirrored copies (after Ethernet).
header mirror_t {
    bit<8>  reason;
    bit<7>  pad;
    bit<9>  ingress_port;
    bit<16> etherType;
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

struct metadata {
    @field_list(1)
    bit<8> mirror_reason;
    @field_list(1)
    bit<9> orig_port;
    @field_list(2)
    bit<8> recirc_count;
    bit<1> do_recirc;
}

struct headers {
    ethernet_t ethernet;
    mirror_t   mirror;
    ipv4_t     ipv4;
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

    action ipv4_forward(macAddr_t dstAddr, egressSpec_t port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    action loopback(egressSpec_t port) {
        standard_metadata.egress_spec = port;
        meta.do_recirc = 1;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm;
        }
        actions = {
            ipv4_forward;
            loopback;
            drop;
        }
        size = 1024;
        default_action = drop();
    }

    action mirror_all() {
        clone(CloneType.I2E, 32w100);
    }

    action mirror_with_reason(bit<8> reason) {
        meta.mirror_reason = reason;
        meta.orig_port = standard_metadata.ingress_port;
        clone_preserving_field_list(CloneType.I2E, 5, 1);
    }

    table mirror_acl {
        key = {
            hdr.ipv4.srcAddr: ternary;
            hdr.ipv4.protocol: ternary;
        }
        actions = {
            mirror_all;
            mirror_with_reason;
            NoAction;
        }
        size = 256;
        default_action = NoAction();
    }

    apply {
        meta.do_recirc = 0;
        if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            // Mirror only on the first pass through the pipeline.
            if (standard_metadata.instance_type == PKT_INSTANCE_TYPE_NORMAL) {
                mirror_acl.apply();
            } else if (standard_metadata.instance_type == PKT_INSTANCE_TYPE_RECIRC) {
                log_msg("recirculated packet, pass {}", {meta.recirc_count});
            }
        } else {
            drop();
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {

    apply {
        if (standard_metadata.instance_type == PKT_INSTANCE_TYPE_INGRESS_CLONE) {
            hdr.mirror.setValid();
            hdr.mirror.reason = meta.mirror_reason;
            hdr.mirror.pad = 0;
            hdr.mirror.ingress_port = meta.orig_port;
            hdr.mirror.etherType = hdr.ethernet.etherType;
            hdr.ethernet.etherType = TYPE_MIRROR;
            truncate(32w64);
        } else if (meta.do_recirc == 1) {
            if (meta.recirc_count < MAX_RECIRC) {
                meta.recirc_count = meta.recirc_count + 1;
                recirculate_preserving_field_list(2);
            } else {
                mark_to_drop(standard_metadata);
            }
        }
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
        packet.emit(hdr.mirror);
        packet.emit(hdr.ipv4);
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
