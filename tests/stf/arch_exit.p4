/* exit: it ends the control at once (in an action too); the architecture then goes
 * on as usual, so egress_spec and mcast_grp set before the exit still decide where
 * the packet goes, and egress runs. exit in egress skips the rest of egress only.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action leave(bit<9> port) {
        sm.egress_spec = port;
        exit;
    }
    table t {
        key = { hdr.obs.e : exact; }
        actions = { leave; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.obs.e == 1) {
            sm.egress_spec = 2;
            exit;
        }
        t.apply();
        hdr.obs.h = 0x11;
        sm.egress_spec = 3;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.f = (bit<8>) sm.egress_port;
        if (hdr.obs.e == 3) {
            exit;
        }
        hdr.obs.g = 0x22;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
