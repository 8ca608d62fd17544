/* -*- P4_16 -*- */
/*
 * hpcc.p4 -- ecn.p4's router (same tables, actions and ECN marking, so the generators'
 * entries and ecn_profile load unchanged) whose egress also stamps HPCC's in-band telemetry
 * into the RoCEv2 data packets that carry it (v1model).
 *
 * HPCC (Li et al., SIGCOMM 2019) needs, per hop, the egress queue length, the bytes the
 * egress port has transmitted, the time the packet left and the port's line rate; its
 * simulator (alibaba-edu/High-Precision-Congestion-Control, int-header.h) packs them in one
 * 8-byte record, and so does this program, in network order:
 *
 *   rate:3   line rate code: 0 25G, 1 50G, 2 100G, 3 200G, 4 400G (int-header.h's table)
 *   ts:24    the simulated clock when the packet leaves its queue, ns, modulo 2^24
 *   tx:20    bytes the port sent before this packet, in units of 512 B, modulo 2^20
 *   qlen:17  bytes waiting in the egress queue behind it, in units of 256 B
 *
 * (units are powers of two so the switch shifts instead of dividing; HPCC's simulator
 * uses 128 B x 4 = 512 B for bytes at 100 Gb/s, and 80 B x 4 = 320 B for the queue).
 *
 * Where: a RoCEv2 packet (UDP destination port 4791) with DSCP HPCC_DSCP carries, right
 * after its 12-byte BTH, a 2-byte shim (nhop, reserved) and room for HPCC_MAX_HOPS records
 * (HPCC's IntHeader: maxHop = 5, fixed size, so the packet does not grow on the way). INT
 * over UDP may mark INT-carrying packets by a DSCP value (INT v2.1's choice besides a UDP
 * port, which int.p4 uses; here the port stays 4791 so RoCE receivers still see RoCE), and
 * HPCC's simulator keeps its INT header after the transport header; this program does both.
 * Each switch writes record number nhop (the first switch on the path writes record 0)
 * and increments nhop; with nhop already at HPCC_MAX_HOPS nothing is written. The UDP
 * checksum is set to 0 (no checksum, RFC 768) when a record is written.
 *
 * The records' sources are three registers the fabric keeps (dataplane.net.devices.
 * switch_node): timestamp_ns[0], queue_bytes[port], port_tx_bytes[port]; the rate code
 * comes from table hpcc_link_rate (exact on egress_port, action set_link_rate(code);
 * the scenario writes one entry per port from its link's rate; default code 2, 100G).
 *
 * The receiver echoes the records in its ACK and the sender runs HPCC's window update
 * (dataplane.net.rdma.hpcc).
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x800;
const bit<8>  PROTO_TCP = 6;
const bit<8>  PROTO_UDP = 17;

const bit<2> ECN_NOT_ECT = 0;
const bit<2> ECN_ECT1    = 1;
const bit<2> ECN_ECT0    = 2;
const bit<2> ECN_CE      = 3;

const bit<16> ROCE_PORT   = 4791;
const bit<6>  HPCC_DSCP   = 0x1A;
#define HPCC_MAX_HOPS 5

const bit<2> PROFILE_OFF  = 0;
const bit<2> PROFILE_STEP = 1;
const bit<2> PROFILE_RED  = 2;

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
    bit<6>    diffserv;
    bit<2>    ecn;
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

header l4_ports_t {
    bit<16> srcPort;
    bit<16> dstPort;
}

header udp_tail_t {
    bit<16> length;
    bit<16> checksum;
}

/* InfiniBand BTH (12 bytes); only its size matters here. */
header bth_t {
    bit<8>  opcode;
    bit<8>  flags;
    bit<16> pkey;
    bit<32> dest_qp;
    bit<32> psn;
}

header hpcc_shim_t {
    bit<8> nhop;
    bit<8> reserved;
}

header hpcc_hop_t {
    bit<3>  rate;
    bit<24> ts;
    bit<20> tx;
    bit<17> qlen;
}

