/* -*- P4_16 -*- */
/*
 * int.p4 -- In-band Network Telemetry, INT-MD over UDP (P4.org INT specification v2.1),
 * on an IPv4 router with ECMP (v1model).
 *
 * Forwarding is ecn.p4's and ecmp_router.p4's (the same ipv4_lpm, ecmp_nhop and smac tables
 * and actions, so the entries dataplane.net.topology.generators writes load unchanged);
 * there is no ECN marking here.
 *
 * Roles, set by tables (an empty table: the role is off):
 *   int_transit (egress, no key; default action int_set_transit(switch_id, mtu)): this switch is
 *               INT-capable: it adds its metadata to INT packets it forwards (transit), as the
 *               source and the sink do too. mtu: the largest IPv4 packet its links carry; a hop
 *               whose metadata would pass it sets the M bit instead.
 *   int_source  (ingress, ternary on ingress_port, IPv4 source and destination, UDP destination
 *               port; priorities as usual) -> int_set_source(max_hops, instructions): UDP packets
 *               that match get the shim and INT-MD headers (Remaining Hop Count = max_hops,
 *               Instruction Bitmap = instructions, Hop ML computed from it) at egress.
 *   int_sink    (egress, exact on egress_port) -> int_set_sink(): packets leaving on that port
 *               lose the INT headers and stack (the UDP destination port comes back from the
 *               shim) and a copy becomes a telemetry report (clone session INT_REPORT_SESSION).
 *   int_report  (egress, no key; default action int_report_to(dmac, src_ip, dst_ip, src_port,
 *               dst_port)): where the sink's reports go (the collector), sent on the clone
 *               session's port to next hop dmac; routed by the fabric from there.
 *
 * INT over UDP (marked by a UDP destination port, the spec's first way; NPT = 1): the source
 * moves the UDP destination port into the shim and writes INT_UDP_PORT (the spec's INT_TBD) in
 * its place; the shim's Length counts the 12-byte INT-MD header and the stack in 4-byte words.
 * Every INT switch pushes Hop ML words on top of the stack, in the order of the instruction
 * bits, and decrements Remaining Hop Count; at 0 it sets E instead, and M where the packet
 * would pass the MTU; bits 9-14 (reserved) or a Hop ML that is not this bitmap's length make it
 * add nothing (the spec's other choice).
 *
 * Per-hop metadata (instruction bit: field, what this program puts there):
 *   0  node id (32)                      int_transit's switch_id
 *   1  ingress port id (16), egress (16) standard_metadata ingress_port and egress_port
 *   2  hop latency (32)                  egress timestamp - ingress timestamp, ns (0xFFFFFFFE at most)
 *   3  queue id (8), occupancy (24)      priority (the queue a port with traffic classes uses);
 *                                        bytes waiting in that queue when the packet leaves it
 *                                        (register queue_bytes), 0xFFFFFE at most
 *   4  ingress timestamp (64)            ns, simulated: when the packet arrived
 *   5  egress timestamp (64)             ns, simulated: when it left the egress queue
 *   6  level 2 port ids (32 + 32)        all ones: no logical interfaces here
 *   7  egress port tx utilisation (32)   NOT a rate: the bytes the egress port had sent before
 *                                        this packet, modulo 2^32 (register port_tx_bytes); a rate
 *                                        is the difference between two packets over their egress
 *                                        timestamps (what HPCC computes)
 *   8  buffer id (8), occupancy (24)     all ones: no shared buffer here
 *   15 checksum complement (32)          all ones: the UDP checksum is recomputed instead
 *
 * The emulator's fabric keeps three registers this program declares (dataplane.net.devices.
 * switch_node): timestamp_ns[0] (the simulated clock, ns: arrival time when ingress runs, the
 * time the packet leaves its queue when egress runs), queue_bytes[port] and port_tx_bytes[port].
 * Under STF or run-packet nothing writes them: they read what the test wrote.
 *
 * UDP checksums: a non-zero UDP checksum is checked on arrival (a bad one drops the packet, so
 * recomputing it never hides corruption) and recomputed after INT changes the packet; a zero one
 * is left zero (RFC 768). IPv4 header checksums are checked and recomputed as in ecn.p4.
 *
 * The sink's report (Telemetry Report v2.0): Ethernet (to int_report's dmac), IPv4 (DF set,
 * TTL 64), UDP (checksum 0), the group header (Ver 2, hw_id 0, a 22-bit sequence number per
 * switch, node id), one individual report (RepType 1 INT, InType 4 IPv4, MD Length 0, F = 1)
 * with empty main contents, then the packet as the sink saw it from its IPv4 header to the end
 * of the INT stack (the sink's own metadata on top), the payload cut off.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x800;
const bit<8>  PROTO_TCP = 6;
const bit<8>  PROTO_UDP = 17;

const bit<16> INT_UDP_PORT = 5000;       /* the spec's INT_TBD */
const bit<4>  INT_TYPE_MD = 1;
const bit<2>  INT_NPT_UDP_PAYLOAD = 1;   /* the original UDP destination port is in the shim */
const bit<2>  INT_NPT_L4_HEADER = 2;     /* a new UDP header before the original L4 header */
const bit<4>  INT_VERSION = 2;
const bit<32> INT_REPORT_SESSION = 500;  /* the clone session of the sink's reports */
const bit<8>  FL_INT_REPORT = 1;         /* the field list the report copy keeps */
const bit<32> ALL_ONES = 0xFFFFFFFF;

