/* The program behind tests/control/p4runtime: one table per match kind, an action selector,
 * a const table, indexed and direct counters and meters, a register, a parser value set,
 * a digest and packet-in/packet-out through CPU port 255.
 *
 * Ethernet frames pick what they exercise by EtherType:
 * t_exact has support_timeout (idle timeouts).
 *   0x0800 IPv4: t_lpm (lpm, direct counter, direct meter), then t_ternary, t_range (range +
 *          optional) and t_ecmp (exact + selector), each overriding the egress port on a hit
 *   0x1234 a digest of (source MAC, ingress port), then dropped
 *   0x88b5 sent to the CPU with its ingress port in the packet_in header
 *   a value in the value set custom_types: out of port 3
 * Every frame first looks its destination MAC up in t_exact, counts in port_counter[ingress
 * port] and adds one to seen[ingress port]; t_const maps the frame's first byte of dstAddr.
 */
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 255;

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> _pad;
}

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

struct headers {
    packet_in_t  packet_in;
    packet_out_t packet_out;
    ethernet_t   ethernet;
    ipv4_t       ipv4;
}

struct learn_t {
    bit<48> srcAddr;
    bit<9>  port;
}

struct metadata {
    bit<1> custom;
}

parser MyParser(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) custom_types;
    state start {
        transition select(sm.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        pk.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        pk.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            custom_types: parse_custom;
            default: accept;
        }
    }
    state parse_custom {
        meta.custom = 1;
        transition accept;
    }
    state parse_ipv4 {
        pk.extract(hdr.ipv4);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    counter(16, CounterType.packets_and_bytes) port_counter;
    direct_counter(CounterType.packets_and_bytes) lpm_counter;
    direct_meter<bit<2>>(MeterType.bytes) lpm_meter;
    meter(16, MeterType.packets) port_meter;
    register<bit<32>>(16) seen;
    action_selector(HashAlgorithm.crc16, 32w16, 32w16) ecmp_selector;
    bit<2> color = 0;

    action drop() { mark_to_drop(sm); }
    action set_port(bit<9> port) { sm.egress_spec = port; }
    action forward(bit<48> dmac, bit<9> port) {
        hdr.ethernet.dstAddr = dmac;
        sm.egress_spec = port;
        lpm_meter.read(color);
    }
    action to_cpu() {
        sm.egress_spec = CPU_PORT;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = sm.ingress_port;
    }
    action mark(bit<8> tag) { hdr.ethernet.srcAddr[7:0] = tag; }

    table t_exact {
        key = { hdr.ethernet.dstAddr : exact; }
        actions = { set_port; drop; NoAction; }
        default_action = NoAction();
        support_timeout = true;
    }
    table t_lpm {
        key = { hdr.ipv4.dstAddr : lpm; }
        actions = { forward; drop; @defaultonly NoAction; }
        default_action = NoAction();
        counters = lpm_counter;
        meters = lpm_meter;
    }
    table t_ternary {
        key = { hdr.ipv4.srcAddr : ternary; }
        actions = { set_port; NoAction; }
        default_action = NoAction();
    }
    table t_range {
        key = {
            hdr.ipv4.ttl      : range;
            hdr.ipv4.protocol : optional;
        }
        actions = { set_port; NoAction; }
        default_action = NoAction();
    }
    table t_ecmp {
        key = {
            hdr.ipv4.dstAddr : exact;
            hdr.ipv4.srcAddr : selector;
        }
        actions = { set_port; NoAction; }
        implementation = ecmp_selector;
        default_action = NoAction();
    }
    table t_const {
        key = { hdr.ethernet.dstAddr[47:40] : exact @name("first_byte"); }
        actions = { mark; NoAction; }
        const entries = {
            0xee : mark(0xee);
        }
        const default_action = NoAction();
    }

    apply {
        if (hdr.packet_out.isValid()) {
            sm.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            exit;
        }
        port_counter.count((bit<32>) sm.ingress_port);
        bit<32> n;
        seen.read(n, (bit<32>) sm.ingress_port);
        seen.write((bit<32>) sm.ingress_port, n + 1);
        t_exact.apply();
        t_const.apply();
        if (meta.custom == 1) {
            sm.egress_spec = 3;
        } else if (hdr.ethernet.etherType == 0x1234) {
            digest<learn_t>(1, { hdr.ethernet.srcAddr, sm.ingress_port });
            mark_to_drop(sm);
        } else if (hdr.ethernet.etherType == 0x88b5) {
            to_cpu();
        } else if (hdr.ipv4.isValid()) {
            t_lpm.apply();
            t_ternary.apply();
            t_range.apply();
            t_ecmp.apply();
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }
control MyComputeChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyDeparser(packet_out pk, in headers hdr) {
    apply {
        pk.emit(hdr.packet_in);
        pk.emit(hdr.ethernet);
        pk.emit(hdr.ipv4);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
