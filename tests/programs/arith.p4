/* -*- P4_16 -*- */
/*
 * arith.p4 -- expression workout on a custom "arith" protocol.
 *
 * Frames with etherType 0x88B6 carry arith_t (bit<8>/<16>/<32>, int<8>/<16>
 * operands) and optionally a short or long option (header_union picked by
 * flags[1:0]); the parser rejects op == 0 via verify(..., error.BadOp).
 * Ingress evaluates the operation named by the serializable enum Op and
 * reflects the frame: saturating ops, shifts, slices (r-/l-value), ++,
 * casts, ?:, based/width-prefixed literals, bool ops, % and / by powers of
 * two (p4c strength-reduces them), compound assignments, enums, typedef and
 * type, a function, exit in an action, return in apply, a struct
 * initializer and log_msg.
 */
#include <core.p4>
#include <v1model.p4>

const bit<16> TYPE_ARITH = 0x88B6;

error { BadOp }

typedef bit<48> macAddr_t;
type bit<32> Cookie_t;

enum bit<8> Op { ADD = 1, SUB = 2, SHIFT = 3, BITS = 4, DIV = 5, MAX = 6 }

enum Path { FAST, SLOW }

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header arith_t {
    bit<8>  op;
    bit<8>  a;
    bit<8>  b;
    bit<8>  flags;
    bit<16> w;
    bit<16> v;
    bit<32> d;
    int<8>  s8;
    int<16> s16;
}

header short_opt_t {
    bit<8> kind;
    bit<8> val;
}

header long_opt_t {
    bit<8>  kind;
    bit<24> val;
}

header_union opt_u {
    short_opt_t s;
    long_opt_t  l;
}

struct pair_t {
    bit<8> f1;
    bit<8> f2;
}

struct metadata {
    bit<8> hi;
    bit<8> lo;
}

struct headers {
    ethernet_t ethernet;
    arith_t    arith;
    opt_u      opt;
}

bit<8> max(in bit<8> a, in bit<8> b) {
    return a > b ? a : b;
}

parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {

    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_ARITH: parse_arith;
            default: accept;
        }
    }

    state parse_arith {
        packet.extract(hdr.arith);
        verify(hdr.arith.op != 0, error.BadOp);
        transition select(hdr.arith.flags[1:0]) {
            1: parse_short_opt;
            2: parse_long_opt;
            default: accept;
        }
    }

    state parse_short_opt {
        packet.extract(hdr.opt.s);
        transition accept;
    }

    state parse_long_opt {
        packet.extract(hdr.opt.l);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply {  }
}

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {

    action send_back() {
        macAddr_t tmp = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = hdr.ethernet.srcAddr;
        hdr.ethernet.srcAddr = tmp;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }

    action reject_op() {
        hdr.arith.flags = 8w255;
        send_back();
        exit;
    }

    apply {
        if (!hdr.arith.isValid() || standard_metadata.parser_error != error.NoError) {
            mark_to_drop(standard_metadata);
            return;
        }

        const bit<8> LIMIT = 8w200;
        bit<8> lo = hdr.arith.d[7:0];
        bit<16> acc = 16w0x0F_F0;
        int<4> nib = 4s3;
        bit<8> oct = 0o17;
        Path path = Path.FAST;
        pair_t p;
        p = { f1 = 1, f2 = 2 };

        log_msg("x={}", {hdr.arith.a});

        if (hdr.arith.op == Op.ADD) {
            hdr.arith.a = hdr.arith.a |+| hdr.arith.b;
            hdr.arith.s8 = hdr.arith.s8 |+| 8s0b1010_1010;  // -86 (wraps, p4c warns)
            hdr.arith.w = hdr.arith.w + (bit<16>)hdr.arith.b;
            hdr.arith.s16 = hdr.arith.s16 + (int<16>)nib;
        } else if (hdr.arith.op == Op.SUB) {
            hdr.arith.a = hdr.arith.a |-| hdr.arith.b;
            hdr.arith.s16 = hdr.arith.s16 |-| 16s1000;
            hdr.arith.w = hdr.arith.w - (bit<16>)hdr.arith.b;
            hdr.arith.s8 = -hdr.arith.s8;
        } else if (hdr.arith.op == Op.SHIFT) {
            hdr.arith.d = hdr.arith.d << hdr.arith.b[4:0];
            hdr.arith.w = hdr.arith.w >> 4;
            hdr.arith.w >>= 1;
            hdr.arith.s16 = hdr.arith.s16 >> 2;
            hdr.arith.s8 = (int<8>)(bit<8>)hdr.arith.v;
        } else if (hdr.arith.op == Op.BITS) {
            hdr.arith.d = hdr.arith.w ++ hdr.arith.a ++ lo;
            hdr.arith.v[7:0] = hdr.arith.b;
            hdr.arith.v[15:12] = 4w0xA;
            hdr.arith.flags = ~hdr.arith.flags & oct;
            hdr.arith.w = (acc ^ hdr.arith.w) | 16w1;
        } else if (hdr.arith.op == Op.DIV) {
            hdr.arith.a = hdr.arith.a % 8w16;
            hdr.arith.w = hdr.arith.w / 16w4;
            hdr.arith.b = (bit<8>)(hdr.arith.d / 32w256);
        } else if (hdr.arith.op == Op.MAX) {
            hdr.arith.a = max(hdr.arith.a, hdr.arith.b);
            hdr.arith.b = max(hdr.arith.b, LIMIT) == LIMIT ? p.f1 : p.f2;
        } else {
            reject_op();
        }

        // Compound assignments on a local accumulator.
        acc += hdr.arith.w;
        acc -= 16w1;
        acc &= 16w0x7FFF;
        acc |= (bit<16>)hdr.arith.flags;
        acc ^= hdr.arith.v;
        acc <<= 1;
        hdr.arith.v = acc;

        // Short-circuit evaluation guards the union member reads.
        if ((hdr.opt.s.isValid() && hdr.opt.s.val > LIMIT) ||
            (hdr.opt.l.isValid() && hdr.opt.l.val[7:0] == 8w255)) {
            path = Path.SLOW;
        }
        bool big = hdr.arith.a >= hdr.arith.b;
        if (!big && hdr.arith.w != 0) {
            hdr.arith.b = hdr.arith.b + p.f2;
        }
        if (path == Path.SLOW) {
            hdr.arith.flags = hdr.arith.flags | 8w0x80;
        }

        // Widen a short option into a long one (setValid invalidates s).
        if (hdr.opt.s.isValid()) {
            bit<8> kind = hdr.opt.s.kind;
            bit<8> sv = hdr.opt.s.val;
            hdr.opt.l.setValid();
            hdr.opt.l.kind = kind;
            hdr.opt.l.val = 16w0 ++ sv;
            hdr.arith.flags[1:0] = 2;
        }

        Cookie_t cookie = (Cookie_t)hdr.arith.d;
        hdr.arith.d = (bit<32>)cookie ^ 32w0xDEAD_BEEF;

        meta.hi = hdr.arith.w[15:8];
        meta.lo = hdr.arith.w[7:0];
        hdr.arith.s8 = (meta.hi < meta.lo) ? (int<8>)meta.lo : (int<8>)meta.hi;

        send_back();
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    apply {  }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {  }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.arith);
        packet.emit(hdr.opt);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
