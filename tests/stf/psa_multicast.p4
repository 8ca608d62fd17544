// PSA multicast: multicast(ostd, group) sends one copy per replica of the group, in egress
// with packet path NORMAL_MULTICAST, instance = the replica's rid and the class of service
// ingress chose; each copy gets its own copy of the user metadata. A group with no
// replicas sends nothing; send_to_port after multicast makes it unicast again.
#include "psa_common.p4h"

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    apply {
        meta.b = 0x70;
        multicast(ostd, (MulticastGroup_t) hdr.obs.a);
        ostd.class_of_service = (ClassOfService_t) hdr.obs.cos;
        if (hdr.obs.path == 0x01) {
            send_to_port(ostd, (PortId_t) 9);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply {
        meta.b = meta.b + 1;                  // 0x71 in every copy: none sees another's change
        hdr.obs.path = path_code(istd.packet_path);
        hdr.obs.cos = (ClassOfServiceUint_t) istd.class_of_service;
        hdr.obs.inst = (EgressInstanceUint_t) istd.instance;
        hdr.obs.port = (PortIdUint_t) istd.egress_port;
        hdr.obs.b = meta.b;
    }
}

IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
