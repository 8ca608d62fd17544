// uBPF: packets pass unless mark_to_drop() (mark_to_pass() undoes it) and leave on
// std.output_port; a Register counts packets per input port and the count is written into the
// IPv4 id; NAT of the destination keeps the checksum with csum_replace4; hash(lookup3) of the
// source lands in the tos byte.
#include <core.p4>
#include <ubpf_model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct headers_t { eth_t eth; ipv4_t ip; }
struct meta_t { bit<32> seen; bit<32> h; }

parser prs(packet_in p, out headers_t h, inout meta_t m, inout standard_metadata std) {
    state start {
        p.extract(h.eth);
        transition select(h.eth.type) { 0x0800: ip; default: accept; }
    }
    state ip { p.extract(h.ip); transition accept; }
}

control pipe(inout headers_t h, inout meta_t m, inout standard_metadata std) {
    Register<bit<32>, bit<32>>(4) per_port;
    action nat(bit<32> to) {
        h.ip.csum = csum_replace4(h.ip.csum, h.ip.dst, to);
        h.ip.dst = to;
    }
    table rewrite {
        key = { h.ip.dst : exact; }
        actions = { nat; NoAction; }
        default_action = NoAction;
    }
    apply {
        std.output_port = std.input_port + 1;
        if (!h.ip.isValid()) {
            return;
        }
        m.seen = per_port.read(std.input_port) + 1;
        per_port.write(std.input_port, m.seen);
        h.ip.id = m.seen[15:0];
        if (h.ip.proto == 6) {
            mark_to_drop();
            if (h.ip.ttl == 0xff) {
                mark_to_pass();
            }
        }
        if (h.ip.tos == 0xee) {
            hash(m.h, HashAlgorithm.lookup3, {h.ip.src});
            h.ip.tos = m.h[7:0];
        }
        rewrite.apply();
    }
}

control dprs(packet_out p, in headers_t h) {
    apply { p.emit(h.eth); p.emit(h.ip); }
}

ubpf(prs(), pipe(), dprs()) main;