/* egress copies: v1model instance_type */
const bit<32> PKT_INSTANCE_TYPE_EGRESS_CLONE = 2;

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

header tcp_ports_t {
    bit<16> srcPort;
    bit<16> dstPort;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;
}

/* INT shim header for TCP/UDP */
header int_shim_t {
    bit<4>  int_type;
    bit<2>  npt;
    bit<2>  rsvd;
    bit<8>  len;
    bit<16> npt_field;
}

/* INT-MD metadata header */
header int_md_t {
    bit<4>  ver;
    bit<1>  d;
    bit<1>  e;
    bit<1>  m;
    bit<12> rsvd;
    bit<5>  hop_ml;
    bit<8>  remaining_hop_cnt;
    bit<16> instruction_bitmap;
    bit<16> domain_id;
    bit<16> ds_instruction;
    bit<16> ds_flags;
}

/* One header per metadata of this hop, emitted in instruction-bit order. */
header int_node_id_t        { bit<32> node_id; }
header int_l1_port_ids_t    { bit<16> ingress_port_id; bit<16> egress_port_id; }
header int_hop_latency_t    { bit<32> hop_latency; }
header int_q_occupancy_t    { bit<8> q_id; bit<24> q_occupancy; }
header int_ingress_tstamp_t { bit<64> ingress_tstamp; }
header int_egress_tstamp_t  { bit<64> egress_tstamp; }
header int_l2_port_ids_t    { bit<32> ingress_port_id; bit<32> egress_port_id; }
header int_egress_tx_util_t { bit<32> egress_port_tx_util; }
header int_buffer_t         { bit<8> buffer_id; bit<24> buffer_occupancy; }
header int_csum_compl_t     { bit<32> csum_complement; }

/* The metadata of the hops before this one: (shim Length - 3) words, at most 252, parsed in
 * up to four pieces (a varbit holds at most 2048 bits, 64 words). */
header int_stack_t {
    varbit<2048> data;
}

/* Telemetry Report v2.0 */
header report_group_t {
    bit<4>  ver;
    bit<6>  hw_id;
    bit<22> seq_no;
    bit<32> node_id;
}

header report_individual_t {
    bit<4>  rep_type;
    bit<4>  in_type;
    bit<8>  rep_len;
    bit<8>  md_len;
    bit<1>  d;
    bit<1>  q;
    bit<1>  f;
    bit<1>  i;
    bit<4>  rsvd;
    bit<16> rep_md_bits;
    bit<16> domain_id;
    bit<16> ds_md_bits;
    bit<16> ds_md_status;
}

/* What the sink's report copy needs of the packet: its headers before the sink took INT off
 * (an egress-to-egress clone copies the headers as egress leaves them). */
