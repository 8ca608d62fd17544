// Every construct the printer writes, in one v1model program (tests/ir/test_printer.py).
#include <core.p4>
#include <v1model.p4>

typedef bit<48> mac_t;
type bit<32> ip_t;
enum Color { Red, Green }
enum bit<8> Proto { TCP = 6, UDP = 0x11 }
error { BadVersion }
const bit<16> ETH_IPV4 = 16w0x0800;

header eth_h { mac_t dst; mac_t src; bit<16> type; }
header tag_h { bit<3> pcp; bit<1> dei; bit<12> vid; bit<16> type; }
header v4_h { bit<4> version; bit<4> ihl; bit<8> ttl; bit<8> proto; bit<32> src; bit<32> dst; }
header v6_h { bit<8> next; }
header_union ip_u { v4_h v4; v6_h v6; }
struct pair_t<T> { T first; T second; }
struct headers_t { eth_h eth; tag_h[2] tags; ip_u ip; }
struct meta_t { bit<8> n; bool seen; int<8> delta; pair_t<bit<8>> p; Color c; }

bit<8> clamp(in bit<8> x, in bit<8> hi) {
    if (x > hi) {
        return hi;
    } else {
        return x;
    }
}

parser Prs(packet_in pkt, out headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) extra_types;
    bit<8> depth = 0;
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type) {
            0x8100 &&& 0xefff: tags;
            ETH_IPV4: v4;
            extra_types: accept;
            default: accept;
        }
    }
    state tags {
        pkt.extract(h.tags.next);
        depth = depth + 1;
        transition select(h.tags.last.type, depth) {
            (0x8100, 1): tags;
            (0x0800, 1 .. 2): v4;
            (_, _): accept;
        }
    }
    state v4 {
        pkt.extract(h.ip.v4);
        verify(h.ip.v4.version == 4, error.BadVersion);
        transition accept;
    }
}

control Sub(inout meta_t m)(bit<8> step) {
    apply { m.n = m.n |+| step; }
}

action bump(inout bit<8> x) { x = x + 1; }

control Ing(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) {
    Sub(8w2) sub;
    counter(32w64, CounterType.packets) hits;
    register<bit<32>>(8) regs;
    bit<32> tmp;

    action fwd(bit<9> port, @name("vid") bit<12> v) {
        sm.egress_spec = port;
        h.tags[0].vid = v;
        hits.count((bit<32>)port);
    }
    @name("drop_it") action drop() { mark_to_drop(sm); }

    table route {
        key = { h.eth.dst : exact @name("dmac"); h.tags[0].vid : ternary; h.ip.v4.ttl : range; }
        actions = { fwd; @defaultonly drop; .bump(m.n); }
        const default_action = drop();
        const entries = {
            priority = 10 : (0x1, 0x5 &&& 0xf, 1 .. 9) : fwd(1, 2);
            (0x2, _, _) : fwd(2, 3);
        }
        size = 64;
    }

    apply {
        m.delta = -8s3;
        m.p = { first = 1, second = 2 };
        m.seen = h.eth.isValid() && !h.ip.v6.isValid();
        m.c = m.seen ? Color.Red : Color.Green;
        m.n = clamp(h.eth.src[7:0] ^ 8w0b1010, hi = 100);
        m.n = (h.eth.dst[15:8] ++ h.eth.dst[7:0])[11:4];
        m.n = h.eth.src[3+:8];
        m.n = m.n << 2;
        m.n = m.n |-| 1;
        m.n = (bit<8>)(bit<32>)(ip_t)h.ip.v4.src;
        tmp = (bit<32>)(m.n + (bit<8>)Proto.TCP);
        regs.read(tmp, 0);
        regs.write(1, tmp);
        hash(tmp, HashAlgorithm.crc32, 32w0, { h.eth.src, h.eth.dst }, 32w1024);
        m.n += 1;
        bit<8> acc = 0;
        bit<8> j;
        for (bit<8> i = 0, j = 1; i < 4; i = i + 1, j = j + 2) {
            acc = acc + j;
            if (acc > 10) { break; }
        }
        for (bit<8> k in 1 .. 3) { acc = acc + k; }
        switch (route.apply().action_run) {
            fwd: { sub.apply(m); }
            drop:
            default: { bump(m.n); }
        }
        switch (m.n) {
            1: { exit; }
            default: { }
        }
        if (h.ip.v4.isValid()) h.ip.v4.ttl = h.ip.v4.ttl - 1;
        h.tags[1] = {#};
        h.ip.v6.setInvalid();
    }
}

control Eg(inout headers_t h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t h, inout meta_t m) { apply { } }
control Cck(inout headers_t h, inout meta_t m) { apply { } }
control Dep(packet_out pkt, in headers_t h) {
    apply { pkt.emit(h); }
}

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
