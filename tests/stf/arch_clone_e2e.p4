/* Egress-to-egress clones. The clone is taken at the end of the original's egress,
 * with the headers as egress left them (unlike an I2E clone, egress changes are in
 * it); its metadata is reset (ingress_port reads 0, user metadata 0) except the
 * fields of the field list passed to clone_preserving_field_list; it goes through
 * egress again with instance_type 2 on the session's port. Dropping the original
 * in egress does not cancel the clone.
 *
 * Egress writes c = ingress_port, d = meta.y (@field_list(1)), f = egress_port,
 * g = instance_type, h = meta.x (in no field list).
 */
struct metadata {
    bit<8> x;
    @field_list(1)
    bit<8> y;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        meta.x = 7;
        meta.y = 9;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            hdr.obs.a = 0xaaaaaaaa;
            if (hdr.obs.e == 1) {
                clone(CloneType.E2E, 11);
            } else if (hdr.obs.e == 2) {
                clone_preserving_field_list(CloneType.E2E, 11, 1);
            } else if (hdr.obs.e == 3) {
                clone(CloneType.E2E, 11);
                mark_to_drop(sm);
            }
        }
        hdr.obs.c = (bit<16>) sm.ingress_port;
        hdr.obs.d = (bit<16>) meta.y;
        hdr.obs.f = (bit<8>) sm.egress_port;
        hdr.obs.g = (bit<8>) sm.instance_type;
        hdr.obs.h = meta.x;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
