/* Dropping in ingress. mark_to_drop sets egress_spec = 511 and mcast_grp = 0;
 * assigning 511 drops too; a later assignment undoes mark_to_drop; multicast is
 * decided before the drop check, so setting mcast_grp after mark_to_drop still
 * replicates. obs.e selects the case; egress writes instance_type into obs.g.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.obs.e == 1) {
            mark_to_drop(sm);
        } else if (hdr.obs.e == 2) {
            mark_to_drop(sm);
            sm.egress_spec = 3;
        } else if (hdr.obs.e == 3) {
            sm.mcast_grp = 1;
            mark_to_drop(sm);
        } else if (hdr.obs.e == 4) {
            sm.egress_spec = 511;
        } else if (hdr.obs.e == 5) {
            mark_to_drop(sm);
            sm.mcast_grp = 1;
        } else if (hdr.obs.e == 6) {
            sm.egress_spec = 2;
        } else if (hdr.obs.e == 7) {
            sm.egress_spec = 511;
            exit;
        }
        hdr.obs.h = 0x99;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.g = (bit<8>) sm.instance_type;
        hdr.obs.f = (bit<8>) sm.egress_port;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
