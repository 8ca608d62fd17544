/* v1model's deprecated Checksum16 extern: get(data) is the Internet checksum of the data's
 * fields (obs.a ++ obs.b here), written to obs.c. */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    Checksum16() ck;
    apply {
        hdr.obs.c = ck.get({ hdr.obs.a, hdr.obs.b });
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