struct int_saved_t {
    ipv4_t               ipv4;
    udp_t                udp;
    int_shim_t           shim;
    int_md_t             md;
    int_node_id_t        node_id;
    int_l1_port_ids_t    l1_port_ids;
    int_hop_latency_t    hop_latency;
    int_q_occupancy_t    q_occupancy;
    int_ingress_tstamp_t ingress_tstamp;
    int_egress_tstamp_t  egress_tstamp;
    int_l2_port_ids_t    l2_port_ids;
    int_egress_tx_util_t egress_tx_util;
    int_buffer_t         buffer;
    int_csum_compl_t     csum_compl;
    int_stack_t          stack0;
    int_stack_t          stack1;
    int_stack_t          stack2;
    int_stack_t          stack3;
}

struct metadata {
    bit<1>  use_ecmp;
    bit<16> ecmp_group;
    bit<16> ecmp_select;
    bit<16> l4_src;
    bit<16> l4_dst;
    /* INT */
    bit<64> ingress_ts;         /* ns, read in ingress */
    bit<1>  int_source;         /* int_source matched */
    bit<8>  int_max_hops;
    bit<16> int_instructions;
    bit<1>  int_enabled;        /* int_transit is set */
    bit<32> int_switch_id;
    bit<16> int_mtu;
    bit<1>  int_sink;
    @field_list(FL_INT_REPORT)
    bit<1>  udp_csum_update;    /* INT changed the UDP datagram */
    @field_list(FL_INT_REPORT)
    int_saved_t saved;
    @field_list(FL_INT_REPORT)
    bit<32> report_switch_id;
}

struct headers {
    ethernet_t           ethernet;
    ipv4_t               report_ipv4;
    udp_t                report_udp;
    report_group_t       report_group;
    report_individual_t  report_individual;
    ipv4_t               ipv4;
    tcp_ports_t          tcp_ports;
    udp_t                udp;
    int_shim_t           int_shim;
    int_md_t             int_md;
    int_node_id_t        int_node_id;
    int_l1_port_ids_t    int_l1_port_ids;
    int_hop_latency_t    int_hop_latency;
    int_q_occupancy_t    int_q_occupancy;
    int_ingress_tstamp_t int_ingress_tstamp;
    int_egress_tstamp_t  int_egress_tstamp;
    int_l2_port_ids_t    int_l2_port_ids;
    int_egress_tx_util_t int_egress_tx_util;
    int_buffer_t         int_buffer;
    int_csum_compl_t     int_csum_compl;
    int_stack_t          int_stack0;
    int_stack_t          int_stack1;
    int_stack_t          int_stack2;
    int_stack_t          int_stack3;
}

/* The simulated clock in ns, written by the fabric before each pipeline run (see the top). */
register<bit<64>>(1) timestamp_ns;

/* Per-hop metadata length, in 4-byte words, that an instruction bitmap asks for (bits 0-8, 15;
 * bits 4-6 are 8 bytes). The reserved bits 9-14 are not counted. */
