/*
 * ipv4_lpm_ebpf.p4 -- the work of programs/ipv4_router.p4 as an eBPF filter (ebpfFilter), for
 * tools/bench_pps.py: parse Ethernet and IPv4, verify the IPv4 checksum, longest-prefix match
 * on the destination, rewrite the MACs, decrement the TTL and recompute the checksum; a hit
 * accepts the packet, a miss drops it. (An eBPF filter has no deparser and no output port:
 * the rewrite stays in the program, the packet passes as received.)
 */
#include <core.p4>
#include <xdp_model.p4>    /* ebpf_model.p4 plus ebpf_ipv4_checksum */

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    bit<32> srcAddr; bit<32> dstAddr;
}
struct headers { ethernet_t ethernet; ipv4_t ipv4; }

parser prs(packet_in packet, out headers hdr) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 { packet.extract(hdr.ipv4); transition accept; }
}

control filt(inout headers hdr, out bool pass) {
    bool checksum_ok = false;
    action drop() { pass = false; }
    action ipv4_forward(bit<48> dstAddr, bit<32> port) {
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        pass = true;
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { ipv4_forward; drop; NoAction; }
        implementation = hash_table(1024);
        default_action = drop();
    }
    apply {
        pass = false;
        if (hdr.ipv4.isValid()) {
            checksum_ok = ebpf_ipv4_checksum(hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
                                             hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset,
                                             hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.srcAddr,
                                             hdr.ipv4.dstAddr) == hdr.ipv4.hdrChecksum;
            ipv4_lpm.apply();
            hdr.ipv4.hdrChecksum = ebpf_ipv4_checksum(hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
                                                      hdr.ipv4.totalLen, hdr.ipv4.identification, hdr.ipv4.flags,
                                                      hdr.ipv4.fragOffset, hdr.ipv4.ttl, hdr.ipv4.protocol,
                                                      hdr.ipv4.srcAddr, hdr.ipv4.dstAddr);
        }
    }
}

ebpfFilter(prs(), filt()) main;
