/* Default actions: a const default_action with arguments (runs on every miss; the
 * control plane cannot change it), a table with no default_action (NoAction on a
 * miss), and a keyless table, which always runs its default action.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port, bit<16> tag) {
        sm.egress_spec = port;
        hdr.obs.c = tag;
    }
    table t_const {
        key = { hdr.obs.e : exact; }
        actions = { fwd; }
        const default_action = fwd(7, 0x0777);
    }
    action set_d(bit<16> v) { hdr.obs.d = v; }
    table t_none {
        key = { hdr.obs.e : exact; }
        actions = { set_d; }
    }
    action set_h(bit<8> v) { hdr.obs.h = v; }
    table t_keyless {
        actions = { set_h; }
        default_action = set_h(0x5a);
    }
    apply {
        t_const.apply();
        t_none.apply();
        t_keyless.apply();
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
