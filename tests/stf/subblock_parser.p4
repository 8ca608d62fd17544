/* Sub-parsers run in line: the caller's state stops at the apply, the callee's states run
 * from its start, and its accept continues the caller's state after the call (a local
 * declared before the call is still there). Its reject ends the whole parse. `opt` is
 * applied in two states, `Opt.apply` (an anonymous instance) in a third.
 */
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> etype; }
header obs_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
header opt_t { bit<8> kind; bit<8> val; }

struct headers { ethernet_t eth; obs_t obs; opt_t o1; opt_t o2; }
struct metadata { bit<8> count; }

parser Opt(packet_in pk, out opt_t o, inout bit<8> count) {
    state start {
        pk.extract(o);
        transition select(o.kind) {
            1: more;
            0xff: reject;
            default: accept;
        }
    }
    state more {
        count = count + 1;
        transition accept;
    }
}

parser MyParser(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    Opt() opt;
    state start {
        pk.extract(hdr.eth);
        pk.extract(hdr.obs);
        bit<8> before = hdr.obs.a;
        opt.apply(pk, hdr.o1, meta.count);
        hdr.obs.b = before + meta.count;
        transition select(hdr.o1.val) {
            2: second;
            3: third;
            default: accept;
        }
    }
    state second {
        opt.apply(pk, hdr.o2, meta.count);
        transition accept;
    }
    state third {
        Opt.apply(pk, hdr.o2, meta.count);
        transition accept;
    }
}

control NoVerify(inout headers hdr, inout metadata meta) { apply { } }
control NoCompute(inout headers hdr, inout metadata meta) { apply { } }

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.obs.c = meta.count;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }

control MyDeparser(packet_out pk, in headers hdr) {
    apply {
        pk.emit(hdr.eth);
        pk.emit(hdr.obs);
        pk.emit(hdr.o1);
        pk.emit(hdr.o2);
    }
}

V1Switch(MyParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), MyDeparser()) main;
