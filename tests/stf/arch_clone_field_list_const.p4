/* @field_list(FL) with FL a named constant (as the P4 tutorials' flowcache writes it): the
 * clone keeps the fields of list FL; values are those at the end of ingress (set after the
 * clone_preserving_field_list call here). Egress writes a = x ++ y ++ z ++ 0, g = instance_type.
 */
const int FL_KEEP = 3;
const bit<8> FL_OTHER = 8w4;
struct metadata {
    @field_list(FL_KEEP)
    bit<8> x;
    @field_list(FL_KEEP, FL_OTHER)
    bit<8> y;
    bit<8> z;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.obs.e == 1) {
            clone_preserving_field_list(CloneType.I2E, 5, FL_KEEP);
        } else {
            clone_preserving_field_list(CloneType.I2E, 5, FL_OTHER);
        }
        meta.x = 1;
        meta.y = 2;
        meta.z = 3;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.a = meta.x ++ meta.y ++ meta.z ++ 8w0;
        hdr.obs.g = (bit<8>) sm.instance_type;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
