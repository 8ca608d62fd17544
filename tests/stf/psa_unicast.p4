// PSA unicast: ingress starts with drop = true, send_to_port sends, ingress_drop drops (the
// last call wins); egress sees NORMAL_UNICAST, the class of service ingress chose, instance
// 0, the egress port, and the user metadata ingress wrote (psa_switch keeps it for a packet
// sent on when both pipelines use the same metadata type).
#include "psa_common.p4h"

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (!hdr.obs.isValid()) {
            return;                           // nothing sent it anywhere: dropped
        }
        meta.a = (PortIdUint_t) istd.ingress_port;
        meta.b = (bit<32>) path_code(istd.packet_path);
        if (hdr.obs.cos == 0xdd) {
            ostd.drop = false;                // not dropped, no port chosen: port 0
            return;
        }
        send_to_port(ostd, (PortId_t) hdr.obs.port);
        ostd.class_of_service = (ClassOfService_t) hdr.obs.cos;
        if (hdr.obs.cos == 0xee) {
            ingress_drop(ostd);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply {
        hdr.obs.path = path_code(istd.packet_path);
        hdr.obs.cos = (ClassOfServiceUint_t) istd.class_of_service;
        hdr.obs.inst = (EgressInstanceUint_t) istd.instance;
        hdr.obs.port = (PortIdUint_t) istd.egress_port;
        hdr.obs.a = meta.a;
        hdr.obs.b = meta.b;
    }
}

IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