struct metadata {
    bit<1>  use_ecmp;
    bit<16> ecmp_group;
    bit<16> ecmp_select;
    bit<16> l4_src;
    bit<16> l4_dst;
    bit<2>  ecn_profile;
    bit<32> kmin;
    bit<32> kmax;
    bit<32> pmax;
    bit<3>  link_rate;
}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    l4_ports_t l4;
    udp_tail_t udp;
    bth_t      bth;
    hpcc_shim_t hpcc;
    hpcc_hop_t[HPCC_MAX_HOPS] hops;
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
        transition select(hdr.ipv4.protocol, hdr.l4.dstPort, hdr.ipv4.diffserv) {
            (PROTO_UDP, ROCE_PORT, HPCC_DSCP): parse_roce;
            default: accept;
        }
    }

    state parse_roce {
        packet.extract(hdr.udp);
        packet.extract(hdr.bth);
        packet.extract(hdr.hpcc);
        packet.extract(hdr.hops.next);
        packet.extract(hdr.hops.next);
        packet.extract(hdr.hops.next);
        packet.extract(hdr.hops.next);
        packet.extract(hdr.hops.next);
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
              hdr.ipv4.ecn,
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

    /* Bytes waiting in each egress queue when the current packet leaves it (see the top). */
    register<bit<32>>(512) queue_bytes;
    register<bit<32>>(512) port_tx_bytes;
    register<bit<64>>(1) timestamp_ns;
    counter(512, CounterType.packets) ce_marked;

    action set_link_rate(bit<3> code) {
        meta.link_rate = code;
    }

    table hpcc_link_rate {
        key = {
            standard_metadata.egress_port: exact;
        }
        actions = {
            set_link_rate;
        }
        size = 512;
        default_action = set_link_rate(2);
    }

    /* The record this hop adds: what HPCC's sender needs of this egress port right now. */
    action stamp(out hpcc_hop_t hop) {
        bit<32> q;
        bit<32> sent;
        bit<64> now;
        queue_bytes.read(q, (bit<32>)standard_metadata.egress_port);
        port_tx_bytes.read(sent, (bit<32>)standard_metadata.egress_port);
        timestamp_ns.read(now, 0);
        hop.setValid();
        hop.rate = meta.link_rate;
        hop.ts = (bit<24>)now;
        hop.tx = (bit<20>)(sent >> 9);
        hop.qlen = (bit<17>)(q >> 8);
    }

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

    action ecn_off() {
        meta.ecn_profile = PROFILE_OFF;
    }

    action ecn_step(bit<32> k) {
        meta.ecn_profile = PROFILE_STEP;
        meta.kmax = k;
    }

    action ecn_red(bit<32> kmin, bit<32> kmax, bit<32> pmax) {
        meta.ecn_profile = PROFILE_RED;
        meta.kmin = kmin;
        meta.kmax = kmax;
        meta.pmax = pmax;
    }

    table ecn_profile {
        key = {
            standard_metadata.egress_port: exact;
        }
        actions = {
            ecn_off;
            ecn_step;
            ecn_red;
        }
        size = 512;
        default_action = ecn_off();
    }

    action mark_ce() {
        hdr.ipv4.ecn = ECN_CE;
        ce_marked.count((bit<32>)standard_metadata.egress_port);
    }

    apply {
        smac.apply();
        if (hdr.hpcc.isValid() && hdr.hpcc.nhop < HPCC_MAX_HOPS) {
            hpcc_link_rate.apply();
            if (hdr.hpcc.nhop == 0) {
                stamp(hdr.hops[0]);
            } else if (hdr.hpcc.nhop == 1) {
                stamp(hdr.hops[1]);
            } else if (hdr.hpcc.nhop == 2) {
                stamp(hdr.hops[2]);
            } else if (hdr.hpcc.nhop == 3) {
                stamp(hdr.hops[3]);
            } else {
                stamp(hdr.hops[4]);
            }
            hdr.hpcc.nhop = hdr.hpcc.nhop + 1;
            hdr.udp.checksum = 0;
        }
        if (hdr.ipv4.isValid() && (hdr.ipv4.ecn == ECN_ECT0 || hdr.ipv4.ecn == ECN_ECT1)) {
            ecn_profile.apply();
            bit<32> q;
            queue_bytes.read(q, (bit<32>)standard_metadata.egress_port);
            if (meta.ecn_profile == PROFILE_STEP) {
                if (q >= meta.kmax) {
                    mark_ce();
                }
            } else if (meta.ecn_profile == PROFILE_RED) {
                if (q >= meta.kmax) {
                    mark_ce();
                } else if (q > meta.kmin) {
                    bit<16> r;
                    random(r, 16w0, 16w0xFFFF);
                    bit<64> lhs = (bit<64>)r * (bit<64>)(meta.kmax - meta.kmin);
                    bit<64> rhs = (bit<64>)meta.pmax * (bit<64>)(q - meta.kmin);
                    if (lhs < rhs) {
                        mark_ce();
                    }
                }
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
              hdr.ipv4.ecn,
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
        packet.emit(hdr.udp);
        packet.emit(hdr.bth);
        packet.emit(hdr.hpcc);
        packet.emit(hdr.hops);
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
