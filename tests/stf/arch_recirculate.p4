/* recirculate_preserving_field_list: after egress the DEPARSED packet (with all the
 * changes ingress and egress made) goes back to the parser and ingress with
 * instance_type 4 (RECIRC); metadata is reset (ingress_port reads 0) except the
 * @field_list fields. Here egress recirculates until meta.passes reaches 2, so the
 * packet goes through ingress three times (obs.h counts them). The final egress
 * pass is a normal unicast one (instance_type 0).
 */
struct metadata {
    @field_list(2)
    bit<8> passes;
    bit<8> lost;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 4) {
            hdr.obs.b = sm.packet_length;
            hdr.obs.c = (bit<16>) sm.ingress_port;
            hdr.obs.e = (bit<8>) sm.instance_type;
            hdr.obs.g = meta.lost;
        }
        hdr.obs.h = hdr.obs.h + 1;
        sm.egress_spec = 2;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (meta.passes < 2) {
            meta.passes = meta.passes + 1;
            meta.lost = 9;
            recirculate_preserving_field_list(2);
        }
        hdr.obs.f = meta.passes;
        hdr.obs.d = (bit<16>) sm.instance_type;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
