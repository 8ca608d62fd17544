/* Entries written in the program.
 *
 * classify: `const entries` with ternary, range and optional keys (which STF cannot
 * add). Without explicit priorities p4c gives the first entry the highest priority,
 * so among overlapping entries the one written first wins. Range bounds are
 * inclusive; `_` matches anything.
 * lpm_c: const lpm entries (value &&& prefix mask): the longest prefix wins, not the first.
 * prio: non-const `entries` with explicit priorities: the larger priority wins.
 * The control plane can still add to prio; its default action is a const one.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action set_g(bit<8> v) { hdr.obs.g = v; }
    table classify {
        key = {
            hdr.obs.e : ternary;
            hdr.obs.c : range;
            hdr.obs.f : optional;
        }
        actions = { set_g; }
        default_action = set_g(0xEE);
        const entries = {
            (0x10 &&& 0xF0, 1 .. 10, 5) : set_g(1);
            (_,             5 .. 20, _) : set_g(2);
            (0x11,          _,       _) : set_g(3);
            (_,             _,       9) : set_g(4);
        }
    }

    action set_b(bit<32> v) { hdr.obs.b = v; }
    table lpm_c {
        key = { hdr.obs.a : lpm; }
        actions = { set_b; NoAction; }
        default_action = NoAction();
        const entries = {
            0x0a000000 &&& 0xff000000 : set_b(8);
            0x0a010000 &&& 0xffff0000 : set_b(16);
            0x0a010100 &&& 0xffffff00 : set_b(24);
        }
    }

    action set_d(bit<16> v) { hdr.obs.d = v; }
    table prio {
        key = { hdr.obs.h : ternary; }
        actions = { set_d; }
        const default_action = set_d(0xffff);
        entries = {
            priority = 30: 0x11 &&& 0xFF : set_d(30);
            priority = 10: 0x01 &&& 0x0F : set_d(10);
            priority = 5:  0x00 &&& 0x00 : set_d(5);
        }
    }

    apply {
        sm.egress_spec = 1;
        classify.apply();
        lpm_c.apply();
        prio.apply();
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
