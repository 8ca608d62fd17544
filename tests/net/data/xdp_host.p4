// An XDP program for a host's NIC: UDP to port 9 is dropped (and counted), UDP to port 7 is
// answered by the NIC itself (addresses and ports swapped, XDP_TX), VXLAN (UDP 4789) is
// decapsulated and the inner frame passed to the host's stack; everything else passes.
#include <core.p4>
#include <xdp_model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
header udp_t { bit<16> sport; bit<16> dport; bit<16> len; bit<16> csum; }
header vxlan_t { bit<8> flags; bit<24> rsvd; bit<24> vni; bit<8> rsvd2; }
struct headers_t { eth_t eth; ipv4_t ip; udp_t udp; vxlan_t vxlan; eth_t inner; }

parser prs(packet_in p, out headers_t h) {
    state start {
        p.extract(h.eth);
        transition select(h.eth.type) { 0x0800: ip; default: accept; }
    }
    state ip {
        p.extract(h.ip);
        transition select(h.ip.ihl, h.ip.proto) { (5, 17): udp; default: accept; }
    }
    state udp {
        p.extract(h.udp);
        transition select(h.udp.dport) { 4789: vxlan; default: accept; }
    }
    state vxlan { p.extract(h.vxlan); p.extract(h.inner); transition accept; }
}

control sw(inout headers_t h, in xdp_input imd, out xdp_output omd) {
    CounterArray(4, false) stats;   // 0: dropped, 1: echoed, 2: decapsulated
    apply {
        omd.output_action = xdp_action.XDP_PASS;
        if (h.vxlan.isValid()) {
            h.eth.setInvalid();
            h.ip.setInvalid();
            h.udp.setInvalid();
            h.vxlan.setInvalid();
            stats.increment(2);
        } else if (h.udp.isValid() && h.udp.dport == 9) {
            omd.output_action = xdp_action.XDP_DROP;
            stats.increment(0);
        } else if (h.udp.isValid() && h.udp.dport == 7) {
            bit<48> mac = h.eth.dst; h.eth.dst = h.eth.src; h.eth.src = mac;
            bit<32> addr = h.ip.dst; h.ip.dst = h.ip.src; h.ip.src = addr;
            bit<16> port = h.udp.dport; h.udp.dport = h.udp.sport; h.udp.sport = port;
            h.udp.csum = 0;
            omd.output_action = xdp_action.XDP_TX;
            stats.increment(1);
        }
    }
}

control dep(in headers_t h, packet_out p) {
    apply { p.emit(h.eth); p.emit(h.ip); p.emit(h.udp); p.emit(h.vxlan); p.emit(h.inner); }
}

xdp(prs(), sw(), dep()) main;
