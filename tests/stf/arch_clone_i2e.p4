/* Ingress-to-egress clones (clone(CloneType.I2E, session), sessions set with
 * mirroring_add). The clone is the packet AS RECEIVED, parsed again: ingress's header
 * changes are not in it. BMv2 then resets all metadata of the clone (user metadata and
 * standard_metadata, so even ingress_port reads 0: simple_switch.cpp,
 * copy_field_list_and_set_type) and it enters egress with instance_type 1 on the
 * session's port. The original continues unchanged. A session that was never
 * configured makes no clone; a session added with mirroring_add_mc replicates the
 * clone to a multicast group (egress_rid set, instance_type still 1). Dropping the
 * original does not cancel its clone.
 *
 * Egress writes: b = egress_rid ++ packet_length, c = ingress_port, f = egress_port,
 * g = instance_type, h = meta.x. Ingress sets a, d and meta.x = 7 in the original.
 */
struct metadata {
    bit<8> x;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.obs.e == 1) {
            clone(CloneType.I2E, 5);
        } else if (hdr.obs.e == 2) {
            clone(CloneType.I2E, 6);
        } else if (hdr.obs.e == 3) {
            clone(CloneType.I2E, 7);
        }
        hdr.obs.a = 0xffffffff;
        hdr.obs.d = 0x1111;
        meta.x = 7;
        sm.egress_spec = 1;
        if (hdr.obs.e == 4) {
            clone(CloneType.I2E, 5);
            mark_to_drop(sm);
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.b = sm.egress_rid ++ (bit<16>) sm.packet_length;
        hdr.obs.c = (bit<16>) sm.ingress_port;
        hdr.obs.f = (bit<8>) sm.egress_port;
        hdr.obs.g = (bit<8>) sm.instance_type;
        hdr.obs.h = meta.x;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
