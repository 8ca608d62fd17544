/* clone_preserving_field_list(I2E, session, index): the clone keeps exactly the user
 * metadata fields annotated @field_list(index) (a field may be in several lists, and
 * fields of nested structs count); every other metadata field starts at 0.
 * Egress writes a = x ++ y ++ z ++ inner.p, b = inner.q, g = instance_type.
 */
struct inner_t {
    @field_list(1)
    bit<8> p;
    bit<8> q;
}
struct metadata {
    @field_list(1)
    bit<8> x;
    @field_list(1, 2)
    bit<8> y;
    bit<8> z;
    inner_t inner;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        meta.x = 1;
        meta.y = 2;
        meta.z = 3;
        meta.inner.p = 4;
        meta.inner.q = 5;
        if (hdr.obs.e == 1) {
            clone_preserving_field_list(CloneType.I2E, 5, 1);
        } else if (hdr.obs.e == 2) {
            clone_preserving_field_list(CloneType.I2E, 5, 2);
        } else if (hdr.obs.e == 3) {
            clone_preserving_field_list(CloneType.I2E, 5, 2);
            clone_preserving_field_list(CloneType.I2E, 5, 1);
        }
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.a = meta.x ++ meta.y ++ meta.z ++ meta.inner.p;
        hdr.obs.b = (bit<32>) meta.inner.q;
        hdr.obs.g = (bit<8>) sm.instance_type;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
