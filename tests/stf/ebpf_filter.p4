// ebpfFilter: parse Ethernet/IPv4 (anything else is rejected: dropped), drop sources the
// hash_table lists, count accepted packets per protocol, and show that header writes in the
// filter do not reach the packet (there is no deparser).
#include <core.p4>
#include <ebpf_model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct headers_t { eth_t eth; ipv4_t ip; }
error { BadVersion }

parser prs(packet_in p, out headers_t h) {
    state start {
        p.extract(h.eth);
        transition select(h.eth.type) { 0x0800: ip; default: reject; }
    }
    state ip {
        p.extract(h.ip);
        verify(h.ip.version == 4, error.BadVersion);
        transition accept;
    }
}

control pipe(inout headers_t h, out bool pass) {
    CounterArray(256, false) by_proto;
    action Reject() { pass = false; }
    action Allow(bit<8> ttl_floor) { pass = h.ip.ttl >= ttl_floor; }
    table blocked {
        key = { h.ip.src : exact; }
        actions = { Reject; Allow; NoAction; }
        implementation = hash_table(8);
        default_action = NoAction;
    }
    apply {
        pass = true;
        blocked.apply();
        h.ip.ttl = 0;            // no deparser: the packet keeps its TTL
        h.eth.setInvalid();
        if (pass) {
            by_proto.increment((bit<32>)h.ip.proto);
        }
    }
}

ebpfFilter(prs(), pipe()) main;
