/* Dropping in egress. BMv2 starts egress with egress_spec set to drop_port + 1 = 512,
 * which the 9-bit field stores as 0 (obs.c shows it), so it is not a drop;
 * mark_to_drop (or egress_spec = 511) in egress drops the packet; a later
 * assignment undoes it; any other egress_spec value does not change the output
 * port, which is egress_port.
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = (bit<9>) hdr.obs.h;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.c = (bit<16>) sm.egress_spec;
        if (hdr.obs.e == 1) {
            mark_to_drop(sm);
        } else if (hdr.obs.e == 2) {
            sm.egress_spec = 7;
        } else if (hdr.obs.e == 3) {
            mark_to_drop(sm);
            sm.egress_spec = 5;
        } else if (hdr.obs.e == 4) {
            sm.egress_spec = 511;
        } else if (hdr.obs.e == 5) {
            sm.egress_port = 6;
        }
        hdr.obs.f = (bit<8>) sm.egress_port;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
