/* -*- P4_16 -*- */
/*
 * v1model_2020.p4 -- the V1MODEL_VERSION 20200408 flavour of v1model.
 *
 * V1MODEL_VERSION is defined before v1model.p4 is included, which selects
 * the newer extern signatures: register<T, I>, counter<I> and meter<I>
 * take an index type parameter, and standard_metadata ports are PortId_t.
 * The program is an ECMP router: port_acl (exact, const default_action with
 * an @defaultonly drop) admits traffic, ecmp_group picks a next hop through
 * an action_selector over the flow 5-tuple (selector keys), and per-port
 * statistics are kept in a register and counters indexed by bit<8> and
 * PortId_t. Tables, actions and keys carry @name annotations.
 */
#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

const bit<16> TYPE_IPV4 = 0x800;
const bit<8>  PROTO_TCP = 6;
const bit<8>  PROTO_UDP = 17;

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

// First four bytes of TCP and UDP alike.
header l4_ports_t {
    bit<16> srcPort;
    bit<16> dstPort;
}

struct metadata {
    bit<8> port_idx;
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
        transition select(hdr.ipv4.protocol) {
            PROTO_TCP: parse_l4;
            PROTO_UDP: parse_l4;
            default: accept;
        }
    }

    state parse_l4 {
        packet.extract(hdr.l4);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {  }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

    register<bit<32>, bit<8>>(256) last_len_reg;
    counter<bit<8>>(256, CounterType.packets) port_pkts;

    @name("drop_pkt")
    action drop() {
        mark_to_drop(standard_metadata);
    }

    @name("set_next_hop")
    action set_nhop(macAddr_t dmac, macAddr_t smac, PortId_t port) {
        hdr.ethernet.dstAddr = dmac;
        hdr.ethernet.srcAddr = smac;
        standard_metadata.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    @name("port_acl_table")
    table port_acl {
        key = {
            standard_metadata.ingress_port: exact @name("in_port");
            hdr.ethernet.dstAddr: exact @name("dst_mac");
        }
        actions = {
            NoAction;
            @defaultonly drop;
        }
        const default_action = drop();
        size = 64;
    }

    @name("ecmp_group_table")
    table ecmp_group {
        key = {
            hdr.ipv4.dstAddr: lpm @name("dst_addr");
            hdr.ipv4.srcAddr: selector @name("src_addr");
            hdr.ipv4.protocol: selector;
            hdr.l4.srcPort: selector;
            hdr.l4.dstPort: selector;
        }
        actions = {
            set_nhop;
            drop;
        }
        size = 512;
        implementation = action_selector(HashAlgorithm.crc16, 32w16, 32w14);
    }

    apply {
        meta.port_idx = (bit<8>)standard_metadata.ingress_port;
        port_pkts.count(meta.port_idx);

        bit<32> last_len;
        last_len_reg.read(last_len, meta.port_idx);
        if (last_len != standard_metadata.packet_length) {
            last_len_reg.write(meta.port_idx, standard_metadata.packet_length);
        }

        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            if (port_acl.apply().hit) {
                ecmp_group.apply();
            }
        } else {
            drop();
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {

    counter<PortId_t>(512, CounterType.bytes) egress_bytes;

    apply {
        PortId_t out_port = standard_metadata.egress_port;
        egress_bytes.count(out_port);
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
