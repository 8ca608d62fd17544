/* -*- P4_16 -*- */
/*
 * meter_policer.p4 -- two-level policing with meters.
 *
 * Every IPv4 packet is first metered per ingress port by an indexed
 * byte meter (port_meter.execute_meter into a bit<2> colour), then per flow
 * by a direct packet meter attached to flow_policer (meters = flow_meter;
 * the colour is fetched with flow_meter.read() in the table's action).
 * A packet that is RED at either level is dropped with
 * mark_to_drop(standard_metadata); YELLOW packets have their DSCP lowered.
 * Forwarded packets are counted per output port by an indexed counter.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x800;

const bit<2> METER_GREEN  = 0;
const bit<2> METER_YELLOW = 1;
const bit<2> METER_RED    = 2;

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

struct metadata {
    bit<2> port_color;
    bit<2> flow_color;
}

struct headers {
    ethernet_t ethernet;
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

    meter(32w64, MeterType.bytes) port_meter;
    direct_meter<bit<2>>(MeterType.packets) flow_meter;
    counter(64, CounterType.packets) c;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action meter_port() {
        port_meter.execute_meter((bit<32>)standard_metadata.ingress_port, meta.port_color);
    }

    action police_flow() {
        flow_meter.read(meta.flow_color);
    }

    table flow_policer {
        key = {
            hdr.ipv4.srcAddr: exact;
            hdr.ipv4.dstAddr: exact;
        }
        actions = {
            police_flow;
            NoAction;
        }
        meters = flow_meter;
        size = 256;
        default_action = NoAction();
    }

    action ipv4_forward(macAddr_t dstAddr, egressSpec_t port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm;
        }
        actions = {
            ipv4_forward;
            drop;
        }
        size = 1024;
        default_action = drop();
    }

    apply {
        if (!hdr.ipv4.isValid()) {
            drop();
        } else {
            meta.port_color = METER_GREEN;
            meta.flow_color = METER_GREEN;
            if (standard_metadata.ingress_port < 64) {
                meter_port();   // port_meter has 64 cells
            }
            flow_policer.apply();

            if (meta.port_color == METER_RED || meta.flow_color == METER_RED) {
                mark_to_drop(standard_metadata);
            } else {
                if (meta.port_color == METER_YELLOW || meta.flow_color == METER_YELLOW) {
                    // Demote to best effort, keep the ECN bits.
                    hdr.ipv4.diffserv = hdr.ipv4.diffserv & 8w0x03;
                }
                ipv4_lpm.apply();
                bit<9> port = standard_metadata.egress_spec;
                if (port < 64) {
                    c.count((bit<32>)port);
                }
            }
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    apply {  }
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
