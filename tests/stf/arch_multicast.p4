/* Multicast through the packet replication engine. Ingress sets mcast_grp from
 * obs.c (egress_spec is ignored once mcast_grp != 0). Every copy enters egress with
 * instance_type 5 (REPLICATION), its node's rid in egress_rid and its port in
 * egress_port; ingress metadata (ingress_port, user metadata) carries over.
 * Copies are made node by node in the order the nodes were associated with the
 * group, each node's ports in ascending order; on a port that appears in two
 * nodes the copies arrive in node order.
 */
struct metadata {
    bit<8> tag;
}
#include "arch_common.p4h"

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.mcast_grp = hdr.obs.c;
        sm.egress_spec = 9;
        meta.tag = 0x3c;
    }
}

control MyEgress(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.obs.a = (bit<32>) sm.egress_rid;
        hdr.obs.b = (bit<32>) sm.ingress_port;
        hdr.obs.d = sm.mcast_grp;
        hdr.obs.e = meta.tag;
        hdr.obs.f = (bit<8>) sm.egress_port;
        hdr.obs.g = (bit<8>) sm.instance_type;
    }
}

V1Switch(ObsParser(), NoVerify(), MyIngress(), MyEgress(), NoCompute(), ObsDeparser()) main;
