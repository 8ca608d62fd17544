/* -*- P4_16 -*- */
/*
 * pic_failover.p4 -- IPv4 router with a hierarchical FIB and data-plane fast reroute (v1model).
 *
 * Prefix-independent convergence (BGP PIC, draft-ietf-rtgwg-bgp-pic): many prefixes share
 * one path object, so a failure rewrites that object (or flips a liveness bit it reads),
 * never every prefix.
 *
 * Ingress:
 *   ipv4_lpm (lpm on the IPv4 destination) -> set_path(path_id) | drop (the default).
 *   path (exact on the path id) -> use_path(port0, mac0, port1, mac1, backup_port, backup_mac)
 *       | drop (the default). port0/port1 are two equal-cost primaries (write the same
 *       next hop twice for a single primary); backup is the pre-installed alternative.
 *   Next-hop choice, per packet:
 *     1. ECMP: crc32 over (source, destination, protocol, L4 ports) picks primary 0 or 1
 *        (as in ecmp_router.p4; crc16 would spread badly over the ports).
 *     2. If that primary's port is down, the other primary if it is up.
 *     3. If both primaries are down, the backup (its own liveness is not checked).
 *   Liveness is the register port_status (bit<1>, indexed by port, 1 = up). Inside a
 *   `dataplane run` fabric the emulator keeps it at 1 for up ports and writes 0 once the
 *   switch has detected a port down (after its detection delay), so failover costs no
 *   control-plane write. Outside a fabric (STF, run-packet) registers start at 0, i.e.
 *   every port reads as down: write 1 for the live ports first
 *   (`register_write MyIngress.port_status 2 1`).
 *   A path row whose backup equals its primary has no data-plane backup; a controller then
 *   converges by rewriting the row (one write per path, whatever the number of prefixes).
 *   Forwarding rewrites the destination MAC to the chosen next hop's MAC, the source MAC to
 *   the old destination MAC, and decrements the TTL (as ipv4_router.p4 does).
 *
 * Checksums as in ipv4_router.p4: verified on ingress (flags checksum_error, no drop) and
 * recomputed on egress with HashAlgorithm.csum16.
 *
 * Control plane: dataplane/scenarios/pic_controllers.py (flat, pic and dataplane modes);
 * `dataplane scenario pic` loads up to 500,000 prefixes through dataplane.control.bulk_load.
 * The flat-FIB baseline is programs/flat_fib.p4.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x800;
const bit<8>  PROTO_TCP = 6;
const bit<8>  PROTO_UDP = 17;

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;
typedef bit<16> pathId_t;

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
    bit<1>       has_path;
    pathId_t     path_id;
    bit<1>       has_nhop;
    egressSpec_t port0;
    macAddr_t    mac0;
    egressSpec_t port1;
    macAddr_t    mac1;
    egressSpec_t backup_port;
    macAddr_t    backup_mac;
    bit<1>       ecmp_select;
    bit<1>       up0;
    bit<1>       up1;
    bit<16>      l4_src;
    bit<16>      l4_dst;
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
        /* Ports only from unfragmented TCP/UDP without IP options. */
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

    /* Per-port liveness, kept by the emulator (1 = up); see the header comment. */
    register<bit<1>>(512) port_status;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action set_path(pathId_t path_id) {
        meta.has_path = 1;
        meta.path_id = path_id;
    }

    action use_path(egressSpec_t port0, macAddr_t mac0,
                    egressSpec_t port1, macAddr_t mac1,
                    egressSpec_t backup_port, macAddr_t backup_mac) {
        meta.has_nhop = 1;
        meta.port0 = port0;
        meta.mac0 = mac0;
        meta.port1 = port1;
        meta.mac1 = mac1;
        meta.backup_port = backup_port;
        meta.backup_mac = backup_mac;
    }

    action forward(egressSpec_t port, macAddr_t dmac) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm;
        }
        actions = {
            set_path;
            drop;
        }
        size = 1048576;
        default_action = drop();
    }

    table path {
        key = {
            meta.path_id: exact;
        }
        actions = {
            use_path;
            drop;
        }
        size = 65536;
        default_action = drop();
    }

    apply {
        if (!hdr.ipv4.isValid()) {
            drop();
        } else {
            ipv4_lpm.apply();
            if (meta.has_path == 1) {
                path.apply();
            }
            if (meta.has_nhop == 1) {
                hash(meta.ecmp_select,
                     HashAlgorithm.crc32,
                     (bit<1>)0,
                     { hdr.ipv4.srcAddr,
                       hdr.ipv4.dstAddr,
                       hdr.ipv4.protocol,
                       meta.l4_src,
                       meta.l4_dst },
                     (bit<2>)2);
                port_status.read(meta.up0, (bit<32>)meta.port0);
                port_status.read(meta.up1, (bit<32>)meta.port1);
                if (meta.ecmp_select == 0 && meta.up0 == 1) {
                    forward(meta.port0, meta.mac0);
                } else if (meta.ecmp_select == 1 && meta.up1 == 1) {
                    forward(meta.port1, meta.mac1);
                } else if (meta.up0 == 1) {
                    forward(meta.port0, meta.mac0);
                } else if (meta.up1 == 1) {
                    forward(meta.port1, meta.mac1);
                } else {
                    forward(meta.backup_port, meta.backup_mac);
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
