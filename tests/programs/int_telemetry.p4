/* -*- P4_16 -*- */
/*
 * int_telemetry.p4 -- INT-style telemetry on an L2 learning switch.
 *
 * Parser: Ethernet, an optional 4-byte vendor tag stripped with
 * packet.advance(32), an optional telemetry header, IPv4 with varbit<320>
 * options sized from ihl, UDP. Ingress: MAC learning via
 * digest<learn_t>(1, {srcAddr, ingress_port}), dmac forward/flood, INT
 * source insertion, UDP port NAT. Egress: hop count, max deq_qdepth and
 * summed deq_timedelta. Checksums: IPv4 (with/without options) and UDP
 * (pseudo-header + payload, update_checksum_with_payload).
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4  = 0x800;
const bit<16> TYPE_VTAG  = 0x8999;
const bit<16> TYPE_TELEM = 0x88B7;
const bit<8>  PROTO_UDP  = 17;

error { BadIhl }

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header telem_t {
    bit<16> proto;          // etherType of what follows
    bit<8>  hop_cnt;
    bit<8>  rsvd;
    bit<32> max_qdepth;
    bit<32> total_latency;  // microseconds
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

header ipv4_opt_t {
    varbit<320> options;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length_;
    bit<16> checksum;
}

struct learn_t {
    macAddr_t srcAddr;
    bit<9>    ingress_port;
}

struct metadata {
    bit<1> vtag_stripped;
}

struct headers {
    ethernet_t ethernet;
    telem_t    telem;
    ipv4_t     ipv4;
    ipv4_opt_t ipv4_opt;
    udp_t      udp;
}

parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {

    state start {
        meta.vtag_stripped = 0;
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_VTAG: parse_vtag;
            TYPE_TELEM: parse_telem;
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_vtag {
        // Opaque 32-bit tag, always followed by IPv4; dropped from the frame.
        packet.advance(32);
        meta.vtag_stripped = 1;
        transition parse_ipv4;
    }

    state parse_telem {
        packet.extract(hdr.telem);
        transition select(hdr.telem.proto) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        verify(hdr.ipv4.ihl >= 5, error.BadIhl);
        transition select(hdr.ipv4.ihl, hdr.ipv4.protocol) {
            (5, PROTO_UDP): parse_udp;
            (5, _): accept;
            default: parse_ipv4_options;
        }
    }

    state parse_ipv4_options {
        packet.extract(hdr.ipv4_opt, (bit<32>)(((bit<16>)hdr.ipv4.ihl - 5) * 32));
        transition select(hdr.ipv4.protocol) {
            PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        packet.extract(hdr.udp);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {  }
}

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

    action drop() { mark_to_drop(standard_metadata); }

    action mac_learn() {
        digest<learn_t>(1, {hdr.ethernet.srcAddr, standard_metadata.ingress_port});
    }

    table smac {
        key = { hdr.ethernet.srcAddr: exact; }
        actions = { mac_learn; NoAction; }
        size = 4096;
        default_action = mac_learn();
    }

    action forward(egressSpec_t port) { standard_metadata.egress_spec = port; }
    action flood() { standard_metadata.mcast_grp = 1; }

    table dmac {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { forward; flood; drop; }
        size = 4096;
        default_action = flood();
    }

    action add_telemetry() {
        // Initialising a header from a list makes it valid.
        hdr.telem = { hdr.ethernet.etherType, 0, 0, 0, 0 };
        hdr.ethernet.etherType = TYPE_TELEM;
    }

    table int_source {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { add_telemetry; NoAction; }
        size = 64;
        default_action = NoAction();
    }

    action set_dst_port(bit<16> port) { hdr.udp.dstPort = port; }

    table udp_nat {
        key = { hdr.ipv4.dstAddr: exact; hdr.udp.dstPort: exact; }
        actions = { set_dst_port; NoAction; }
        size = 256;
        default_action = NoAction();
    }

    apply {
        if (meta.vtag_stripped == 1) { hdr.ethernet.etherType = TYPE_IPV4; }
        smac.apply();
        dmac.apply();
        if (hdr.ipv4.isValid()) {
            if (!hdr.telem.isValid()) { int_source.apply(); }
            if (hdr.udp.isValid()) { udp_nat.apply(); }
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        if (standard_metadata.egress_port == standard_metadata.ingress_port) {
            mark_to_drop(standard_metadata);
        } else if (hdr.telem.isValid()) {
            bit<32> qdepth = (bit<32>)standard_metadata.deq_qdepth;
            hdr.telem.hop_cnt = hdr.telem.hop_cnt + 1;
            if (qdepth > hdr.telem.max_qdepth) { hdr.telem.max_qdepth = qdepth; }
            hdr.telem.total_latency = hdr.telem.total_latency + standard_metadata.deq_timedelta;
        }
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid() && !hdr.ipv4_opt.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
              hdr.ipv4.totalLen, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
        update_checksum(hdr.ipv4.isValid() && hdr.ipv4_opt.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
              hdr.ipv4.totalLen, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr,
              hdr.ipv4_opt.options },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
        // UDP: pseudo-header + UDP header, then the payload.
        update_checksum_with_payload(hdr.udp.isValid(),
            { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, 8w0, hdr.ipv4.protocol,
              hdr.udp.length_, hdr.udp.srcPort, hdr.udp.dstPort, hdr.udp.length_ },
            hdr.udp.checksum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.telem);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.ipv4_opt);
        packet.emit(hdr.udp);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