bit<5> int_hop_words(in bit<16> b) {
    bit<5> w = 0;
    if (b & 0x8000 != 0) { w = w + 1; }
    if (b & 0x4000 != 0) { w = w + 1; }
    if (b & 0x2000 != 0) { w = w + 1; }
    if (b & 0x1000 != 0) { w = w + 1; }
    if (b & 0x0800 != 0) { w = w + 2; }
    if (b & 0x0400 != 0) { w = w + 2; }
    if (b & 0x0200 != 0) { w = w + 2; }
    if (b & 0x0100 != 0) { w = w + 1; }
    if (b & 0x0080 != 0) { w = w + 1; }
    if (b & 0x0001 != 0) { w = w + 1; }
    return w;
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
            (4w5, 13w0, PROTO_TCP): parse_tcp;
            (4w5, 13w0, PROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_tcp {
        packet.extract(hdr.tcp_ports);
        meta.l4_src = hdr.tcp_ports.srcPort;
        meta.l4_dst = hdr.tcp_ports.dstPort;
        transition accept;
    }

    state parse_udp {
        packet.extract(hdr.udp);
        meta.l4_src = hdr.udp.srcPort;
        meta.l4_dst = hdr.udp.dstPort;
        transition select(hdr.udp.dstPort) {
            INT_UDP_PORT: parse_int_shim;
            default: accept;
        }
    }

    state parse_int_shim {
        packet.extract(hdr.int_shim);
        transition select(hdr.int_shim.int_type, hdr.int_shim.len) {
            (INT_TYPE_MD, 8w3 .. 8w255): parse_int_md;
            default: accept;
        }
    }

    /* The stack: what the shim's Length counts beyond the 3-word INT-MD header, 64 words a piece. */
    state parse_int_md {
        packet.extract(hdr.int_md);
        transition select(hdr.int_shim.len) {
            8w3 .. 8w67: parse_stack_last0;
            default: parse_stack_full0;
        }
    }

    state parse_stack_last0 {
        packet.extract(hdr.int_stack0, ((bit<32>)hdr.int_shim.len - 3) * 32);
        transition accept;
    }

    state parse_stack_full0 {
        packet.extract(hdr.int_stack0, 2048);
        transition select(hdr.int_shim.len) {
            8w68 .. 8w131: parse_stack_last1;
            default: parse_stack_full1;
        }
    }

    state parse_stack_last1 {
        packet.extract(hdr.int_stack1, ((bit<32>)hdr.int_shim.len - 67) * 32);
        transition accept;
    }

    state parse_stack_full1 {
        packet.extract(hdr.int_stack1, 2048);
        transition select(hdr.int_shim.len) {
            8w132 .. 8w195: parse_stack_last2;
            default: parse_stack_full2;
        }
    }

    state parse_stack_last2 {
        packet.extract(hdr.int_stack2, ((bit<32>)hdr.int_shim.len - 131) * 32);
        transition accept;
    }

    state parse_stack_full2 {
        packet.extract(hdr.int_stack2, 2048);
        packet.extract(hdr.int_stack3, ((bit<32>)hdr.int_shim.len - 195) * 32);
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
        /* The UDP checksum field is in the sum, so a good datagram sums to 0 (whether its
         * checksum was computed as 0 and sent as 0xFFFF or not). */
        verify_checksum_with_payload(
            hdr.udp.isValid() && hdr.udp.checksum != 0,
            { hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr,
              8w0,
              hdr.ipv4.protocol,
              hdr.udp.length,
              hdr.udp.srcPort,
              hdr.udp.dstPort,
              hdr.udp.length,
              hdr.udp.checksum,
              hdr.int_shim,
              hdr.int_md,
              hdr.int_stack0,
              hdr.int_stack1,
              hdr.int_stack2,
              hdr.int_stack3 },
            16w0,
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

    action int_set_source(bit<8> max_hops, bit<16> instructions) {
        meta.int_source = 1;
        meta.int_max_hops = max_hops;
        meta.int_instructions = instructions;
    }

    /* The watchlist: which UDP flows, entering where, carry INT. */
    table int_source {
        key = {
            standard_metadata.ingress_port: ternary;
            hdr.ipv4.srcAddr: ternary;
            hdr.ipv4.dstAddr: ternary;
            meta.l4_dst: ternary;
        }
        actions = {
            int_set_source;
            NoAction;
        }
        size = 1024;
        default_action = NoAction();
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
            timestamp_ns.read(meta.ingress_ts, 0);
            if (hdr.udp.isValid() && !hdr.int_shim.isValid()) {
                int_source.apply();
            }
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {

    /* Bytes waiting in each egress queue when the current packet leaves it (ecn.p4's). */
    register<bit<32>>(512) queue_bytes;
    /* Bytes each port has sent, before the current packet (modulo 2^32). */
    register<bit<32>>(512) port_tx_bytes;
    /* The sequence number of this switch's next telemetry report. */
    register<bit<32>>(1) report_seq;

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

    action int_set_transit(bit<32> switch_id, bit<16> mtu) {
        meta.int_enabled = 1;
        meta.int_switch_id = switch_id;
        meta.int_mtu = mtu;
    }

    table int_transit {
        key = { }
        actions = {
            int_set_transit;
            NoAction;
        }
        default_action = NoAction();
    }

    action int_set_sink() {
        meta.int_sink = 1;
    }

    table int_sink {
        key = {
            standard_metadata.egress_port: exact;
        }
        actions = {
            int_set_sink;
            NoAction;
        }
        size = 512;
        default_action = NoAction();
    }

    /* The source: shim and INT-MD headers after UDP, the destination port kept in the shim. */
    action int_insert_headers() {
        hdr.int_shim.setValid();
        hdr.int_shim.int_type = INT_TYPE_MD;
        hdr.int_shim.npt = INT_NPT_UDP_PAYLOAD;
        hdr.int_shim.rsvd = 0;
        hdr.int_shim.len = 3;
        hdr.int_shim.npt_field = hdr.udp.dstPort;
        hdr.int_md.setValid();
        hdr.int_md.ver = INT_VERSION;
        hdr.int_md.d = 0;
        hdr.int_md.e = 0;
        hdr.int_md.m = 0;
        hdr.int_md.rsvd = 0;
        hdr.int_md.hop_ml = int_hop_words(meta.int_instructions);
        hdr.int_md.remaining_hop_cnt = meta.int_max_hops;
        hdr.int_md.instruction_bitmap = meta.int_instructions;
        hdr.int_md.domain_id = 0;
        hdr.int_md.ds_instruction = 0;
        hdr.int_md.ds_flags = 0;
        /* the stack: empty */
        hdr.int_stack0.setValid();
        hdr.udp.dstPort = INT_UDP_PORT;
        hdr.udp.length = hdr.udp.length + 16;
        hdr.ipv4.totalLen = hdr.ipv4.totalLen + 16;
        meta.udp_csum_update = 1;
    }

    /* This hop's metadata on top of the stack, in instruction-bit order (see the top). */
    action int_push_metadata() {
        bit<16> b = hdr.int_md.instruction_bitmap;
        bit<64> egress_ts;
        timestamp_ns.read(egress_ts, 0);
        if (b & 0x8000 != 0) {
            hdr.int_node_id.setValid();
            hdr.int_node_id.node_id = meta.int_switch_id;
        }
        if (b & 0x4000 != 0) {
            hdr.int_l1_port_ids.setValid();
            hdr.int_l1_port_ids.ingress_port_id = (bit<16>)standard_metadata.ingress_port;
            hdr.int_l1_port_ids.egress_port_id = (bit<16>)standard_metadata.egress_port;
        }
        if (b & 0x2000 != 0) {
            hdr.int_hop_latency.setValid();
            bit<64> latency = egress_ts - meta.ingress_ts;
            if (egress_ts < meta.ingress_ts) {
                latency = 0;
            } else if (latency > 0xFFFFFFFE) {
                latency = 0xFFFFFFFE;
            }
            hdr.int_hop_latency.hop_latency = (bit<32>)latency;
        }
        if (b & 0x1000 != 0) {
            bit<32> q;
            queue_bytes.read(q, (bit<32>)standard_metadata.egress_port);
            if (q > 0xFFFFFE) {
                q = 0xFFFFFE;
            }
            hdr.int_q_occupancy.setValid();
            hdr.int_q_occupancy.q_id = (bit<8>)standard_metadata.priority;
            hdr.int_q_occupancy.q_occupancy = (bit<24>)q;
        }
        if (b & 0x0800 != 0) {
            hdr.int_ingress_tstamp.setValid();
            hdr.int_ingress_tstamp.ingress_tstamp = meta.ingress_ts;
        }
        if (b & 0x0400 != 0) {
            hdr.int_egress_tstamp.setValid();
            hdr.int_egress_tstamp.egress_tstamp = egress_ts;
        }
        if (b & 0x0200 != 0) {
            hdr.int_l2_port_ids.setValid();
            hdr.int_l2_port_ids.ingress_port_id = ALL_ONES;
            hdr.int_l2_port_ids.egress_port_id = ALL_ONES;
        }
        if (b & 0x0100 != 0) {
            bit<32> sent;
            port_tx_bytes.read(sent, (bit<32>)standard_metadata.egress_port);
            hdr.int_egress_tx_util.setValid();
            hdr.int_egress_tx_util.egress_port_tx_util = sent;
        }
        if (b & 0x0080 != 0) {
            hdr.int_buffer.setValid();
            hdr.int_buffer.buffer_id = 0xFF;
            hdr.int_buffer.buffer_occupancy = 0xFFFFFF;
        }
        if (b & 0x0001 != 0) {
            hdr.int_csum_compl.setValid();
            hdr.int_csum_compl.csum_complement = ALL_ONES;
        }
        bit<16> added = (bit<16>)hdr.int_md.hop_ml << 2;
        hdr.int_md.remaining_hop_cnt = hdr.int_md.remaining_hop_cnt - 1;
        hdr.int_shim.len = hdr.int_shim.len + (bit<8>)hdr.int_md.hop_ml;
        hdr.udp.length = hdr.udp.length + added;
        hdr.ipv4.totalLen = hdr.ipv4.totalLen + added;
        meta.udp_csum_update = 1;
    }

    /* The spec's transit-hop rules: E at hop count 0, M past the MTU, nothing for an
     * instruction set this switch cannot fill exactly (reserved bits, another Hop ML). */
    action int_hop() {
        bit<16> added = (bit<16>)hdr.int_md.hop_ml << 2;
        if (hdr.int_md.remaining_hop_cnt == 0) {
            hdr.int_md.e = 1;
            meta.udp_csum_update = 1;
        } else if (hdr.int_md.instruction_bitmap & 0x007E != 0
                   || int_hop_words(hdr.int_md.instruction_bitmap) != hdr.int_md.hop_ml
                   || hdr.int_md.hop_ml == 0
                   || hdr.int_shim.len > 255 - (bit<8>)hdr.int_md.hop_ml) {
            /* adds nothing */
        } else if (hdr.ipv4.totalLen > meta.int_mtu - added) {
            hdr.int_md.m = 1;
            meta.udp_csum_update = 1;
        } else {
            int_push_metadata();
        }
    }

    /* The report copy keeps the headers as they are now (the sink's metadata on top). */
    action int_save_for_report() {
        meta.saved.ipv4 = hdr.ipv4;
        meta.saved.udp = hdr.udp;
        meta.saved.shim = hdr.int_shim;
        meta.saved.md = hdr.int_md;
        meta.saved.node_id = hdr.int_node_id;
        meta.saved.l1_port_ids = hdr.int_l1_port_ids;
        meta.saved.hop_latency = hdr.int_hop_latency;
        meta.saved.q_occupancy = hdr.int_q_occupancy;
        meta.saved.ingress_tstamp = hdr.int_ingress_tstamp;
        meta.saved.egress_tstamp = hdr.int_egress_tstamp;
        meta.saved.l2_port_ids = hdr.int_l2_port_ids;
        meta.saved.egress_tx_util = hdr.int_egress_tx_util;
        meta.saved.buffer = hdr.int_buffer;
        meta.saved.csum_compl = hdr.int_csum_compl;
        meta.saved.stack0 = hdr.int_stack0;
        meta.saved.stack1 = hdr.int_stack1;
        meta.saved.stack2 = hdr.int_stack2;
        meta.saved.stack3 = hdr.int_stack3;
        meta.report_switch_id = meta.int_switch_id;
    }

    action int_remove_headers() {
        bit<16> int_bytes = ((bit<16>)hdr.int_shim.len + 1) << 2;
        if (hdr.int_shim.npt == INT_NPT_L4_HEADER) {
            /* the UDP header was INT's own: the original L4 header follows the stack */
            hdr.ipv4.protocol = hdr.int_shim.npt_field[7:0];
            hdr.ipv4.totalLen = hdr.ipv4.totalLen - int_bytes - 8;
            hdr.udp.setInvalid();
        } else {
            hdr.udp.dstPort = hdr.int_shim.npt_field;
            hdr.udp.length = hdr.udp.length - int_bytes;
            hdr.ipv4.totalLen = hdr.ipv4.totalLen - int_bytes;
            meta.udp_csum_update = 1;
        }
        hdr.int_shim.setInvalid();
        hdr.int_md.setInvalid();
        hdr.int_node_id.setInvalid();
        hdr.int_l1_port_ids.setInvalid();
        hdr.int_hop_latency.setInvalid();
        hdr.int_q_occupancy.setInvalid();
        hdr.int_ingress_tstamp.setInvalid();
        hdr.int_egress_tstamp.setInvalid();
        hdr.int_l2_port_ids.setInvalid();
        hdr.int_egress_tx_util.setInvalid();
        hdr.int_buffer.setInvalid();
        hdr.int_csum_compl.setInvalid();
        hdr.int_stack0.setInvalid();
        hdr.int_stack1.setInvalid();
        hdr.int_stack2.setInvalid();
        hdr.int_stack3.setInvalid();
    }

    action int_report_to(macAddr_t dmac, ip4Addr_t src_ip, ip4Addr_t dst_ip, bit<16> src_port,
                         bit<16> dst_port) {
        /* the saved packet, from its IPv4 header to the end of the stack */
        hdr.ipv4 = meta.saved.ipv4;
        hdr.udp = meta.saved.udp;
        hdr.int_shim = meta.saved.shim;
        hdr.int_md = meta.saved.md;
        hdr.int_node_id = meta.saved.node_id;
        hdr.int_l1_port_ids = meta.saved.l1_port_ids;
        hdr.int_hop_latency = meta.saved.hop_latency;
        hdr.int_q_occupancy = meta.saved.q_occupancy;
        hdr.int_ingress_tstamp = meta.saved.ingress_tstamp;
        hdr.int_egress_tstamp = meta.saved.egress_tstamp;
        hdr.int_l2_port_ids = meta.saved.l2_port_ids;
        hdr.int_egress_tx_util = meta.saved.egress_tx_util;
        hdr.int_buffer = meta.saved.buffer;
        hdr.int_csum_compl = meta.saved.csum_compl;
        hdr.int_stack0 = meta.saved.stack0;
        hdr.int_stack1 = meta.saved.stack1;
        hdr.int_stack2 = meta.saved.stack2;
        hdr.int_stack3 = meta.saved.stack3;
        hdr.tcp_ports.setInvalid();

        /* 20 (IPv4) + 8 (UDP) + 4 (shim) + the shim's Length in words, in 4-byte words */
        bit<16> inner_words = 8 + (bit<16>)hdr.int_shim.len;
        bit<16> rep_len = 2 + inner_words;
        if (rep_len > 255) {
            rep_len = 255;        /* an 8-bit field: the inner packet is cut to fit */
        }
        bit<16> report_bytes = 8 + 4 + (rep_len << 2);

        bit<32> seq;
        report_seq.read(seq, 0);
        report_seq.write(0, seq + 1);

        hdr.ethernet.dstAddr = dmac;
        hdr.ethernet.etherType = TYPE_IPV4;
        hdr.report_ipv4.setValid();
        hdr.report_ipv4.version = 4;
        hdr.report_ipv4.ihl = 5;
        hdr.report_ipv4.diffserv = 0;
        hdr.report_ipv4.ecn = 0;
        hdr.report_ipv4.totalLen = 20 + 8 + report_bytes;
        hdr.report_ipv4.identification = 0;
        hdr.report_ipv4.flags = 2;       /* DF */
        hdr.report_ipv4.fragOffset = 0;
        hdr.report_ipv4.ttl = 64;
        hdr.report_ipv4.protocol = PROTO_UDP;
        hdr.report_ipv4.srcAddr = src_ip;
        hdr.report_ipv4.dstAddr = dst_ip;
        hdr.report_udp.setValid();
        hdr.report_udp.srcPort = src_port;
        hdr.report_udp.dstPort = dst_port;
        hdr.report_udp.length = 8 + report_bytes;
        hdr.report_udp.checksum = 0;
        hdr.report_group.setValid();
        hdr.report_group.ver = 2;
        hdr.report_group.hw_id = 0;
        hdr.report_group.seq_no = seq[21:0];
        hdr.report_group.node_id = meta.report_switch_id;
        hdr.report_individual.setValid();
        hdr.report_individual.rep_type = 1;     /* INT */
        hdr.report_individual.in_type = 4;      /* IPv4 */
        hdr.report_individual.rep_len = (bit<8>)rep_len;
        hdr.report_individual.md_len = 0;
        hdr.report_individual.d = 0;
        hdr.report_individual.q = 0;
        hdr.report_individual.f = 1;
        hdr.report_individual.i = 0;
        hdr.report_individual.rsvd = 0;
        hdr.report_individual.rep_md_bits = 0;
        hdr.report_individual.domain_id = 0;
        hdr.report_individual.ds_md_bits = 0;
        hdr.report_individual.ds_md_status = 0;
        truncate((bit<32>)(14 + 20 + 8 + report_bytes));
    }

    action int_no_report() {
        mark_to_drop(standard_metadata);
    }

    table int_report {
        key = { }
        actions = {
            int_report_to;
            int_no_report;
        }
        default_action = int_no_report();
    }

    apply {
        smac.apply();
        if (standard_metadata.instance_type == PKT_INSTANCE_TYPE_EGRESS_CLONE) {
            int_report.apply();
        } else if (hdr.udp.isValid()) {
            int_transit.apply();
            if (meta.int_enabled == 1) {
                if (meta.int_source == 1 && !hdr.int_shim.isValid()
                        && hdr.ipv4.totalLen <= meta.int_mtu - 16) {
                    int_insert_headers();
                }
                if (hdr.int_md.isValid() && hdr.int_stack0.isValid() && hdr.int_md.ver == INT_VERSION) {
                    int_hop();
                    int_sink.apply();
                    if (meta.int_sink == 1) {
                        int_save_for_report();
                        clone_preserving_field_list(CloneType.E2E, INT_REPORT_SESSION, FL_INT_REPORT);
                        int_remove_headers();
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
        update_checksum(
            hdr.report_ipv4.isValid(),
            { hdr.report_ipv4.version,
              hdr.report_ipv4.ihl,
              hdr.report_ipv4.diffserv,
              hdr.report_ipv4.ecn,
              hdr.report_ipv4.totalLen,
              hdr.report_ipv4.identification,
              hdr.report_ipv4.flags,
              hdr.report_ipv4.fragOffset,
              hdr.report_ipv4.ttl,
              hdr.report_ipv4.protocol,
              hdr.report_ipv4.srcAddr,
              hdr.report_ipv4.dstAddr },
            hdr.report_ipv4.hdrChecksum,
            HashAlgorithm.csum16);
        /* Invalid headers are left out of the sum; the payload is what follows the stack. */
        update_checksum_with_payload(
            meta.udp_csum_update == 1 && hdr.udp.isValid() && hdr.udp.checksum != 0,
            { hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr,
              8w0,
              hdr.ipv4.protocol,
              hdr.udp.length,
              hdr.udp.srcPort,
              hdr.udp.dstPort,
              hdr.udp.length,
              hdr.int_shim,
              hdr.int_md,
              hdr.int_node_id,
              hdr.int_l1_port_ids,
              hdr.int_hop_latency,
              hdr.int_q_occupancy,
              hdr.int_ingress_tstamp,
              hdr.int_egress_tstamp,
              hdr.int_l2_port_ids,
              hdr.int_egress_tx_util,
              hdr.int_buffer,
              hdr.int_csum_compl,
              hdr.int_stack0,
              hdr.int_stack1,
              hdr.int_stack2,
              hdr.int_stack3 },
            hdr.udp.checksum,
            HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.report_ipv4);
        packet.emit(hdr.report_udp);
        packet.emit(hdr.report_group);
        packet.emit(hdr.report_individual);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.tcp_ports);
        packet.emit(hdr.udp);
        packet.emit(hdr.int_shim);
        packet.emit(hdr.int_md);
        packet.emit(hdr.int_node_id);
        packet.emit(hdr.int_l1_port_ids);
        packet.emit(hdr.int_hop_latency);
        packet.emit(hdr.int_q_occupancy);
        packet.emit(hdr.int_ingress_tstamp);
        packet.emit(hdr.int_egress_tstamp);
        packet.emit(hdr.int_l2_port_ids);
        packet.emit(hdr.int_egress_tx_util);
        packet.emit(hdr.int_buffer);
        packet.emit(hdr.int_csum_compl);
        packet.emit(hdr.int_stack0);
        packet.emit(hdr.int_stack1);
        packet.emit(hdr.int_stack2);
        packet.emit(hdr.int_stack3);
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
