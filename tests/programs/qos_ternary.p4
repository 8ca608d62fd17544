/* -*- P4_16 -*- */
/*
 * qos_ternary.p4 -- ACL + QoS classification with ternary/range/optional keys.
 *
 * The acl table matches TCP/IPv4 packets on a ternary source prefix, a range
 * of destination ports, the exact protocol and an optional destination
 * address. Its rules are compile-time `const entries` with explicit
 * `priority = N :` prefixes (larger wins), `&&&` masks, `..` ranges and `_`
 * wildcards; acl_counter (a direct packets_and_bytes counter) counts every
 * lookup per entry. The outcome is dispatched with
 * switch (acl.apply().action_run): allowed packets get a DSCP/priority from
 * dscp_map and are routed, denied packets are dropped. Non-TCP IPv4 is just
 * routed.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x800;
const bit<8>  PROTO_TCP = 6;

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

header tcp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<32> seqNo;
    bit<32> ackNo;
    bit<4>  dataOffset;
    bit<3>  res;
    bit<3>  ecn;
    bit<6>  ctrl;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgentPtr;
}

struct metadata {
    bit<3> traffic_class;
}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    tcp_t      tcp;
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
        transition select(hdr.ipv4.protocol) {
            PROTO_TCP: parse_tcp;
            default: accept;
        }
    }

    state parse_tcp {
        packet.extract(hdr.tcp);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {  }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

    direct_counter(CounterType.packets_and_bytes) acl_counter;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action allow(bit<3> tc) {
        meta.traffic_class = tc;
    }

    action deny() {
        meta.traffic_class = 0;
    }

    table acl {
        key = {
            hdr.ipv4.srcAddr:  ternary;
            hdr.tcp.dstPort:   range;
            hdr.ipv4.protocol: exact;
            hdr.ipv4.dstAddr:  optional;
        }
        actions = {
            allow;
            deny;
        }
        counters = acl_counter;
        default_action = allow(0);
        const entries = {
            // Block telnet from anywhere.
            priority = 100 : (_, 23 .. 23, PROTO_TCP, _) : deny();
            // SSH only from the management subnet 10.0.9.0/24 ...
            priority = 90 : (32w0x0A000900 &&& 32w0xFFFFFF00, 22 .. 22, PROTO_TCP, _) : allow(7);
            // ... and nowhere else.
            priority = 80 : (_, 22 .. 22, PROTO_TCP, _) : deny();
            // Web traffic to the front-end VIP gets a better class.
            priority = 50 : (_, 80 .. 443, PROTO_TCP, 0x0A000164) : allow(5);
            // Anything from 10.1.0.0/16 to the registered port range.
            priority = 40 : (0x0A010000 &&& 0xFFFF0000, 1024 .. 49151, PROTO_TCP, _) : allow(3);
            // Every other well-known port is refused (all-zero mask).
            priority = 10 : (0x00000000 &&& 0x00000000, 0 .. 1023, PROTO_TCP, _) : deny();
        }
        size = 64;
    }

    action set_dscp(bit<8> dscp, bit<3> prio) {
        hdr.ipv4.diffserv = dscp;
        standard_metadata.priority = prio;
    }

    table dscp_map {
        key = {
            meta.traffic_class: exact;
        }
        actions = {
            set_dscp;
            NoAction;
        }
        size = 8;
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
        if (hdr.ipv4.isValid()) {
            if (hdr.tcp.isValid()) {
                switch (acl.apply().action_run) {
                    allow: {
                        dscp_map.apply();
                        ipv4_lpm.apply();
                    }
                    deny: {
                        drop();
                    }
                }
            } else {
                ipv4_lpm.apply();
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
        packet.emit(hdr.tcp);
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
