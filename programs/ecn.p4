/* -*- P4_16 -*- */
/*
 * ecn.p4 -- IPv4 router with ECMP that marks ECN Congestion Experienced in egress
 * from the real egress queue depth in bytes (v1model).
 *
 * Forwarding is ecmp_router.p4's (same table and action names, so the entries that
 * dataplane.net.generators writes load unchanged):
 *   ipv4_lpm: set_nhop(dmac, port) | set_ecmp(group, count) -> ecmp_nhop | drop;
 *   non-IPv4, bad header checksum and TTL <= 1 are dropped; TTL - 1 on the way out;
 *   egress smac rewrites the source MAC per output port.
 *
 * ECN (RFC 3168 codepoints in the 2 low bits of the ToS byte, split here into
 * diffserv(6) + ecn(2)): 00 Not-ECT, 01 ECT(1), 10 ECT(0), 11 CE. Only ECT(0)/ECT(1)
 * packets are ever marked (ecn := 11); Not-ECT is never touched and CE stays CE.
 *
 * Queue depth q, in BYTES: v1model has no byte-depth field (enq_qdepth/deq_qdepth
 * count packets), so the program reads the register `queue_bytes[egress_port]`.
 * In a dataplane network, dataplane.net.ecn.attach_queue_bytes(net) keeps it equal
 * to the bytes still waiting in that port's egress queue at the moment this packet
 * leaves it (egress runs at dequeue), the quantity a traffic manager's ECN logic
 * compares with its thresholds (HPCC/ns-3 switch-mmu ShouldSendCN). In STF tests and
 * `dataplane run-packet` there is no queue: write the register to set q.
 *
 * Marking profile per egress port, from the control plane (table ecn_profile, exact
 * on egress_port; set its default action to cover every port):
 *   ecn_off()                       no marking (the default: a plain drop-tail router)
 *   ecn_step(k)                     mark iff q >= k                  (step, DCTCP-style)
 *   ecn_red(kmin, kmax, pmax)       q <  kmin: never
 *                                   kmin <= q < kmax: with probability
 *                                       pmax/65536 * (q - kmin) / (kmax - kmin)
 *                                   q >= kmax: always
 *   pmax is a fraction in units of 1/65536 (65536 = 1.0; 0.2 -> 13107). The draw is
 *   v1model random() in [0, 65535]: mark iff r * (kmax - kmin) < pmax * (q - kmin),
 *   done in 64 bits so nothing overflows. DCTCP is ecn_red(K, K, any) == ecn_step(K).
 *
 * Counter ce_marked[port] counts the packets this switch marked, per egress port.
 * The IPv4 header checksum covers diffserv and ecn and is recomputed on egress.
 *
 * Control plane example: programs/ecn.json.
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
    counter(512, CounterType.packets) ce_marked;

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
