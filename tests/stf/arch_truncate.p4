/* truncate(length): the packet leaves with at most `length` bytes (after deparsing;
 * the cut can fall inside a header). Called several times, the smallest length wins.
 * It works from ingress or egress. It cuts when the packet is sent: multicast copies
 * are new packets in BMv2 and are not cut by a truncate() made in ingress, and a
 * recirculated packet comes back whole.
 */
struct metadata {
    @field_list(1)
    bit<8> pass;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.obs.h = 0x11;
        if (hdr.obs.e == 1) {
            truncate(20);
        } else if (hdr.obs.e == 2) {
            truncate(100);
        } else if (hdr.obs.e == 4) {
            truncate(24);
            truncate(18);
        } else if (hdr.obs.e == 5) {
            truncate(18);
            truncate(24);
        } else if (hdr.obs.e == 6) {
            truncate(20);
            sm.mcast_grp = 1;
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.obs.e == 3) {
            truncate(16);
        } else if (hdr.obs.e == 7 && meta.pass == 0) {
            truncate(20);
            meta.pass = 1;
            recirculate_preserving_field_list(1);
        }
        hdr.obs.g = 0x22;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
