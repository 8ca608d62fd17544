/* Ternary match and priorities. In STF a LARGER priority number wins (the driver
 * sends 10000 - prio to BMv2, where the smallest wins). Between entries of equal
 * priority that both match, BMv2 picks the one added first (lowest handle).
 * A key left out of an add is 0 &&& 0 for a ternary field: it matches anything.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port, bit<16> tag) {
        sm.egress_spec = port;
        hdr.obs.c = tag;
    }
    table acl {
        key = {
            hdr.obs.a : ternary;
            hdr.obs.e : ternary;
        }
        actions = { fwd; NoAction; }
        default_action = NoAction();
    }
    apply {
        acl.apply();
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
