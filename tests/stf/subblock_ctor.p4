/* Constructor parameters of sub-controls are compile-time values inside each instance:
 * Add(3, false) and Add(0x10, true) are two instances with their own k and twice; Cnt(2)
 * sizes its register with its argument (cell 1 exists only if the size reached the extern);
 * Twice(one) gets a control instance as argument and applies it twice (one instance, so
 * one register: MyIngress.one.hits counts both applies).
 */
struct metadata { }
#include "arch_common.p4h"

control Add(inout bit<8> x)(bit<8> k, bool twice) {
    apply {
        x = x + k;
        if (twice) {
            x = x + k;
        }
    }
}

control Cnt(out bit<8> n)(bit<32> size) {
    register<bit<8>>(size) r;
    apply {
        n = 0;
        r.read(n, size - 1);
        n = n + 1;
        r.write(size - 1, n);
    }
}

control Inc(inout bit<8> x);

control AddOne(inout bit<8> x) {
    register<bit<8>>(1) hits;
    apply {
        bit<8> h;
        hits.read(h, 0);
        hits.write(0, h + 1);
        x = x + 1 + h;
    }
}

control Twice(inout bit<8> x)(Inc c) {
    apply {
        c.apply(x);
        c.apply(x);
    }
}

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    Add(3, false) add3;
    Add(0x10, true) add32;
    Cnt(2) cnt;
    AddOne() one;
    Twice(one) tw;
    apply {
        sm.egress_spec = 1;
        add3.apply(hdr.obs.e);
        add32.apply(hdr.obs.f);
        cnt.apply(hdr.obs.g);
        tw.apply(hdr.obs.h);
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
