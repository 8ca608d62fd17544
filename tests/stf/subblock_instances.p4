/* Sub-control instances: two instances of one control each get their own table, action
 * and register (p4c names them MyIngress.c1.t, MyIngress.c2.t, MyIngress.c1.count, ...),
 * applied with arguments. obs.e selects the path:
 *   e=1: c1 with (a, b), then c2 with (a, c); e=2: c2 only.
 * Stage adds the table's action data to its argument `x`, writes the number of packets
 * the instance has seen (its own register) to `n`.
 */
struct metadata { }
#include "arch_common.p4h"

control Stage(inout bit<32> x, out bit<8> n) {
    register<bit<8>>(1) count;
    action add(bit<32> v) { x = x + v; }
    table t {
        key = { x : exact; }
        actions = { add; NoAction; }
        default_action = NoAction();
    }
    apply {
        t.apply();
        bit<8> seen;
        count.read(seen, 0);
        seen = seen + 1;
        count.write(0, seen);
        n = seen;
    }
}

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    Stage() c1;
    Stage() c2;
    apply {
        sm.egress_spec = 1;
        if (hdr.obs.e == 1) {
            c1.apply(hdr.obs.a, hdr.obs.f);
        }
        c2.apply(hdr.obs.b, hdr.obs.g);
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
