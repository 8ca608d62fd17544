// XDP: every xdp_action, chosen by a table on the destination MAC. XDP_PASS decrements the TTL
// and fixes the checksum incrementally (csum_replace2); XDP_TX swaps the MACs and recomputes
// the checksum (ebpf_ipv4_checksum); XDP_REDIRECT pushes a VLAN tag carrying the input port;
// no entry leaves omd zeroed: XDP_ABORTED. A non-IPv4 frame is rejected by the parser (aborted).
#include <core.p4>
#include <xdp_model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header vlan_t { bit<16> tci; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct headers_t { eth_t eth; vlan_t vlan; ipv4_t ip; }

parser prs(packet_in p, out headers_t h) {
    state start {
        p.extract(h.eth);
        transition select(h.eth.type) { 0x0800: ip; default: reject; }
    }
    state ip { p.extract(h.ip); transition accept; }
}

control sw(inout headers_t h, in xdp_input imd, out xdp_output omd) {
    action pass() {
        bit<16> old = h.ip.ttl ++ h.ip.proto;
        h.ip.ttl = h.ip.ttl - 1;
        h.ip.csum = csum_replace2(h.ip.csum, old, h.ip.ttl ++ h.ip.proto);
        omd.output_action = xdp_action.XDP_PASS;
    }
    action tx() {
        bit<48> t = h.eth.dst;
        h.eth.dst = h.eth.src;
        h.eth.src = t;
        h.ip.tos = 0x10;
        h.ip.csum = ebpf_ipv4_checksum(h.ip.version, h.ip.ihl, h.ip.tos, h.ip.len, h.ip.id, h.ip.flags,
                                       h.ip.frag, h.ip.ttl, h.ip.proto, h.ip.src, h.ip.dst);
        omd.output_action = xdp_action.XDP_TX;
    }
    action redirect(bit<32> port) {
        h.vlan.setValid();
        h.vlan.tci = imd.input_port[15:0];
        h.vlan.type = h.eth.type;
        h.eth.type = 0x8100;
        omd.output_action = xdp_action.XDP_REDIRECT;
        omd.output_port = port;
    }
    action drop() { omd.output_action = xdp_action.XDP_DROP; }
    table by_dst {
        key = { h.eth.dst : exact; }
        actions = { pass; tx; redirect; drop; NoAction; }
        implementation = hash_table(64);
        default_action = NoAction;
    }
    apply { by_dst.apply(); }
}

control dep(in headers_t h, packet_out p) {
    apply { p.emit(h.eth); p.emit(h.vlan); p.emit(h.ip); }
}

xdp(prs(), sw(), dep()) main;
