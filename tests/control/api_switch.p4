/* The program behind tests/control/test_switch_api.py: one table per key kind, an
 * action selector, registers, counters (direct and indexed), a meter and a digest.
 *
 * IPv4 packets pick the table under test with their diffserv byte:
 *   0 ipv4_lpm (lpm, direct counter, @defaultonly NoAction)
 *   1 acl      (ternary + ternary, @tableonly set_port)
 *   2 port_ranges, @name'd "MyIngress.ranges" (range + optional)
 *   3 ecmp     (exact + selector key, action_selector crc16)
 *   4 registers: identification = reg32[1][15:0]; reg32[2] = reg32[1] + 1; port 1
 *   5 meter:     identification = colour of pmeter[0]; port 1
 * Other frames go through mac_exact (exact + exact, const default_action drop()).
 * Every packet counts in port_counter[ingress_port] and looks its source MAC up in
 * smac, whose default action sends a digest (src MAC, ingress port). Ingress and
 * egress both have a table named "stats" (an ambiguous short name).
 */
#include <core.p4>
#include <v1model.p4>

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
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

struct learn_t {
    bit<48> srcAddr;
    bit<9>  port;
}

struct metadata {
    bit<8> color;
}

parser MyParser(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pk.extract(hdr.ipv4);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) lpm_counter;
    counter(8, CounterType.packets_and_bytes) port_counter;
    register<bit<32>>(16) reg32;
    register<bit<8>>(4) reg8;
    meter(4, MeterType.packets) pmeter;
    action_selector(HashAlgorithm.crc16, 32w64, 32w16) ecmp_selector;

    action drop() { mark_to_drop(sm); }
    action forward(bit<48> dmac, bit<9> port) {
        hdr.ethernet.dstAddr = dmac;
        sm.egress_spec = port;
    }
    action set_port(bit<9> port) { sm.egress_spec = port; }
    action set_flag(bool flag) {
        sm.egress_spec = 7;
        if (flag) { sm.egress_spec = 8; }
    }
    action learn() {
        digest<learn_t>(1, { hdr.ethernet.srcAddr, sm.ingress_port });
    }

    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr : lpm; }
        actions = { forward; drop; @defaultonly NoAction; }
        default_action = drop();
        counters = lpm_counter;
    }
    table acl {
        key = {
            hdr.ipv4.srcAddr  : ternary;
            hdr.ipv4.protocol : ternary;
        }
        actions = { @tableonly set_port; drop; NoAction; }
        default_action = NoAction();
    }
    @name("MyIngress.ranges")
    table port_ranges {
        key = {
            hdr.ipv4.ttl      : range;
            hdr.ipv4.protocol : optional;
        }
        actions = { set_port; set_flag; NoAction; }
        default_action = NoAction();
    }
    table ecmp {
        key = {
            hdr.ipv4.dstAddr : exact;
            hdr.ipv4.srcAddr : selector;
        }
        actions = { set_port; NoAction; }
        implementation = ecmp_selector;
        default_action = NoAction();
    }
    table mac_exact {
        key = {
            hdr.ethernet.dstAddr   : exact;
            hdr.ethernet.etherType : exact @name("etype");
        }
        actions = { set_port; drop; }
        const default_action = drop();
    }
    table smac {
        key = { hdr.ethernet.srcAddr : exact; }
        actions = { learn; NoAction; }
        default_action = learn();
    }
    table stats {
        actions = { NoAction; }
        default_action = NoAction();
    }

    apply {
        stats.apply();
        port_counter.count((bit<32>) sm.ingress_port);
        smac.apply();
        if (hdr.ipv4.isValid()) {
            if (hdr.ipv4.diffserv == 0) {
                ipv4_lpm.apply();
            } else if (hdr.ipv4.diffserv == 1) {
                acl.apply();
            } else if (hdr.ipv4.diffserv == 2) {
                port_ranges.apply();
            } else if (hdr.ipv4.diffserv == 3) {
                ecmp.apply();
            } else if (hdr.ipv4.diffserv == 4) {
                bit<32> v;
                reg32.read(v, 1);
                hdr.ipv4.identification = v[15:0];
                reg32.write(2, v + 1);
                sm.egress_spec = 1;
            } else if (hdr.ipv4.diffserv == 5) {
                pmeter.execute_meter(0, meta.color);
                hdr.ipv4.identification = (bit<16>) meta.color;
                sm.egress_spec = 1;
            }
        } else {
            mac_exact.apply();
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    table stats {
        actions = { NoAction; }
        default_action = NoAction();
    }
    apply { stats.apply(); }
}
control MyComputeChecksum(inout headers hdr, inout metadata meta) { apply { } }

control MyDeparser(packet_out pk, in headers hdr) {
    apply {
        pk.emit(hdr.ethernet);
        pk.emit(hdr.ipv4);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
