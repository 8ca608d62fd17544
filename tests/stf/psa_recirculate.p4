// PSA recirculation: a packet sent to PSA_PORT_RECIRCULATE goes through egress (which sees
// that port), and the egress deparser's output comes back to ingress with path RECIRCULATE,
// ingress_port PSA_PORT_RECIRCULATE and all metadata reset.
#include "psa_common.p4h"

control MyIngress(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd,
                  inout psa_ingress_output_metadata_t ostd) {
    apply {
        if (istd.packet_path == PSA_PacketPath_t.RECIRCULATE) {
            hdr.obs.path = path_code(istd.packet_path);
            hdr.obs.port = (PortIdUint_t) istd.ingress_port;
            hdr.obs.a = meta.a;               // 0: reset
            send_to_port(ostd, (PortId_t) 2);
        } else {
            meta.a = 0x55;
            send_to_port(ostd, PSA_PORT_RECIRCULATE);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd,
                 inout psa_egress_output_metadata_t ostd) {
    apply {
        if (istd.egress_port == PSA_PORT_RECIRCULATE) {
            hdr.obs.b = hdr.obs.b + 1;        // in the bytes that come back
            hdr.obs.cos = meta.a[7:0];        // ingress's metadata reached egress
        }
    }
}

IngressPipeline(IngressParserImpl(), MyIngress(), IngressDeparserImpl()) ip;
EgressPipeline(EgressParserImpl(), MyEgress(), EgressDeparserImpl()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
