/* Flooding with source pruning: the group holds every port and egress drops the copy
 * going back out of the port the packet came in on (ingress_port survives
 * replication, so egress can compare it with egress_port).
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.mcast_grp = 1;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == sm.ingress_port) {
            mark_to_drop(sm);
        }
        hdr.obs.f = (bit<8>) sm.egress_port;
        hdr.obs.h = (bit<8>) sm.ingress_port;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
