/* standard_metadata as ingress and egress see it, and an unset egress_spec.
 *
 * Ingress writes ingress_port (a), packet_length (b), egress_spec as it starts (c)
 * and instance_type (e); it sets egress_spec to obs.h unless h is 0, in which case
 * egress_spec keeps its initial 0 and BMv2 sends the packet to port 0 (not a drop).
 * Egress writes egress_port (f), instance_type (g) and packet_length (d).
 */
struct metadata { }
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.a = (bit<32>) sm.ingress_port;
        hdr.obs.b = sm.packet_length;
        hdr.obs.c = (bit<16>) sm.egress_spec;
        hdr.obs.e = (bit<8>) sm.instance_type;
        if (hdr.obs.h != 0) {
            sm.egress_spec = (bit<9>) hdr.obs.h;
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.f = (bit<8>) sm.egress_port;
        hdr.obs.g = (bit<8>) sm.instance_type;
        hdr.obs.d = (bit<16>) sm.packet_length;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
