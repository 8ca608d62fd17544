/* Longest-prefix match: the longest matching prefix wins whatever the order the
 * entries were added in; 0/0 is a default route; "0x0b01****" is STF shorthand for
 * 0x0b010000/16. A second table mixes an lpm field with an exact one.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port, bit<16> tag) {
        sm.egress_spec = port;
        hdr.obs.c = tag;
    }
    action drop() { mark_to_drop(sm); }
    table routes {
        key = { hdr.obs.a : lpm; }
        actions = { fwd; drop; }
        default_action = drop();
    }
    action set_d(bit<16> d) { hdr.obs.d = d; }
    table vrf_lpm {
        key = {
            hdr.obs.e : exact;
            hdr.obs.b : lpm;
        }
        actions = { set_d; NoAction; }
        default_action = NoAction();
    }
    apply {
        routes.apply();
        vrf_lpm.apply();
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
