/* resubmit_preserving_field_list: at the end of ingress the ORIGINAL packet (not the
 * one ingress modified) goes through the parser and ingress again with
 * instance_type 6 (RESUBMIT). BMv2 resets all metadata for that pass (user metadata
 * and standard_metadata: ingress_port reads 0) except the @field_list fields;
 * packet_length is the original length. The first pass's egress_spec is ignored.
 * The resubmitted packet is then forwarded as a normal unicast packet: egress sees
 * instance_type 0.
 */
struct metadata {
    @field_list(1)
    bit<8> count;
    bit<8> other;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            meta.count = 1;
            meta.other = 0x55;
            hdr.obs.a = 0xdeadbeef;
            hdr.obs.h = 0xff;
            resubmit_preserving_field_list(1);
            sm.egress_spec = 3;
        } else {
            hdr.obs.b = sm.packet_length;
            hdr.obs.c = (bit<16>) sm.ingress_port;
            hdr.obs.e = (bit<8>) sm.instance_type;
            hdr.obs.f = meta.count;
            hdr.obs.g = meta.other;
            sm.egress_spec = 2;
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.d = (bit<16>) sm.instance_type;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
